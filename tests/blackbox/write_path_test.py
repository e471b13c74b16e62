"""Black-box tests of the write path over HTTP: each user turn that is not chit-chat kept as an
episodic message (kind "turn") linked both ways to what is extracted from it (kind "memory"),
extraction with the built-in rules, decisions (ADD, SUPERSEDE, NOOP) with history and as_of,
chit-chat and other speakers skipped with reasons (200 when nothing is stored), --keep-turns
false, the privacy policy, sessions and working memory, asynchronous adds and their jobs
(including across a crash), and an LLM provider that fails (the turn is kept, the error
reported) — all against the real `engram serve` on an ephemeral loopback port.

The LLM is a fake OpenAI-compatible server (fake_openai.ChatServer; a real model cannot run
here); it speaks the real protocol over real HTTP and can be switched between failing and
answering.
"""

import json
import os
import re
import signal
import threading
import time

import fake_openai
import server_harness as h


class FakeLlm:
    """/v1/chat/completions on 127.0.0.1: `mode` "down" answers 503, "up" answers with
    `reply(request_json)`'s content. `requests` holds every request body."""

    def __init__(self, reply):
        self.mode = "down"
        self.reply = reply
        self.requests = []
        self.server = fake_openai.ChatServer(self.answer)
        self.url = self.server.url

    def answer(self, body):
        self.requests.append(body)
        if self.mode == "down":
            return 503, {"error": {"message": "overloaded"}}
        return 200, self.reply(body)

    def close(self):
        self.server.close()


