#!/usr/bin/env python3
"""Black-box tests of the chat proxy, POST /v1/chat/completions, against a fake upstream over
real HTTP: the user's memory is in the system message the upstream received (and nobody
else's), replies come back as they are (JSON, or server-sent events passed on chunk by chunk as
the upstream sends them), the exchange is written back through the write path afterwards, and
every failure (refused, timed out, an error reply, a stream broken mid-way, bad input) is an
OpenAI-style error that writes nothing.
"""

import http.client
import http.server
import json
import os
import socket
import socketserver
import sys
import threading
import time
import unittest

import server_harness as h
from server_harness import ServerTestCase

UPSTREAM_KEY = "sk-upstream-test"
CHAT = "/v1/chat/completions"


class Upstream:
    """An OpenAI-compatible /v1/chat/completions on 127.0.0.1 that records each request and
    answers as `mode` says: "reply" (a completion), "stream" (chunks with `gap_s` between them,
    then [DONE]), "broken" (two chunks, then the connection drops), "error" (status `status`
    with `error_body`), "slow" (sleeps `delay_s` before answering)."""

    def __init__(self):
        self.requests = []
        self.mode = "reply"
        self.reply_text = "Try a mushroom risotto."
        self.chunks = ["Try ", "a mushroom ", "risotto."]
        self.gap_s = 0.0
        self.status = 500
        self.error_body = b'{"error": {"message": "model overloaded", "type": "server_error"}}'
        self.delay_s = 0.0
        self.sent_at = []  # when each streamed chunk left the upstream (time.monotonic)
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(n) or b"{}")
                upstream.requests.append({"path": self.path, "body": body,
                                          "authorization": self.headers.get("Authorization")})
                try:
                    getattr(upstream, "answer_" + upstream.mode)(self, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the proxy gave up on a slow answer (the timeout test)

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/v1" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def send(handler, status, body, content_type="application/json"):
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def answer_reply(self, handler, body):
        self.send(handler, 200, json.dumps({
            "id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": self.reply_text}}]}).encode())

    def answer_error(self, handler, body):
        self.send(handler, self.status, self.error_body)

    def answer_slow(self, handler, body):
        time.sleep(self.delay_s)
        self.answer_reply(handler, body)

    def start_events(self, handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()

    def event(self, handler, payload):
        data = ("data: %s\n\n" % payload).encode()
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        handler.wfile.flush()
        self.sent_at.append(time.monotonic())

    @staticmethod
    def chunk(text):
        return json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": {"content": text}}]})

    def answer_stream(self, handler, body):
        self.start_events(handler)
        for i, text in enumerate(self.chunks):
            if i:
                time.sleep(self.gap_s)
            self.event(handler, self.chunk(text))
        self.event(handler, "[DONE]")
        handler.wfile.write(b"0\r\n\r\n")

    def answer_broken(self, handler, body):
        self.start_events(handler)
        self.event(handler, self.chunk("Try "))
        self.event(handler, self.chunk("a mush"))
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)
        handler.close_connection = True


