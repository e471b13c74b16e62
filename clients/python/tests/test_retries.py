"""Retries: 429 and the server's own 503 are retried after the Retry-After it sent, for writes
too (the server did not apply them); a failure that may have been applied (a proxy's 502, a
dropped connection, a timeout) is retried only for idempotent requests. Also the timeout and
the settings read from ENGRAM_URL / ENGRAM_API_KEY."""

import os
import socket
import threading
import time
import unittest
from unittest import mock

from engram_client import (EngramClient, EngramConnectionError, EngramTimeoutError,
                           InternalServerError, RateLimitError, UnavailableError)
from support import DROP, HANG, ClientTestCase, ScriptedServer, json_reply, reply

PROXY_502 = reply(502, b"<html>Bad Gateway</html>", {"Content-Type": "text/html"})
ADDED = json_reply(201, {"results": []})


def fast(url, **options):
    return EngramClient(url, "", retry_base=0.001, **options)


class RealServerRetriesTest(ClientTestCase):
    def test_a_write_refused_with_429_is_retried_and_stored_once(self):
        # One request per 2 s: the add right after a first request is refused, Retry-After 2.
        server = self.start_server("--rate-limit", "0.5", "--rate-burst", "1")
        client = self.engram_client(server)
        client.list_users()  # spends the burst
        start = time.monotonic()
        stored = client.add_memory("u", "Likes tea", infer=False)
        self.assertGreaterEqual(time.monotonic() - start, 1.9, "retried before Retry-After: 2")
        self.assertEqual(len(stored.results), 1)
        # list_memories itself waits out a 429
        self.assertEqual([m.content for m in client.list_memories("u").results], ["Likes tea"])

    def test_a_write_refused_with_the_servers_503_is_retried_and_stored_once(self):
        # No access log: tearDown would count the 503 this test provokes as a server failure.
        server = self.start_server("--max-connections", "1", access_log=False)
        held = self.hold_connection(server)
        threading.Timer(0.3, held.close).start()  # the slot frees before the retry
        client = self.engram_client(server)
        stored = client.add_memory("u", "Likes tea", infer=False)
        self.assertEqual(len(stored.results), 1)
        self.assertEqual([m.content for m in client.list_memories("u").results], ["Likes tea"])


class ScriptedRetriesTest(unittest.TestCase):
    def test_429_retries_give_up_after_max_retries(self):
        limited = json_reply(429, {"error": {"code": "rate_limited", "message": "slow down"}},
                             {"Retry-After": "0"})
        with ScriptedServer([limited]) as server:
            with self.assertRaises(RateLimitError):
                fast(server.url, max_retries=2).add_memory("u", "x")
            self.assertEqual(len(server.requests), 3)

    def test_a_retry_after_longer_than_max_retry_delay_is_not_waited_for(self):
        limited = json_reply(429, {"error": {"code": "rate_limited", "message": "slow down"}},
                             {"Retry-After": "120"})
        with ScriptedServer([limited]) as server:
            with self.assertRaises(RateLimitError) as caught:
                fast(server.url, max_retry_delay=5).add_memory("u", "x")
            self.assertEqual(caught.exception.retry_after, 120)
            self.assertEqual(len(server.requests), 1)

    def test_a_503_not_the_servers_own_is_retried_for_reads_only(self):
        proxy_503 = reply(503, b"upstream down", {"Content-Type": "text/plain", "Retry-After": "0"})
        with ScriptedServer([proxy_503]) as server:
            with self.assertRaises(UnavailableError) as caught:
                fast(server.url).add_memory("u", "x")
            self.assertEqual(caught.exception.code, "http_503")
            self.assertEqual(len(server.requests), 1)
        with ScriptedServer([proxy_503, json_reply(200, {"status": "ok"})]) as server:
            self.assertEqual(fast(server.url).healthz().status, "ok")
            self.assertEqual(len(server.requests), 2)

    def test_a_proxys_502_is_retried_for_a_read_never_for_a_write(self):
        with ScriptedServer([PROXY_502]) as server:
            with self.assertRaises(InternalServerError) as caught:
                fast(server.url).add_memory("u", "x")
            self.assertEqual((caught.exception.status, caught.exception.code), (502, "http_502"))
            self.assertEqual(len(server.requests), 1)
        with ScriptedServer([PROXY_502, PROXY_502, json_reply(200, {"results": []})]) as server:
            self.assertEqual(fast(server.url).search("u", "tea").results, [])
            self.assertEqual(len(server.requests), 3)

    def test_a_dropped_connection_is_retried_for_a_read_never_for_a_write(self):
        with ScriptedServer([DROP]) as server:
            with self.assertRaises(EngramConnectionError):
                fast(server.url).add_memory("u", "x")
            self.assertEqual(len(server.requests), 1)
        with ScriptedServer([DROP, json_reply(200, {"results": [], "next_cursor": None})]) as server:
            fast(server.url).list_memories("u")
            self.assertEqual(len(server.requests), 2)

    def test_a_refused_connection_is_retried_even_for_a_write(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # nothing listens once it closes
        client = fast("http://127.0.0.1:%d" % port, max_retries=2)
        with mock.patch("time.sleep") as slept:
            with self.assertRaises(EngramConnectionError) as caught:
                client.add_memory("u", "x")
        self.assertTrue(caught.exception.not_sent)
        self.assertEqual(slept.call_count, 2)

    def test_each_attempt_has_a_timeout(self):
        with ScriptedServer([HANG]) as server:
            start = time.monotonic()
            with self.assertRaises(EngramTimeoutError):
                fast(server.url, timeout=0.2).healthz()
            # healthz is idempotent: three attempts of 0.2 s
            self.assertLess(time.monotonic() - start, 2)
            self.assertEqual(len(server.requests), 3)

    def test_base_url_and_api_key_come_from_the_environment(self):
        with ScriptedServer([json_reply(200, {"status": "ok"})]) as server:
            env = {"ENGRAM_URL": server.url + "/", "ENGRAM_API_KEY": "egk_from_env"}
            with mock.patch.dict(os.environ, env):
                client = EngramClient()
                self.assertEqual(client.base_url, server.url)
                client.healthz()
            method, path, headers, _ = server.requests[0]
            self.assertEqual((method, path), ("GET", "/healthz"))
            self.assertEqual(headers["Authorization"], "Bearer egk_from_env")