class WritePathTest(h.ServerTestCase):
    def infer_client(self, server):
        c = h.Client(server.port, store_as_given=False)
        server.clients.append(c)
        return c

    def remember(self, c, user, text, expect=201, **fields):
        return self.ok(c, "POST", "/v1/memories", dict(fields, user_id=user, text=text),
                       expect=expect)

    def active(self, c, user, **params):
        return [m["content"] for m in self.list_all(c, user, **params)]

    def split(self, body):
        """The kept turns and the memories of an add's results; turns must come first."""
        kinds = [r["kind"] for r in body["results"]]
        turns = [r for r in body["results"] if r["kind"] == "turn"]
        memories = [r for r in body["results"] if r["kind"] == "memory"]
        self.assertEqual(kinds, ["turn"] * len(turns) + ["memory"] * len(memories), body)
        for r in body["results"]:
            self.assertEqual(r["id"], r["memory"]["id"], r)
        return turns, memories

    def assert_turn(self, result, content, role="user"):
        """A kept turn: the user's words as said, an episodic message of the "turn" extractor."""
        self.assertEqual(result["kind"], "turn")
        self.assertEqual(result["event"], "ADD")
        m = result["memory"]
        self.assertEqual(m["content"], content)
        self.assertEqual((m["type"], m["tier"], m["status"]), ("message", "episodic", "active"))
        self.assertEqual(m["source"]["extractor"], "turn")
        self.assertEqual(m["source"]["role"], role)
        self.assertEqual(m["source"]["turn_ids"], [])
        self.assertEqual(m["slot"], "")

    def assert_linked(self, c, user, turn, memories):
        """The turn lists exactly what it produced (in the reply and stored); each memory names
        the turn among its source turns."""
        ids = [m["id"] for m in memories]
        self.assertEqual(turn["memory"]["derived_ids"], ids, turn)
        stored = self.ok(c, "GET", "/v1/memories/" + turn["id"], params={"user_id": user})
        self.assertEqual(stored["derived_ids"], ids)
        for m in memories:
            self.assertIn(turn["id"], m["memory"]["source"]["turn_ids"], m)
            got = self.ok(c, "GET", "/v1/memories/" + m["id"], params={"user_id": user})
            self.assertIn(turn["id"], got["source"]["turn_ids"])

    def test_rules_extract_decide_and_keep_history(self):
        c = self.infer_client(self.start_server())
        first = self.remember(c, "alice", "Hi! I live in Beijing.")
        self.assertEqual(first["extractor"], "rules-v2")
        self.assertEqual(first["extraction_errors"], [])
        self.assertEqual(first["skipped"], [])
        turns, memories = self.split(first)
        self.assertEqual((len(turns), len(memories)), (1, 1), first)
        said = turns[0]
        self.assert_turn(said, "Hi! I live in Beijing.")
        beijing = memories[0]
        self.assertEqual(beijing["event"], "ADD")
        self.assertEqual(beijing["memory"]["slot"], "user/location")
        self.assertEqual((beijing["memory"]["type"], beijing["memory"]["tier"]),
                         ("fact", "semantic"))
        self.assertIn("Beijing", beijing["memory"]["content"])
        self.assertEqual(beijing["memory"]["source"]["extractor"], "rules-v2")
        self.assertEqual(beijing["memory"]["source"]["turn_ids"], [said["id"]])
        self.assertEqual(beijing["memory"]["derived_ids"], [])
        self.assert_linked(c, "alice", said, [beijing])
        # The raw turn ranks below what was distilled from it.
        self.assertLess(said["memory"]["importance"], beijing["memory"]["importance"])
        time.sleep(0.01)
        moved = self.remember(c, "alice", "I moved to Shanghai.")
        turns, memories = self.split(moved)
        self.assertEqual([(r["kind"], r["event"]) for r in moved["results"]],
                         [("turn", "ADD"), ("memory", "SUPERSEDE")], moved)
        self.assert_turn(turns[0], "I moved to Shanghai.")
        self.assert_linked(c, "alice", turns[0], memories)
        shanghai = memories[0]
        self.assertIn("Shanghai", shanghai["memory"]["content"])
        self.assertEqual(shanghai["memory"]["supersedes"], beijing["id"])
        self.assertEqual(shanghai["replaced"]["id"], beijing["id"])
        self.assertEqual(shanghai["replaced"]["status"], "superseded")
        self.assertEqual(shanghai["replaced"]["superseded_by"], shanghai["id"])
        # Active: the current fact and both turns (what was said stays what was said).
        facts = self.active(c, "alice", type="fact")
        self.assertEqual(len(facts), 1)
        self.assertIn("Shanghai", facts[0])
        self.assertEqual(sorted(self.active(c, "alice", type="message")),
                         ["Hi! I live in Beijing.", "I moved to Shanghai."])
        # The old fact is kept, closed, with the decision in its history.
        history = self.ok(c, "GET", "/v1/memories/%s/history" % beijing["id"],
                          params={"user_id": "alice"})["results"]
        self.assertEqual([e["event"] for e in history], ["ADD", "SUPERSEDE"])
        self.assertTrue(history[1]["reason"])
        # What was believed before the move; and the slot's versions.
        then = self.active(c, "alice", type="fact", as_of=beijing["memory"]["valid_from"])
        self.assertEqual(len(then), 1)
        self.assertIn("Beijing", then[0])
        versions = self.list_all(c, "alice", slot="user/location", status="all")
        self.assertEqual(sorted(m["status"] for m in versions), ["active", "superseded"])
        # Saying it again keeps the turn and changes nothing but the fact's importance; the
        # fact now names both turns that said it.
        again = self.remember(c, "alice", "I moved to Shanghai.")
        turns, memories = self.split(again)
        self.assertEqual([(r["kind"], r["event"]) for r in again["results"]],
                         [("turn", "ADD"), ("memory", "NOOP")], again)
        self.assertEqual(memories[0]["id"], shanghai["id"])
        self.assertGreaterEqual(memories[0]["memory"]["importance"],
                                shanghai["memory"]["importance"])
        self.assertEqual(memories[0]["memory"]["source"]["turn_ids"],
                         [moved["results"][0]["id"], turns[0]["id"]])
        self.assert_linked(c, "alice", turns[0], memories)
        self.assertEqual(len(self.active(c, "alice", type="fact")), 1)
        self.assertEqual(len(self.active(c, "alice", type="message")), 3)
        # Chit-chat stores nothing: 200, with the reason.
        thanks = self.remember(c, "alice", "谢谢！", expect=200)
        self.assertEqual(thanks["results"], [])
        self.assertEqual(len(thanks["skipped"]), 1, thanks)
        self.assertEqual(thanks["skipped"][0]["message"], 0)
        self.assertIn("chit-chat", thanks["skipped"][0]["reason"])
        # A question is kept as said but states nothing to extract.
        asked = self.remember(c, "alice", "Where do I live?")
        turns, memories = self.split(asked)
        self.assertEqual((len(turns), len(memories)), (1, 0), asked)
        self.assert_turn(turns[0], "Where do I live?")
        self.assertEqual(turns[0]["memory"]["derived_ids"], [])
        self.assertEqual(len(self.active(c, "alice", type="fact")), 1)
        self.assertEqual(len(self.active(c, "alice")), 5)  # the fact and four turns
        # Search of facts sees the current one only; as_of in filters sees the old one.
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "live",
                                                "filters": {"types": ["fact"]}})["results"]
        self.assertEqual(len(hits), 1)
        self.assertIn("Shanghai", hits[0]["memory"]["content"])
        old = self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "live",
                                               "filters": {"types": ["fact"],
                                                           "as_of": beijing["memory"]["valid_from"]}})
        self.assertIn("Beijing", old["results"][0]["memory"]["content"])
        # Unfiltered, the turn whose fact was replaced ranks below the current fact.
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "live in Beijing",
                                                "k": 10})["results"]
        ranked = [x["id"] for x in hits]
        self.assertIn(said["id"], ranked)
        self.assertNotIn(beijing["id"], ranked)
        self.assertLess(ranked.index(shanghai["id"]), ranked.index(said["id"]), hits)

    def test_chit_chat_and_other_speakers_store_nothing(self):
        c = self.infer_client(self.start_server())
        for text in ("thanks!", "ok", "哈哈", "Good morning!"):
            with self.subTest(text=text):
                r = self.remember(c, "u", text, expect=200)
                self.assertEqual(r["results"], [], r)
                self.assertEqual(r["extraction_errors"], [])
                self.assertEqual(len(r["skipped"]), 1, r)
                self.assertEqual(r["skipped"][0]["message"], 0)
                self.assertIn("chit-chat", r["skipped"][0]["reason"])
        # Only the assistant spoke: read as context, not stored.
        r = self.ok(c, "POST", "/v1/memories", {"user_id": "u", "messages": [
            {"role": "assistant", "content": "I live in the cloud, how can I help?"},
            {"role": "user", "content": "thanks"}]}, expect=200)
        self.assertEqual(r["results"], [])
        self.assertEqual([s["message"] for s in r["skipped"]], [0, 1], r)
        self.assertIn("assistant", r["skipped"][0]["reason"])
        self.assertIn("not stored", r["skipped"][0]["reason"])
        self.assertIn("chit-chat", r["skipped"][1]["reason"])
        self.assertEqual(self.list_all(c, "u", status="all"), [])
        # With something said: the user's turn is kept, the assistant's is skipped, and a
        # batch entry's skipped messages say which entry they belong to.
        r = self.ok(c, "POST", "/v1/memories", {"user_id": "u", "messages": [
            {"role": "user", "content": "I work at Initech."},
            {"role": "assistant", "content": "Initech, noted."},
            {"role": "user", "content": "thanks!"}]}, expect=201)
        turns, memories = self.split(r)
        self.assertEqual((len(turns), len(memories)), (1, 1), r)
        self.assert_turn(turns[0], "I work at Initech.")
        self.assertEqual(memories[0]["memory"]["slot"], "user/employer")
        self.assert_linked(c, "u", turns[0], memories)
        self.assertEqual([s["message"] for s in r["skipped"]], [1, 2], r)
        self.assertIn("assistant", r["skipped"][0]["reason"])
        self.assertIn("chit-chat", r["skipped"][1]["reason"])
        b = self.ok(c, "POST", "/v1/memories/batch", {"user_id": "u", "memories": [
            {"content": "ok"}, {"content": "I love sushi."}]}, expect=201)
        turns, memories = self.split(b)
        self.assertEqual([t["memory"]["content"] for t in turns], ["I love sushi."])
        self.assertEqual(len(memories), 1, b)
        self.assert_linked(c, "u", turns[0], memories)
        self.assertEqual(len(b["skipped"]), 1, b)
        self.assertEqual((b["skipped"][0]["memory_index"], b["skipped"][0]["message"]), (0, 0))
        self.assertIn("chit-chat", b["skipped"][0]["reason"])
        self.assertEqual(len(self.list_all(c, "u")), 4)

    def test_keep_turns_off_stores_only_memories(self):
        no_turns_env = h.clean_env()
        no_turns_env["ENGRAM_KEEP_TURNS"] = "false"
        for how, args, env in (("flag", ("--keep-turns", "false"), None),
                               ("env", (), no_turns_env)):
            with self.subTest(how=how):
                s = self.start_server(*args, db=os.path.join(self.dir, how + ".db"),
                                      name="no-turns-" + how, env=env)
                c = self.infer_client(s)
                r = self.remember(c, "u", "I live in Oslo.")
                self.assertEqual([(x["kind"], x["event"]) for x in r["results"]],
                                 [("memory", "ADD")], r)
                m = r["results"][0]["memory"]
                self.assertEqual(m["slot"], "user/location")
                self.assertEqual(m["source"]["extractor"], "rules-v2")
                self.assertEqual(m["source"]["turn_ids"], [])
                self.assertEqual(len(r["skipped"]), 1, r)
                self.assertEqual(r["skipped"][0]["message"], 0)
                self.assertIn("keep_turns", r["skipped"][0]["reason"])
                # Nothing to extract and no turn kept: nothing stored.
                r = self.remember(c, "u", "Where do I live?", expect=200)
                self.assertEqual(r["results"], [])
                self.assertIn("keep_turns", r["skipped"][0]["reason"])
                stored = self.list_all(c, "u", status="all")
                self.assertEqual([x["id"] for x in stored], [m["id"]])
                self.assertEqual(self.list_all(c, "u", type="message", status="all"), [])
                # Stored as given is unaffected.
                r = self.ok(c, "POST", "/v1/memories",
                            {"user_id": "u", "content": "Where do I live?", "infer": False},
                            expect=201)
                self.assertEqual(r["results"][0]["memory"]["content"], "Where do I live?")

    def test_infer_refuses_fields_the_extractor_decides(self):
        c = self.infer_client(self.start_server())
        self.fails(c, "POST", "/v1/memories",
                   {"user_id": "u", "content": "I like tea", "type": "preference"}, mentions="type")
        self.fails(c, "POST", "/v1/memories",
                   {"user_id": "u", "content": "x", "infer": False, "async": True}, mentions="async")
        self.fails(c, "POST", "/v1/memories", {"user_id": "u", "content": "x", "infer": "yes"},
                   mentions="infer")
        self.assertEqual(self.list_all(c, "u"), [])

    def test_privacy_policy_redacts_or_refuses(self):
        s = self.start_server("--pii", "redact,secret=reject", name="redact")
        c = self.infer_client(s)
        r = self.ok(c, "POST", "/v1/memories", {"user_id": "u", "infer": False,
                                                "content": "call me on 13812345678 or mail a@b.co"},
                    expect=201)
        self.assertEqual(r["results"][0]["memory"]["content"], "call me on [phone] or mail [email]")
        msg = self.fails(c, "POST", "/v1/memories",
                         {"user_id": "u", "content": "my key is sk-proj-abcdefghijklmnopqrstuvwx12"},
                         mentions="secret")
        self.assertNotIn("sk-proj", msg)
        contents = [m["content"] for m in self.list_all(c, "u", status="all")]
        self.assertEqual(contents, ["call me on [phone] or mail [email]"])
        # Turns of a session go through the same policy.
        self.ok(c, "POST", "/v1/sessions/s/messages",
                {"user_id": "u", "infer": False,
                 "messages": [{"role": "user", "content": "我的邮箱是 wang@example.cn"}]},
                expect=201)
        w = self.ok(c, "GET", "/v1/sessions/s", params={"user_id": "u"})
        self.assertEqual(w["working"]["turns"][0]["content"], "我的邮箱是 [email]")

    def test_sessions_working_memory_context_and_summary(self):
        s = self.start_server("--summarize-every", "4")
        c = self.infer_client(s)
        r = self.ok(c, "POST", "/v1/sessions/trip/messages", {
            "user_id": "alice",
            "messages": [{"role": "user", "content": "I'm allergic to peanuts."},
                         {"role": "assistant", "content": "Noted, no peanuts."},
                         {"role": "user", "content": "Next week I am going to Chengdu for work."}]},
            expect=201)
        self.assertEqual(r["session_id"], "trip")
        self.assertEqual(len(r["turns"]), 3)
        self.assertIsNone(r["summary"])
        self.assertTrue(any("peanut" in x["memory"]["content"] for x in r["results"]), r)
        w = self.ok(c, "GET", "/v1/sessions/trip", params={"user_id": "alice"})
        self.assertEqual(w["turn_count"], 3)
        self.assertEqual([t["role"] for t in w["working"]["turns"]],
                         ["user", "assistant", "user"])
        ctx = self.ok(c, "POST", "/v1/context", {"user_id": "alice", "session_id": "trip",
                                                 "query": "what should I avoid eating?",
                                                 "token_budget": 300})
        self.assertEqual(ctx["session"]["turns"], 3)
        self.assertIn("Recent turns:", ctx["context"])
        self.assertIn("Chengdu", ctx["context"])
        self.assertTrue(any("peanut" in m["memory"]["content"] for m in ctx["memories"]))
        self.assertLessEqual(ctx["tokens"], 300)
        # The fourth turn triggers a summary linked to the turns.
        r4 = self.ok(c, "POST", "/v1/sessions/trip/messages", {
            "user_id": "alice", "infer": False,
            "messages": [{"role": "assistant", "content": "Chengdu food is spicy, take care."}]},
            expect=201)
        summary = r4["summary"]
        self.assertIsNotNone(summary)
        self.assertEqual(summary["type"], "summary")
        self.assertEqual(summary["tier"], "episodic")
        self.assertEqual(len(summary["source"]["message_ids"]), 4)
        closed = self.ok(c, "POST", "/v1/sessions/trip/close", {"user_id": "alice"})
        self.assertEqual(closed["summary"]["id"], summary["id"])
        self.fails(c, "POST", "/v1/sessions/trip/messages",
                   {"user_id": "alice", "messages": [{"role": "user", "content": "hi"}]},
                   status=409)
        # Another user sees no such session.
        self.fails(c, "GET", "/v1/sessions/trip", params={"user_id": "bob"}, status=404)

    def test_a_hard_delete_takes_the_job_and_the_conversation(self):
        """The two leaks found by hand: a purged async memory still served by GET /v1/jobs/{id},
        and a purged memory's turn still served by /v1/context."""
        s = self.start_server()
        c = self.infer_client(s)
        job_id = self.ok(c, "POST", "/v1/memories",
                         {"user_id": "ann", "content": "I live in Quetzalburg now.",
                          "async": True}, expect=202)["job_id"]
        job = self.wait_job(c, "ann", job_id)
        self.assertEqual(job["state"], "done", job)
        _, memories = self.split(job["result"])
        self.assertEqual(len(memories), 1, job)
        r = self.ok(c, "DELETE", "/v1/memories/" + memories[0]["id"],
                    params={"user_id": "ann", "hard": "true"})
        self.assertEqual((r["hard"], r["jobs"]), (True, 1), r)
        self.assertEqual(len(r["purged"]), 2, r)  # the memory and its kept turn
        self.fails(c, "GET", "/v1/jobs/" + job_id, params={"user_id": "ann"}, status=404)
        self.assertEqual(self.active(c, "ann"), [])
        # A session: the turn leaves working memory and the context block with its memory.
        said = self.ok(c, "POST", "/v1/sessions/s1/messages", {
            "user_id": "ann", "messages": [
                {"role": "user", "content": "我住在鸢尾镇九四七号。"},
                {"role": "user", "content": "I love jasmine tea."}]}, expect=201)
        home = [x for x in said["results"] if x["kind"] == "memory" and "鸢尾镇" in
                x["memory"]["content"]]
        self.assertEqual(len(home), 1, said)
        ctx = {"user_id": "ann", "session_id": "s1", "query": "where do I live?",
               "token_budget": 300}
        self.assertIn("鸢尾镇", self.ok(c, "POST", "/v1/context", ctx)["context"])
        r = self.ok(c, "DELETE", "/v1/memories/" + home[0]["id"],
                    params={"user_id": "ann", "hard": "true"})
        self.assertEqual(r["session_turns"], 1, r)
        after = self.ok(c, "POST", "/v1/context", ctx)["context"]
        self.assertNotIn("鸢尾镇", after)
        self.assertIn("jasmine tea", after)
        turns = self.ok(c, "GET", "/v1/sessions/s1", params={"user_id": "ann"})["working"]["turns"]
        self.assertEqual([t["content"] for t in turns], ["I love jasmine tea."])
        # source_turns=false: only the memory goes; soft deletes refuse the parameter.
        tea = [m for m in self.list_all(c, "ann") if m["type"] != "message"]
        self.assertEqual(len(tea), 1, tea)
        self.fails(c, "DELETE", "/v1/memories/" + tea[0]["id"],
                   params={"user_id": "ann", "source_turns": "false"}, status=400,
                   mentions="source_turns")
        r = self.ok(c, "DELETE", "/v1/memories/" + tea[0]["id"],
                    params={"user_id": "ann", "hard": "true", "source_turns": "false"})
        self.assertEqual((r["purged"], r["session_turns"]), ([tea[0]["id"]], 0), r)
        self.assertIn("jasmine tea", self.ok(c, "POST", "/v1/context", ctx)["context"])

    def test_async_add_returns_a_job_that_completes(self):
        c = self.infer_client(self.start_server())
        accepted = self.ok(c, "POST", "/v1/memories",
                           {"user_id": "alice", "content": "I work at Initech.", "async": True},
                           expect=202)
        job_id = accepted["job_id"]
        self.assertEqual(accepted["state"], "queued")
        job = self.wait_job(c, "alice", job_id)
        self.assertEqual(job["state"], "done", job)
        # The job's result is the body the synchronous add would have answered.
        result = job["result"]
        self.assertEqual(result["extractor"], "rules-v2")
        self.assertEqual(result["extraction_errors"], [])
        self.assertEqual(result["skipped"], [])
        turns, memories = self.split(result)
        self.assertEqual((len(turns), len(memories)), (1, 1), result)
        self.assert_turn(turns[0], "I work at Initech.")
        self.assertEqual(memories[0]["event"], "ADD")
        self.assertEqual(memories[0]["memory"]["slot"], "user/employer")
        self.assertIn("Initech", memories[0]["memory"]["content"])
        self.assert_linked(c, "alice", turns[0], memories)
        self.assertIn("Initech", self.active(c, "alice", type="fact")[0])
        self.assertEqual(self.active(c, "alice", type="message"), ["I work at Initech."])
        self.fails(c, "GET", "/v1/jobs/" + job_id, params={"user_id": "bob"}, status=404)
        # A job with nothing to remember is done too, with the reason and nothing stored.
        job = self.wait_job(c, "alice", self.ok(c, "POST", "/v1/memories", {
            "user_id": "alice", "content": "thanks!", "async": True}, expect=202)["job_id"])
        self.assertEqual(job["state"], "done", job)
        self.assertEqual(job["result"]["results"], [])
        self.assertIn("chit-chat", job["result"]["skipped"][0]["reason"])
        self.assertEqual(len(self.list_all(c, "alice")), 2)

    def wait_job(self, c, user, job_id, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            job = self.ok(c, "GET", "/v1/jobs/" + job_id, params={"user_id": user})
            if job["state"] in ("done", "failed") or time.monotonic() > deadline:
                return job
            time.sleep(0.05)

    def test_a_failing_llm_keeps_the_message_and_jobs_survive_a_crash(self):
        def extraction(request):
            return json.dumps({"memories": [{
                "type": "fact", "content": "Works at Globex", "importance": 0.7,
                "confidence": 0.9, "entities": ["Globex"], "slot": "user/employer",
                "exclusive": True, "correction": False, "valid_from": None, "turn": 0}]})

        llm = FakeLlm(extraction)
        self.addCleanup(llm.close)
        llm_args = ("--extractor", "llm", "--llm-url", llm.url, "--llm-model", "fake-1",
                    "--llm-timeout-ms", "2000")
        s = self.start_server(*llm_args, name="llm-down")
        c = self.infer_client(s)
        # Down: the turn is kept as said, nothing is extracted, and the failure is reported.
        r = self.remember(c, "alice", "I work at Globex now.")
        self.assertEqual(len(r["extraction_errors"]), 1, r)
        self.assertIn("503", r["extraction_errors"][0])  # the provider's answer, as it came
        self.assertEqual(r["extractor"], "raw")
        self.assertEqual(r["skipped"], [])
        turns, memories = self.split(r)
        self.assertEqual((len(turns), len(memories)), (1, 0), r)
        self.assert_turn(turns[0], "I work at Globex now.")
        self.assertEqual(turns[0]["memory"]["derived_ids"], [])
        down_turn = turns[0]["id"]
        self.assertGreaterEqual(len(llm.requests), 2)  # retried
        self.assertEqual(self.active(c, "alice"), ["I work at Globex now."])
        history = self.ok(c, "GET", "/v1/memories/%s/history" % down_turn,
                          params={"user_id": "alice"})["results"]
        self.assertIn("extraction failed", history[0]["reason"])
        # Chit-chat is not sent to the provider at all: no error, nothing stored.
        asked = len(llm.requests)
        r = self.remember(c, "alice", "thanks!", expect=200)
        self.assertEqual((r["results"], r["extraction_errors"]), ([], []), r)
        self.assertEqual(len(llm.requests), asked)
        # Async while down: accepted, then the server dies before the provider recovers.
        job_id = self.ok(c, "POST", "/v1/memories",
                         {"user_id": "alice", "content": "I work at Globex now.", "async": True},
                         expect=202)["job_id"]
        self.assertEqual(s.stop(sig=signal.SIGKILL), -signal.SIGKILL)
        self.servers.remove(s)
        llm.mode = "up"
        s2 = self.start_server(*llm_args, name="llm-up")
        c2 = self.infer_client(s2)
        job = self.wait_job(c2, "alice", job_id, timeout=60)
        self.assertEqual(job["state"], "done", job)
        result = job["result"]
        self.assertEqual(result["extractor"], "llm:fake-1")
        self.assertEqual(result["extraction_errors"], [])
        turns, memories = self.split(result)
        self.assertEqual((len(turns), len(memories)), (1, 1), result)
        self.assert_turn(turns[0], "I work at Globex now.")
        self.assertNotEqual(turns[0]["id"], down_turn)
        mem = memories[0]["memory"]
        self.assertEqual(memories[0]["event"], "ADD")
        self.assertEqual(mem["content"], "Works at Globex")
        self.assertEqual(mem["slot"], "user/employer")
        self.assertEqual(mem["source"]["extractor"], "llm:fake-1")
        self.assertTrue(mem["source"]["prompt_version"])
        self.assert_linked(c2, "alice", turns[0], memories)
        # The turn kept during the outage stays, as said, with nothing derived from it.
        self.assertEqual(sorted(self.active(c2, "alice", type="message")),
                         ["I work at Globex now.", "I work at Globex now."])
        kept = self.ok(c2, "GET", "/v1/memories/" + down_turn, params={"user_id": "alice"})
        self.assertEqual((kept["status"], kept["derived_ids"]), ("active", []))
        # With keep_turns off the turn is still kept when extraction fails: nothing is lost.
        llm.mode = "down"
        s3 = self.start_server(*llm_args, "--keep-turns", "false",
                               db=os.path.join(self.dir, "no-turns.db"), name="llm-down-no-turns")
        r = self.remember(self.infer_client(s3), "bob", "I work at Globex now.")
        self.assertEqual(r["extractor"], "raw")
        self.assertEqual(len(r["extraction_errors"]), 1, r)
        turns, memories = self.split(r)
        self.assertEqual((len(turns), len(memories)), (1, 0), r)
        self.assert_turn(turns[0], "I work at Globex now.")

    def test_maintenance_writes_the_profile_summary_and_a_bad_reply_keeps_it(self):
        said = {"I work at Globex and I'm allergic to peanuts.": [
                    ("Works at Globex", "user/employer"),
                    ("Allergic to peanuts", "user/allergy:peanut")],
                "I moved to Berlin last month.": [("Lives in Berlin", "user/location")]}
        profile_reply = {"mode": "good", "text": "The user works at Globex and must avoid peanuts."}

        def reply(request):
            asked = request["messages"][-1]["content"]
            if "Profile lines:" in asked:  # prompts/profile-v1.txt
                if profile_reply["mode"] == "bad":
                    return '{"summary": "The user lives in Berl'  # not JSON
                ids = re.findall(r"^\[([^\]]+)\] ", asked, re.M)
                return json.dumps({"summary": profile_reply["text"], "cites": ids})
            for text, memories in said.items():
                if text in asked:
                    return json.dumps({"memories": [{
                        "type": "fact", "content": content, "importance": 0.8,
                        "confidence": 0.9, "entities": [], "slot": slot, "exclusive": True,
                        "correction": False, "valid_from": None, "turn": 0}
                        for content, slot in memories]})
            return json.dumps({"memories": []})

        llm = FakeLlm(reply)
        llm.mode = "up"
        self.addCleanup(llm.close)
        s = self.start_server("--extractor", "llm", "--llm-url", llm.url, "--llm-model", "fake-1",
                              "--llm-timeout-ms", "2000", name="llm-profile")
        c = self.infer_client(s)
        self.remember(c, "alice", "I work at Globex and I'm allergic to peanuts.")
        run = self.ok(c, "POST", "/v1/maintenance", {"user_id": "alice"})
        self.assertEqual((run["profiles"], run["problems"]), (1, []), run)
        profile = self.ok(c, "GET", "/v1/profile", params={"user_id": "alice"})
        summary = profile["summary"]
        self.assertEqual(summary["text"], "The user works at Globex and must avoid peanuts.")
        self.assertTrue(summary["current"])
        self.assertEqual((summary["model"], summary["prompt_version"]), ("fake-1", "profile-v1"))
        self.assertRegex(summary["generated_at"], r"^2\d{3}-")
        lines = {m for sec in profile["sections"] for ln in sec["lines"] for m in ln["memory_ids"]}
        self.assertEqual(set(summary["memory_ids"]), lines)
        self.assertTrue(profile["text"].startswith("User profile:\nSummary: The user works at"))
        log = self.ok(c, "GET", "/v1/maintenance/log", params={"user_id": "alice"})["results"]
        self.assertEqual([e["action"] for e in log if e["id"] == "profile"], ["profile"])
        # A new line, and a reply that breaks the contract: the summary stays, not current.
        self.remember(c, "alice", "I moved to Berlin last month.")
        profile_reply["mode"] = "bad"
        run = self.ok(c, "POST", "/v1/maintenance", {"user_id": "alice"})
        self.assertEqual(run["profiles"], 0)
        self.assertEqual(len(run["problems"]), 1, run)
        self.assertIn("profile summary reply unusable", run["problems"][0])
        kept = self.ok(c, "GET", "/v1/profile", params={"user_id": "alice"})["summary"]
        self.assertEqual((kept["text"], kept["generated_at"]), (summary["text"],
                                                                 summary["generated_at"]))
        self.assertFalse(kept["current"])
        # The model answers again: the next run rewrites it from the three lines.
        profile_reply.update(mode="good", text="The user works at Globex, lives in Berlin and "
                                               "is allergic to peanuts.")
        run = self.ok(c, "POST", "/v1/maintenance", {"user_id": "alice"})
        self.assertEqual((run["profiles"], run["problems"]), (1, []), run)
        fresh = self.ok(c, "GET", "/v1/profile", params={"user_id": "alice"})["summary"]
        self.assertTrue(fresh["current"])
        self.assertEqual(len(fresh["memory_ids"]), 3)
        self.assertIn("Berlin", fresh["text"])
        # A hard delete of one of the user's memories takes the summary with it.
        self.ok(c, "DELETE", "/v1/memories/" + fresh["memory_ids"][0],
                params={"user_id": "alice", "hard": "true"})
        self.assertIsNone(self.ok(c, "GET", "/v1/profile", params={"user_id": "alice"})["summary"])
        # The CLI: `engram maintain` with the model writes it again; `engram profile` shows it.
        s.stop()
        self.servers.remove(s)
        llm_args = ["--extractor", "llm", "--llm-url", llm.url, "--llm-model", "fake-1"]
        r = h.run_engram(self.db, "--user", "alice", *llm_args, "maintain")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 profile summaries written", r.stdout.decode())
        shown = h.run_engram(self.db, "--user", "alice", "profile").stdout.decode()
        self.assertRegex(shown, r"^summary \(fake-1, 2\d{3}-[^)]*\)\n  The user works at Globex, "
                                r"lives in Berlin")


class BlockingRoutesTest(h.ServerTestCase):
    """Routes that wait on a provider run on the worker pool: with one event loop, slow adds
    neither stall the loop's other connections nor queue behind each other."""

    infer_client = WritePathTest.infer_client
    remember = WritePathTest.remember

    def test_slow_adds_leave_the_event_loop_free(self):
        delay = 1.5

        def slow_extraction(request):
            time.sleep(delay)
            return json.dumps({"memories": []})

        llm = FakeLlm(slow_extraction)
        llm.mode = "up"
        self.addCleanup(llm.close)
        s = self.start_server("--extractor", "llm", "--llm-url", llm.url, "--llm-model", "fake-1",
                              "--llm-timeout-ms", "10000", "--event-threads", "1",
                              "--threads", "8", name="one-loop")
        self.add(s.client(), "bob", "likes tea")
        statuses = []

        def slow_add(i):
            c = self.infer_client(s)
            statuses.append(self.remember(c, "alice%d" % i, "I moved to Oslo.")["results"])

        threads = [threading.Thread(target=slow_add, args=(i,)) for i in range(6)]
        start = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(0.3)  # the adds are waiting on the provider now
        quick = s.client()
        for _ in range(5):
            t0 = time.monotonic()
            self.ok(quick, "GET", "/healthz")
            hits = self.ok(quick, "POST", "/v1/search", {"user_id": "bob", "query": "tea"})
            self.assertLess(time.monotonic() - t0, 0.5, "a quick route waited on a slow add")
            self.assertEqual(len(hits["results"]), 1)
        for t in threads:
            t.join(30)
        elapsed = time.monotonic() - start
        self.assertEqual(len(statuses), 6)
        # Six adds on eight workers run side by side: about one delay, not six in a row.
        self.assertLess(elapsed, 3 * delay, "the slow adds ran one after another")
        self.assertGreaterEqual(len(llm.requests), 6)


class ExtractionBenchLlmTest(h.ServerTestCase):
    def test_bench_extraction_measures_the_configured_model(self):
        """`engram --extractor llm bench extraction` sends each snippet to the model once and
        scores the types it answers; a snippet the model fails on counts as finding nothing."""
        folder = os.path.join(self.dir, "memory_extraction")
        os.makedirs(folder)
        snippets = [("a", "I live in Oslo and I love skiing."), ("b", "Thanks, see you!"),
                    ("c", "We decided to ship on Monday.")]
        with open(os.path.join(folder, "dataset.jsonl"), "w") as f:
            for sid, text in snippets:
                f.write(json.dumps({"id": sid, "text": text}) + "\n")
        with open(os.path.join(folder, "labels.jsonl"), "w") as f:
            f.write(json.dumps({"id": "a", "memories": [{"type": "fact", "content": "Lives in Oslo"},
                                                        {"type": "preference", "content": "Skiing"}]}) + "\n")
            f.write(json.dumps({"id": "b", "memories": []}) + "\n")
            f.write(json.dumps({"id": "c", "memories": [{"type": "decision", "content": "Ship"}]}) + "\n")

        def model(request):
            shown = " ".join(m["content"] for m in request["messages"])
            if "Oslo" in shown:
                return json.dumps({"memories": [
                    {"type": "fact", "content": "Lives in Oslo", "importance": 0.6,
                     "confidence": 0.9, "entities": ["Oslo"], "slot": "user/location",
                     "exclusive": True, "correction": False, "valid_from": None, "turn": 0},
                    {"type": "preference", "content": "Loves skiing", "importance": 0.5,
                     "confidence": 0.9, "entities": [], "slot": "", "exclusive": False,
                     "correction": False, "valid_from": None, "turn": 0}]})
            if "ship on Monday" in shown:
                return "this is not json"  # and the repair attempt gets the same: a failure
            return json.dumps({"memories": []})

        llm = FakeLlm(model)
        llm.mode = "up"
        self.addCleanup(llm.close)
        r = h.run_engram(self.db, "--json", "--extractor", "llm", "--llm-url", llm.url,
                         "--llm-model", "fake-1", "bench", "extraction", "--data", folder,
                         "--lang", "en")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)["reports"][0]
        self.assertEqual(report["extractor"], "llm:fake-1")
        self.assertEqual(report["failed_snippets"], 1)
        self.assertIsNone(report["throughput"])
        rows = {row["type"]: row for row in report["rows"]}
        self.assertEqual(rows["fact"]["matched"], 1)
        self.assertEqual(rows["preference"]["matched"], 1)
        self.assertEqual(rows["preference"]["precision"], 1.0)
        self.assertEqual(report["false_positive_snippets"], 0)
        # Oslo and the greeting once each; the malformed reply once plus its one repair.
        self.assertEqual(len(llm.requests), 4)
        self.assertIn(b"extraction en 3/3", r.stderr)