class ChatProxyTest(ServerTestCase):
    ROUTES_ANSWERING_5XX = ("POST " + CHAT,)

    def setUp(self):
        super().setUp()
        self.upstream = Upstream()
        self.addCleanup(self.upstream.close)

    def serve(self, *args, upstream=True, name=None):
        env = h.clean_env()
        env["ENGRAM_TEST_UPSTREAM_KEY"] = UPSTREAM_KEY
        extra = ["--upstream-url", self.upstream.url, "--upstream-key-env",
                 "ENGRAM_TEST_UPSTREAM_KEY"] if upstream else []
        return self.start_server(*(extra + list(args)), env=env, name=name)

    def remember(self, client, user, text):
        r = client.request("POST", "/v1/memories", body={"user_id": user, "content": text,
                                                         "infer": True})
        self.assertIn(r.status, (200, 201), r)

    def chat(self, client, user="alice", text="What should I cook tonight?", key=None, **extra):
        body = {"model": "gpt-test", "messages": [{"role": "user", "content": text}]}
        if user is not None:
            body["user"] = user
        body.update(extra)
        return client.request("POST", CHAT, body=body, key=key)

    def system_text(self, request):
        messages = request["body"]["messages"]
        return messages[0]["content"] if messages[0]["role"] == "system" else ""

    def wait_for_memory(self, client, user, needle, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = client.request("GET", "/v1/memories", params={"user_id": user, "limit": "100"})
            if any(needle in m["content"] for m in r.json()["results"]):
                return True
            time.sleep(0.1)
        return False

    def contents(self, client, user):
        r = client.request("GET", "/v1/memories", params={"user_id": user, "limit": "100",
                                                          "status": "all"})
        return [m["content"] for m in r.json()["results"]]

    def assert_openai_error(self, r, status, code):
        self.assertEqual(r.status, status, r)
        body = r.json()
        self.assertEqual(set(body), {"error"}, r)
        self.assertIsInstance(body["error"]["message"], str)
        self.assertTrue(body["error"]["message"], r)
        self.assertIn("type", body["error"], r)
        if code is not None:
            self.assertEqual(body["error"]["code"], code, r)

    def test_memory_goes_into_the_system_message_and_the_exchange_comes_back(self):
        c = self.serve().client()
        self.remember(c, "alice", "I'm allergic to peanuts, seriously allergic")
        self.remember(c, "bob", "I love peanut butter sandwiches")
        r = self.chat(c, text="I just moved to Lisbon! What should I cook tonight?")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["choices"][0]["message"]["content"], "Try a mushroom risotto.")
        sent = self.upstream.requests[-1]
        self.assertEqual(sent["path"], "/v1/chat/completions")
        self.assertEqual(sent["authorization"], "Bearer " + UPSTREAM_KEY)
        system = self.system_text(sent)
        self.assertIn("peanut", system)
        self.assertNotIn("butter", system)  # bob's memory is bob's
        self.assertEqual(sent["body"]["messages"][-1]["content"],
                         "I just moved to Lisbon! What should I cook tonight?")
        self.assertEqual(sent["body"]["model"], "gpt-test")
        self.assertNotIn("engram", sent["body"])
        # Written back through the write path, as a job: the move is remembered.
        self.assertTrue(self.wait_for_memory(c, "alice", "Lisbon"), self.contents(c, "alice"))

    def test_an_existing_system_message_keeps_its_text_and_gets_the_memory_after_it(self):
        c = self.serve().client()
        self.remember(c, "alice", "I'm vegetarian")
        body = {"model": "m", "user": "alice", "messages": [
            {"role": "system", "content": "You are a terse cook."},
            {"role": "user", "content": "dinner idea?"}],
            "engram": {"token_budget": 200, "session_id": "s9"}}
        r = c.request("POST", CHAT, body=body)
        self.assertEqual(r.status, 200, r)
        sent = self.upstream.requests[-1]["body"]
        self.assertEqual(len(sent["messages"]), 2)
        self.assertTrue(sent["messages"][0]["content"].startswith("You are a terse cook.\n\n"))
        self.assertIn("vegetarian", sent["messages"][0]["content"])

    def test_an_unknown_user_gets_no_memory_block(self):
        c = self.serve().client()
        self.remember(c, "alice", "I'm allergic to peanuts")
        r = self.chat(c, user="nobody", text="any allergies I should know about? peanuts?")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.system_text(self.upstream.requests[-1]), "")

    def test_the_user_may_come_from_a_header_and_the_profile_when_asked(self):
        c = self.serve().client()
        self.remember(c, "carol", "I work as a nurse in Porto")
        r = c.request("POST", CHAT, body={"model": "m", "messages": [
            {"role": "user", "content": "plan my week"}]},
            headers={"X-Engram-User": "carol", "X-Engram-Profile": "true"})
        self.assertEqual(r.status, 200, r)
        self.assertIn("nurse", self.system_text(self.upstream.requests[-1]))

    def streamed(self, server, body, key=None):
        """Posts a streaming request on a raw connection; returns (status, [(time, bytes)])."""
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = "Bearer " + key
        conn.request("POST", CHAT, body=json.dumps(body), headers=headers)
        resp = conn.getresponse()
        pieces = []
        if resp.status == 200:
            while True:
                piece = resp.read1(65536)
                if not piece:
                    break
                pieces.append((time.monotonic(), piece))
        else:
            pieces.append((time.monotonic(), resp.read()))
        conn.close()
        return resp, pieces

    def test_a_stream_passes_chunk_by_chunk_and_is_written_back_after_done(self):
        server = self.serve()
        c = server.client()
        self.remember(c, "alice", "I'm allergic to peanuts")
        self.upstream.mode = "stream"
        self.upstream.gap_s = 0.4
        self.upstream.chunks = ["I moved ", "to Oslo ", "too!"]
        body = {"model": "m", "user": "alice", "stream": True,
                "messages": [{"role": "user", "content": "I adopted a cat named Pixel. Ideas?"}]}
        resp, pieces = self.streamed(server, body, key="sk-anything")  # keyless: any key
        self.assertEqual(resp.status, 200)
        self.assertTrue(resp.getheader("Content-Type").startswith("text/event-stream"))
        text = b"".join(p for _, p in pieces).decode()
        self.assertEqual(text.count("chat.completion.chunk"), 3)
        self.assertTrue(text.rstrip().endswith("data: [DONE]"), text)
        # Each chunk reached the client while the next was still to come: the first arrived
        # well before the upstream sent the last (0.8 s later).
        self.assertGreaterEqual(len(pieces), 2, pieces)
        self.assertLess(pieces[0][0], self.upstream.sent_at[-1] - 0.3)
        self.assertIn("peanut", self.system_text(self.upstream.requests[-1]))
        self.assertTrue(self.wait_for_memory(c, "alice", "Pixel"), self.contents(c, "alice"))

    def test_a_stream_broken_mid_way_ends_in_an_error_event_and_writes_nothing(self):
        server = self.serve()
        c = server.client()
        self.upstream.mode = "broken"
        body = {"model": "m", "user": "dave", "stream": True,
                "messages": [{"role": "user", "content": "I adopted a parrot named Kiwi."}]}
        resp, pieces = self.streamed(server, body)
        self.assertEqual(resp.status, 200)
        text = b"".join(p for _, p in pieces).decode()
        self.assertIn("a mush", text)
        self.assertNotIn("[DONE]", text)
        last = [line for line in text.splitlines() if line.startswith("data: ")][-1]
        error = json.loads(last[len("data: "):])["error"]
        self.assertEqual(error["code"], "stream_interrupted")
        time.sleep(1.0)  # a job would have run by now
        self.assertEqual(self.contents(c, "dave"), [])

    def test_upstream_failures_are_openai_errors_and_write_nothing(self):
        server = self.serve("--upstream-timeout", "1")
        c = server.client()
        cases = [("error", 500, {}, 500, None), ("error", 503, {"error_body": b"<html>down</html>"},
                                                  502, "upstream_error"),
                 ("error", 429, {}, 429, None), ("slow", None, {"delay_s": 2.5}, 502,
                                                  "upstream_unavailable")]
        for mode, status, attrs, expect, code in cases:
            for stream in (False, True):
                with self.subTest(mode=mode, status=status, stream=stream):
                    self.upstream.mode = mode
                    self.upstream.status = status or 500
                    self.upstream.error_body = attrs.get(
                        "error_body", b'{"error": {"message": "overloaded", "type": "server_error"}}')
                    self.upstream.delay_s = attrs.get("delay_s", 0)
                    r = self.chat(c, user="erin", text="I moved to Tromso.", stream=stream)
                    self.assert_openai_error(r, expect, code)
        time.sleep(1.0)
        self.assertEqual(self.contents(c, "erin"), [])

    def test_calls_waiting_for_a_slow_upstream_hold_no_request_worker(self):
        # Two workers, six streamed calls whose upstream takes 3 s to begin answering: the
        # calls wait without a worker each, so a route that runs on the workers (the profile)
        # still answers at once, and every call gets its answer.
        server = self.serve("--threads", "2")
        c = server.client()
        self.remember(c, "alice", "I'm allergic to peanuts")
        self.upstream.mode = "slow"
        self.upstream.delay_s = 3.0
        results = []

        def call():
            resp, pieces = self.streamed(server, {"model": "gpt-test", "user": "alice",
                                                  "stream": True, "messages": [
                                                      {"role": "user", "content": "hi"}]})
            results.append((resp.status, b"".join(p for _, p in pieces)))

        threads = [threading.Thread(target=call) for _ in range(6)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while len(self.upstream.requests) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(self.upstream.requests), 6)  # all six are waiting upstream
        started = time.monotonic()
        r = c.request("GET", "/v1/profile?user_id=alice")
        self.assertEqual(r.status, 200, r)
        self.assertLess(time.monotonic() - started, 1.5)
        for t in threads:
            t.join(30)
        self.assertEqual([status for status, _ in results], [200] * 6)
        self.assertTrue(all(b"mushroom risotto" in body for _, body in results), results)

    def test_a_refused_upstream_is_a_502(self):
        self.upstream.close()
        server = self.serve()
        c = server.client()
        for stream in (False, True):
            with self.subTest(stream=stream):
                r = self.chat(c, stream=stream)
                self.assert_openai_error(r, 502, "upstream_unavailable")

    def test_bad_requests_are_openai_400s(self):
        c = self.serve().client()
        bad = [b"not json", json.dumps({"model": "m", "user": "a"}).encode(),
               json.dumps({"model": "m", "user": "a", "messages": []}).encode(),
               json.dumps({"user": "a", "messages": [{"role": "user", "content": "hi"}]}).encode(),
               json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode(),
               json.dumps({"model": "m", "user": "a", "messages": [{"content": "hi"}]}).encode(),
               json.dumps({"model": "m", "user": "a", "engram": {"token_budget": 5},
                           "messages": [{"role": "user", "content": "hi"}]}).encode()]
        for raw in bad:
            with self.subTest(raw=raw):
                r = c.request("POST", CHAT, raw=raw)
                self.assert_openai_error(r, 400, "invalid_request")
        self.assertEqual(self.upstream.requests, [])

    def test_without_an_upstream_the_route_says_how_to_enable_it(self):
        c = self.serve(upstream=False).client()
        r = self.chat(c)
        self.assert_openai_error(r, 404, "proxy_not_enabled")
        self.assertIn("--upstream-url", r.json()["error"]["message"])

    def test_with_keys_a_tenant_sees_only_its_own_users_memory(self):
        server = self.serve()
        a = h.create_key(server.db, "tenant-a")["secret"]
        b = h.create_key(server.db, "tenant-b")["secret"]
        time.sleep(1.1)  # keyless mode ends within a second of the first key
        ca, cb = server.client(key=a), server.client(key=b)
        self.remember(cb, "alice", "I'm allergic to shellfish")
        self.remember(ca, "alice", "I'm allergic to kiwi fruit")
        r = self.chat(ca, text="any allergies? shellfish? kiwi?")
        self.assertEqual(r.status, 200, r)
        system = self.system_text(self.upstream.requests[-1])
        self.assertIn("kiwi", system)
        self.assertNotIn("shellfish", system)
        self.assertEqual(self.chat(server.client(), key="sk-wrong").status, 401)


if __name__ == "__main__":
    h.main()
