"""Fake OpenAI-compatible chat servers on 127.0.0.1: `ChatServer`, the endpoint any black-box
test can answer from a function, and `FakeOpenAI`, the LLM write path's stand-in for a model.

`FakeOpenAI` stands in for a model; nothing here is, or is claimed to be, a model's judgement:
- extraction requests (prompts/extract-v*.txt) are answered with *replayed* replies: the reply
  recorded for the turn's text and day (`replies`, e.g. what `engram extract --jsonl` printed
  for it), or {"memories": []} when none was recorded;
- decision requests (prompts/decide-v*.txt) are answered by a small fixed policy over the
  candidate and the numbered memories the prompt shows (same slot and one value → SUPERSEDE,
  same text → NOOP, a longer statement of a same-slot memory → UPDATE, else ADD);
- failures are injected by the turn's text: `refuse(text)` true answers HTTP 400 (a provider
  refusal, not retried), `garble(text)` true answers a first reply that breaks the JSON
  contract, so the client must ask once more (the repair request), and is then answered.

Counters say what was asked: extraction, decision, repair and refused requests.
"""

import http.server
import json
import re
import threading

TURN_RE = re.compile(r"^\[(\d+)\] (\d{4}-\d\d-\d\d) \w+ \d\d:\d\d ([^:]+): (.*)$")


def _norm(text):
    return re.sub(r"[\W_]+", "", text.lower())


def decide(candidate, stored):
    """The fixed policy: (decision, target, merged_content, reason)."""
    same_slot = [i for i, m in enumerate(stored) if m.get("same_slot")]
    cand = _norm(candidate["content"])
    for i, m in enumerate(stored):
        if _norm(m["content"]) == cand:
            return "NOOP", i, None, "the same statement is stored"
    if same_slot and (candidate.get("exclusive") or candidate.get("correction")):
        return "SUPERSEDE", same_slot[0], None, "a new value of a one-valued slot"
    for i in same_slot:
        if _norm(stored[i]["content"]) in cand:
            return "UPDATE", i, candidate["content"], "the same fact in more detail"
    return "ADD", None, None, "nothing stored says this"


class ChatServer:
    """An OpenAI-compatible /v1/chat/completions endpoint on 127.0.0.1 (a real HTTP server on an
    ephemeral port, `url` its base URL): each POST's JSON body goes to `answer(body)`, which
    returns (status, payload); a 200's payload is the assistant message's content, wrapped in a
    chat completion, any other status's payload is sent as the error body."""

    def __init__(self, answer):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(n) or b"{}")
                status, payload = answer(body)
                if status == 200:
                    payload = {
                        "id": "chatcmpl-fake", "object": "chat.completion",
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": payload}}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                out = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/v1" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeOpenAI:
    def __init__(self, replies, refuse=lambda text: False, garble=lambda text: False):
        """replies: {(text, "YYYY-MM-DD"): reply JSON object}."""
        self.replies = replies
        self.refuse = refuse
        self.garble = garble
        self.lock = threading.Lock()
        self.counts = {"extract": 0, "decide": 0, "repair": 0, "language_repair": 0, "refused": 0,
                       "unknown_turn": 0}
        self.language_repairs = []  # what the client said was in the wrong language
        self.decisions = {}
        self.server = ChatServer(self.answer)
        self.url = self.server.url

    def close(self):
        self.server.close()

    def _count(self, key):
        with self.lock:
            self.counts[key] += 1

    def answer(self, body):
        messages = body.get("messages", [])
        system = messages[0]["content"] if messages else ""
        user = messages[1]["content"] if len(messages) > 1 else ""
        repair = len(messages) > 2
        if system.startswith("You extract long-term memories"):
            if repair and "are not written in" in messages[-1]["content"]:
                self._count("language_repair")
                with self.lock:
                    self.language_repairs.append(messages[-1]["content"])
                repair = False  # the same reply again: the fake does not translate
            return self._extract(user, repair)
        if system.startswith("You keep a user's long-term memory consistent"):
            return self._decide(user)
        return 400, {"error": {"message": "unknown prompt", "type": "invalid_request_error"}}

    def _extract(self, user, repair):
        turns = []
        for line in user.split("\n"):
            m = TURN_RE.match(line)
            if m:
                turns.append((int(m.group(1)), m.group(2), m.group(3), m.group(4)))
        if repair:
            self._count("repair")
        else:
            self._count("extract")
        memories = []
        for index, day, role, text in turns:
            if self.refuse(text):
                self._count("refused")
                return 400, {"error": {"message": "This model's maximum context length is "
                                                  "exceeded (injected refusal)",
                                       "type": "invalid_request_error"}}
            if self.garble(text) and not repair:
                return 200, 'Sure! Here are the memories: {"memories": [{"type": "fact",'
            reply = self.replies.get((text, day))
            if reply is None:
                self._count("unknown_turn")
                continue
            for m in reply["memories"]:
                m = dict(m)
                m["turn"] = index
                memories.append(m)
        return 200, json.dumps({"memories": memories}, ensure_ascii=False)

    def _decide(self, user):
        self._count("decide")
        candidate, stored = None, []
        for line in user.split("\n"):
            if line.startswith("Candidate: "):
                candidate = json.loads(line[len("Candidate: "):])
            elif re.match(r"^\[\d+\] \{", line):
                stored.append(json.loads(line[line.index("{"):]))
        if candidate is None:
            return 400, {"error": {"message": "no candidate", "type": "invalid_request_error"}}
        decision, target, merged, reason = decide(candidate, stored)
        with self.lock:
            self.decisions[decision] = self.decisions.get(decision, 0) + 1
        return 200, json.dumps({"decision": decision, "target": target,
                                "merged_content": merged, "reason": reason})