class RememberCliTest(h.ServerTestCase):
    def test_remember_command_runs_the_write_path(self):
        def remember(text, *extra, command="remember"):
            r = h.run_engram(self.db, "--user", "u", *extra, command, text)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.decode()
        lines = remember("I live in Paris.").splitlines()
        self.assertEqual(len(lines), 2, lines)
        self.assertTrue(lines[0].startswith("TURN "), lines)
        self.assertTrue(lines[0].endswith("I live in Paris."), lines)
        self.assertTrue(lines[1].startswith("ADD "), lines)
        self.assertIn("Paris", lines[1])
        out = json.loads(remember("I moved to Rome.", "--json"))
        self.assertEqual([(x["kind"], x["event"]) for x in out["results"]],
                         [("turn", "ADD"), ("memory", "SUPERSEDE")])
        self.assertEqual(out["results"][1]["memory"]["source"]["turn_ids"],
                         [out["results"][0]["id"]])
        self.assertEqual(out["results"][0]["memory"]["derived_ids"], [out["results"][1]["id"]])
        self.assertIn("nothing to remember", remember("ok thanks"))
        # `add` is the same write path; `add --no-infer` stores the text exactly as given.
        out = json.loads(remember("I love sushi.", "--json", command="add"))
        self.assertEqual([x["kind"] for x in out["results"]], ["turn", "memory"])
        r = h.run_engram(self.db, "--user", "u", "--json", "add", "--no-infer", "ok thanks")
        self.assertEqual(r.returncode, 0, r.stderr)
        as_given = json.loads(r.stdout)
        self.assertEqual((as_given["content"], as_given["source"]["extractor"]),
                         ("ok thanks", "manual"))
        listed = json.loads(h.run_engram(self.db, "--user", "u", "--json", "list").stdout)
        by_content = {m["content"]: m for m in listed["results"]}
        self.assertEqual(sorted(by_content), ["I live in Paris.", "I love sushi.",
                                              "I moved to Rome.", "User loves sushi",
                                              "User moved to Rome", "ok thanks"])
        self.assertEqual(by_content["ok thanks"]["id"], as_given["id"])
        self.assertEqual(sorted(c for c, m in by_content.items()
                                if m["source"]["extractor"] == "turn"),
                         ["I live in Paris.", "I love sushi.", "I moved to Rome."])
        r = h.run_engram(self.db, "--user", "u", "--pii", "reject", "remember",
                         "call me at 13812345678")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"phone", r.stderr)
        self.assertNotIn(b"13812345678", r.stderr)
        r = h.run_engram(self.db, "--user", "u", "--pii", "hash", "remember", "x")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"ENGRAM_PII_HASH_KEY", r.stderr)


if __name__ == "__main__":
    h.main()
