#!/usr/bin/env python3
"""Black-box tests of `engram serve`: every route of docs/openapi.json with its successes and
errors, request limits, routing errors and HTTP framing, against the real binary on an
ephemeral loopback port.

Every reply is checked on the way: no input may produce a 5xx, and every 4xx carries the JSON
body {"error": {"code", "message"}}. Each test stops its servers with SIGTERM (exit status 0
expected) and finds no 5xx in their access logs. API keys, isolation and rate limits are in
server_auth_test.py; concurrency, crash and shutdown in server_load_test.py.

Usage: server_test.py --engram PATH [--crash-writer PATH] [unittest options]
"""

import json
import os
import re
import select
import signal
import socket
import subprocess
import time
import unittest
import uuid

import server_harness as h
from server_harness import ServerTestCase

LIMIT_ARGS = ["--max-body-bytes", "65536", "--max-batch", "20", "--max-k", "10",
              "--max-token-budget", "4000"]
METHODS = ["GET", "POST", "PATCH", "DELETE", "PUT"]


def openapi_doc():
    with open(os.path.join(h.ROOT, "docs", "openapi.json"), "rb") as f:
        return f.read()


def template_regex(template):
    return re.compile("^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(template)) + "$")


class ApiTestCase(ServerTestCase):
    """One keyless loopback server (tenant 'default') with tight limits, and a client."""

    def setUp(self):
        super().setUp()
        self.server = self.start_server(*LIMIT_ARGS)
        self.c = self.server.client()

    def tearDown(self):
        self.c.close()
        super().tearDown()

    def count(self, user, **params):
        return len(self.list_all(self.c, user, status="all", limit="1000", **params))


# ------------------------------------------------------------------------------------------
# writes
# ------------------------------------------------------------------------------------------

class AddTest(ApiTestCase):

    def test_add_text_with_every_field(self):
        r = self.call(self.c, "POST", "/v1/memories", {
            "user_id": "alice", "agent_id": "ag", "session_id": "s1", "infer": False,
            "content": "prefers green tea", "type": "preference", "tier": "episodic",
            "tags": ["drink", "tea"], "entities": ["Alice"],
            "metadata": {"source": "chat", "n": [1, 2]}, "importance": 0.9, "confidence": 0.75,
            "created_at": "2024-03-01T10:00:00Z", "valid_from": "2024-02-01T00:00:00Z",
            "valid_to": "2024-12-31T23:59:59.500+01:00"}, expect=201)
        self.assertTrue(r.header("content-type").startswith("application/json"))
        body = r.json()
        self.assertEqual(len(body["results"]), 1)
        res = body["results"][0]
        self.assertEqual(res["event"], "ADD")
        m = res["memory"]
        self.assertEqual(res["id"], m["id"])
        self.assertEqual(m["content"], "prefers green tea")
        self.assertEqual((m["type"], m["tier"], m["status"]), ("preference", "episodic", "active"))
        self.assertEqual(m["tags"], ["drink", "tea"])
        self.assertEqual(m["entities"], ["Alice"])
        self.assertEqual(m["metadata"], {"source": "chat", "n": [1, 2]})
        self.assertEqual((m["importance"], m["confidence"]), (0.9, 0.75))
        self.assertEqual(m["created_at"], "2024-03-01T10:00:00.000Z")
        self.assertEqual(m["valid_from"], "2024-02-01T00:00:00.000Z")
        self.assertEqual(m["valid_to"], "2024-12-31T22:59:59.500Z")
        self.assertEqual((m["tenant"], m["user_id"], m["agent_id"], m["session_id"]),
                         ("default", "alice", "ag", "s1"))
        self.assertEqual(m["source"]["extractor"], "api")
        got = self.ok(self.c, "GET", "/v1/memories/" + m["id"], params={"user_id": "alice"})
        self.assertEqual(got, m)

    def test_add_messages_stores_one_memory_per_message(self):
        res = self.ok(self.c, "POST", "/v1/memories", {
            "user_id": "alice", "tags": ["chat"], "messages": [
                {"role": "user", "content": "I moved to Lisbon"},
                {"role": "assistant", "content": "Nice, Lisbon is sunny"}]}, expect=201)
        ms = [r["memory"] for r in res["results"]]
        self.assertEqual([m["content"] for m in ms], ["I moved to Lisbon", "Nice, Lisbon is sunny"])
        self.assertEqual([m["metadata"]["role"] for m in ms], ["user", "assistant"])
        for m in ms:
            self.assertEqual(m["type"], "message")
            self.assertEqual(m["tags"], ["chat"])
        self.assertEqual(self.count("alice"), 2)

    def test_infer_is_the_default(self):
        """A body that does not say infer runs the write path: the user's turn is kept (kind
        "turn"), what it states is extracted (kind "memory"), the two are linked, and what is
        not stored is listed with the reason; 200 when nothing was stored."""
        c = h.Client(self.server.port, store_as_given=False)
        self.server.clients.append(c)
        r = self.call(c, "POST", "/v1/memories", {
            "user_id": "carol", "tags": ["chat"], "metadata": {"via": "test"}, "messages": [
                {"role": "user", "content": "I work at Initech."},
                {"role": "assistant", "content": "Initech, noted."},
                {"role": "user", "content": "thanks!"}]}, expect=201)
        self.assertTrue(r.header("content-type").startswith("application/json"))
        body = r.json()
        self.assertEqual(set(body), {"results", "skipped", "extractor", "extraction_errors"})
        self.assertEqual((body["extractor"], body["extraction_errors"]), ("rules-v2", []))
        self.assertEqual([(x["kind"], x["event"]) for x in body["results"]],
                         [("turn", "ADD"), ("memory", "ADD")], body)
        turn, fact = body["results"]
        self.assertEqual(turn["memory"]["content"], "I work at Initech.")
        self.assertEqual((turn["memory"]["type"], turn["memory"]["tier"]), ("message", "episodic"))
        self.assertEqual((turn["memory"]["source"]["extractor"], turn["memory"]["source"]["role"]),
                         ("turn", "user"))
        self.assertEqual(fact["memory"]["slot"], "user/employer")
        self.assertEqual(fact["memory"]["source"]["extractor"], "rules-v2")
        for x in body["results"]:
            self.assertEqual(x["id"], x["memory"]["id"])
            self.assertEqual((x["memory"]["tags"], x["memory"]["metadata"]),
                             (["chat"], {"via": "test"}))
        self.assertEqual(fact["memory"]["source"]["turn_ids"], [turn["id"]])
        self.assertEqual(turn["memory"]["derived_ids"], [fact["id"]])
        got = self.ok(c, "GET", "/v1/memories/" + turn["id"], params={"user_id": "carol"})
        self.assertEqual(got["derived_ids"], [fact["id"]])
        self.assertEqual([x["message"] for x in body["skipped"]], [1, 2], body)
        self.assertIn("'assistant'", body["skipped"][0]["reason"])
        self.assertIn("chit-chat", body["skipped"][1]["reason"])
        # Nothing stored: 200 with the reasons.
        nothing = self.ok(c, "POST", "/v1/memories", {"user_id": "carol", "content": "ok"})
        self.assertEqual(nothing["results"], [])
        self.assertEqual([x["message"] for x in nothing["skipped"]], [0])
        self.assertIn("chit-chat", nothing["skipped"][0]["reason"])
        self.assertEqual(self.count("carol"), 2)
        # Fields only storing as given decides are refused, naming infer=false.
        for body, field in (({"user_id": "carol", "content": "x", "type": "fact"}, "type"),
                            ({"user_id": "carol", "content": "x", "entities": ["X"]}, "entities"),
                            ({"user_id": "carol", "memories": [{"content": "x", "tier": "semantic"}]},
                             "tier")):
            path = "/v1/memories/batch" if "memories" in body else "/v1/memories"
            with self.subTest(field=field):
                msg = self.fails(c, "POST", path, body, 400, "invalid_argument", field)
                self.assertIn("infer=false", msg)
        self.assertEqual(self.count("carol"), 2)

    def test_invalid_add_requests_name_the_field_and_store_nothing(self):
        cases = [
            ({"content": "x"}, "user_id"),
            ({"user_id": "alice"}, "content"),
            ({"user_id": "alice", "content": "x", "messages": [{"role": "u", "content": "y"}]},
             "messages"),
            ({"user_id": "alice", "content": "x", "bogus": 1}, "bogus"),
            ({"user_id": "alice", "content": "x", "type": "nonsense"}, "type"),
            ({"user_id": "alice", "content": "x", "tier": "nonsense"}, "tier"),
            ({"user_id": "alice", "content": "x", "importance": 1.5}, "importance"),
            ({"user_id": "alice", "content": "x", "confidence": "high"}, "confidence"),
            ({"user_id": "alice", "content": "x", "metadata": [1]}, "metadata"),
            ({"user_id": "alice", "content": "x", "tags": "a,b"}, "tags"),
            ({"user_id": "alice", "content": "x", "entities": [1]}, "entities"),
            ({"user_id": "alice", "content": "x", "created_at": "yesterday"}, "created_at"),
            ({"user_id": "alice", "content": "x", "infer": "yes"}, "infer"),
            ({"user_id": "alice", "content": 7}, "content"),
            ({"user_id": 7, "content": "x"}, "user_id"),
            ({"user_id": "alice", "content": ""}, "content"),
            ({"user_id": "alice", "content": "x" * 17000}, "content"),
            ({"user_id": "alice", "messages": []}, "messages"),
            ({"user_id": "alice", "messages": "hi"}, "messages"),
            ({"user_id": "alice", "messages": [{"content": "y"}]}, "role"),
            ({"user_id": "alice", "messages": [{"role": "user"}]}, "content"),
            ({"user_id": "alice", "messages": [{"role": "u", "content": "y", "name": "n"}]},
             "name"),
            ({"user_id": "alice", "messages": [{"role": "u", "content": "y"}, 3]}, "message"),
            ({"user_id": "alice", "messages": [{"role": "u", "content": "y"}] * 21}, "20"),
        ]
        for body, field in cases:
            with self.subTest(body=json.dumps(body)[:120]):
                self.fails(self.c, "POST", "/v1/memories", body, 400, "invalid_argument", field)
        self.assertEqual(self.count("alice"), 0)


class BatchTest(ApiTestCase):

    def test_batch_stores_every_entry(self):
        res = self.ok(self.c, "POST", "/v1/memories/batch", {
            "user_id": "bob", "session_id": "s", "memories": [
                {"content": "likes chess", "tags": ["hobby"]},
                {"content": "born in 1990", "type": "fact", "importance": 0.8},
                {"messages": [{"role": "user", "content": "hello"},
                              {"role": "assistant", "content": "hi bob"}]}]}, expect=201)
        contents = [r["memory"]["content"] for r in res["results"]]
        self.assertEqual(contents, ["likes chess", "born in 1990", "hello", "hi bob"])
        self.assertTrue(all(r["memory"]["session_id"] == "s" for r in res["results"]))
        self.assertEqual(self.count("bob"), 4)

    def test_one_bad_entry_rejects_the_whole_batch(self):
        good = [{"content": "entry %d" % i} for i in range(6)]
        bad_entries = [
            ({"content": "x", "bogus": True}, "memories[3]"),          # decoding
            ({"content": "x", "importance": 7}, "importance"),         # engine validation
            ({"content": "x" * 17000}, "content"),                     # engine size limit
            ({"content": "x", "messages": [{"role": "u", "content": "v"}]}, "memories[3]"),
            ("just a string", "memories[3]"),
            ({"messages": [{"role": "u"}]}, "content"),
        ]
        for entry, mention in bad_entries:
            with self.subTest(entry=json.dumps(entry)[:80]):
                body = {"user_id": "bob", "memories": good[:3] + [entry] + good[3:]}
                self.fails(self.c, "POST", "/v1/memories/batch", body, 400, "invalid_argument",
                           mention)
                self.assertEqual(self.count("bob"), 0, "a rejected batch stored something")

    def test_batch_shape_and_size_limits(self):
        for body, mention in [
                ({"user_id": "bob"}, "memories"),
                ({"user_id": "bob", "memories": []}, "memories"),
                ({"user_id": "bob", "memories": {"content": "x"}}, "memories"),
                ({"memories": [{"content": "x"}]}, "user_id"),
                ({"user_id": "bob", "memories": [{"content": "x"}], "content": "y"}, "content"),
                ({"user_id": "bob", "memories": [{"content": "t%d" % i} for i in range(21)]},
                 "at most 20"),
                # 7 entries of 3 messages: 21 memories, over --max-batch 20.
                ({"user_id": "bob", "memories": [
                    {"messages": [{"role": "u", "content": "m"}] * 3}] * 7}, "at most 20")]:
            with self.subTest(body=json.dumps(body)[:100]):
                self.fails(self.c, "POST", "/v1/memories/batch", body, 400, "invalid_argument",
                           mention)
        self.assertEqual(self.count("bob"), 0)
        # Exactly the limit is fine.
        self.ok(self.c, "POST", "/v1/memories/batch",
                {"user_id": "bob", "memories": [{"content": "t%d" % i} for i in range(20)]},
                expect=201)
        self.assertEqual(self.count("bob"), 20)


class BodyTest(ApiTestCase):
    """Bodies no decoder can accept, on every route that reads one."""

    BODY_ROUTES = [("POST", "/v1/memories"), ("POST", "/v1/memories/batch"),
                   ("POST", "/v1/search"), ("POST", "/v1/context"),
                   ("PATCH", "/v1/memories/{id}"), ("POST", "/v1/admin/keys")]

    def routes(self):
        item = self.add(self.c, "alice", "a memory to patch")
        for method, path in self.BODY_ROUTES:
            params = {"user_id": "alice"} if "{id}" in path else None
            yield method, path.replace("{id}", item["id"]), params

    def test_malformed_bodies_are_400(self):
        bad = [b"", b"{", b'{"user_id": "alice",}', b"not json", b"[1, 2]", b'"text"', b"null",
               b'{"user_id": "alice"} trailing', b'{"user_id": "\xff\xfe"}', b"{\"a\": NaN}",
               b'{"user_id": "alice", "content": "\\ud800"}', b"\x00\x01\x02"]
        for method, path, params in self.routes():
            for raw in bad:
                with self.subTest(route=path, body=raw):
                    self.fails(self.c, method, path, raw=raw, params=params, status=400,
                               code="invalid_argument")

    def test_deeply_nested_bodies_are_400(self):
        for depth in (33, 1000, 30000):
            raw = ('{"user_id": "alice", "content": "x", "metadata": {"a": ' + "[" * depth +
                   "]" * depth + "}}").encode()
            for method, path, params in self.routes():
                with self.subTest(route=path, depth=depth):
                    self.fails(self.c, method, path, raw=raw, params=params, status=400,
                               mentions="nested")
        # Nesting within the limit is accepted and kept.
        nested = {"a": [[[[{"b": [1]}]]]]}
        m = self.add(self.c, "alice", "nested metadata", metadata=nested)
        self.assertEqual(m["metadata"], nested)

    def test_body_over_the_limit_is_413_and_stores_nothing(self):
        big = {"user_id": "alice", "content": "x" * 70000}
        for method, path, params in self.routes():
            with self.subTest(route=path):
                self.fails(self.c, method, path, big, params=params, status=413,
                           code="payload_too_large", mentions="65536")
        self.assertEqual(self.count("alice"), 1)  # the memory routes() added
        # Just under the limit reaches the decoder (which rejects the content size).
        self.fails(self.c, "POST", "/v1/memories", {"user_id": "alice", "content": "x" * 60000},
                   status=400, mentions="content")

    def test_form_encoded_bodies_are_read_as_json(self):
        """cpp-httplib parses an application/x-www-form-urlencoded body (what `curl -d`
        sends) into the query parameters unless the route reads the body itself, as ours do."""
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        text = "form typed " + "y" * 9000  # over httplib's 8 KiB form limit
        res = self.ok(self.c, "POST", "/v1/memories", {"user_id": "alice", "content": text},
                      expect=201, headers=form)
        item = res["results"][0]["memory"]
        patched = self.ok(self.c, "PATCH", "/v1/memories/" + item["id"], {"importance": 0.2},
                          params={"user_id": "alice"}, headers=form)
        self.assertEqual(patched["importance"], 0.2)


# ------------------------------------------------------------------------------------------
# reads and changes of single memories
# ------------------------------------------------------------------------------------------

class ListTest(ApiTestCase):

    def seed(self):
        specs = [
            ("fact one", "fact", "semantic", ["a"], "2024-01-01T00:00:00Z"),
            ("fact two", "fact", "semantic", ["a", "b"], "2024-02-01T00:00:00Z"),
            ("pref one", "preference", "semantic", ["b"], "2024-03-01T00:00:00Z"),
            ("event one", "event", "episodic", [], "2024-04-01T00:00:00Z"),
            ("pref two", "preference", "episodic", ["a", "b"], "2024-05-01T00:00:00Z"),
        ]
        items = {}
        for text, typ, tier, tags, at in specs:
            items[text] = self.add(self.c, "carol", text, type=typ, tier=tier, tags=tags,
                                   created_at=at)
        for i in range(8):
            self.add(self.c, "carol", "filler %d" % i, created_at="2023-06-0%dT00:00:00Z" % (i + 1))
        self.add(self.c, "dave", "not carol's")
        return items

    def contents(self, **params):
        return [m["content"] for m in self.list_all(self.c, "carol", **params)]

    def test_filters(self):
        items = self.seed()
        self.assertEqual(self.contents(type="preference"), ["pref two", "pref one"])
        self.assertEqual(sorted(self.contents(type="preference,event")),
                         ["event one", "pref one", "pref two"])
        self.assertEqual(self.contents(tier="episodic"), ["pref two", "event one"])
        self.assertEqual(self.contents(tag="a"), ["pref two", "fact two", "fact one"])
        self.assertEqual(self.contents(tag="a,b"), ["pref two", "fact two"])
        self.assertEqual(self.contents(after="2024-02-15T00:00:00Z", before="2024-04-15T00:00:00Z"),
                         ["event one", "pref one"])
        self.ok(self.c, "DELETE", "/v1/memories/" + items["fact one"]["id"],
                params={"user_id": "carol"})
        self.assertEqual(self.contents(status="deleted"), ["fact one"])
        self.assertNotIn("fact one", self.contents())
        self.assertEqual(len(self.contents(status="all")), 13)
        self.assertEqual(len(self.contents(status="active,deleted")), 13)
        self.assertEqual(self.contents(type="fact", status="all", tag="b"), ["fact two"])

    def test_cursor_paging_visits_every_item_once_newest_first(self):
        self.seed()
        pages, cursor, seen = 0, None, []
        while True:
            params = {"user_id": "carol", "limit": "4"}
            if cursor:
                params["cursor"] = cursor
            page = self.ok(self.c, "GET", "/v1/memories", params=params)
            self.assertLessEqual(len(page["results"]), 4)
            seen += page["results"]
            pages += 1
            cursor = page["next_cursor"]
            if cursor is None:
                break
            # A memory added while paging is newer than every page: it never shows up.
            if pages == 1:
                self.add(self.c, "carol", "added while paging")
        self.assertEqual(pages, 4)  # 13 items by 4
        self.assertEqual(len(seen), 13)
        self.assertEqual(len({m["id"] for m in seen}), 13)
        times = [m["created_at"] for m in seen]
        self.assertEqual(times, sorted(times, reverse=True))
        self.assertTrue(all(m["user_id"] == "carol" for m in seen))

    def test_invalid_list_parameters(self):
        for params, mention in [
                ({}, "user_id"),
                ([("user_id", "carol"), ("user_id", "dave")], "user_id"),
                ({"user_id": "carol", "limit": "0"}, "limit"),
                ({"user_id": "carol", "limit": "1001"}, "limit"),
                ({"user_id": "carol", "limit": "ten"}, "limit"),
                ({"user_id": "carol", "limit": "5x"}, "limit"),
                ({"user_id": "carol", "type": "bogus"}, "type"),
                ({"user_id": "carol", "tier": "bogus"}, "tier"),
                ({"user_id": "carol", "status": "bogus"}, "status"),
                ({"user_id": "carol", "after": "last week"}, "after"),
                ({"user_id": "carol", "after": "2024-05-01", "before": "2024-01-01"}, None),
                ({"user_id": "carol", "cursor": "garbage"}, "cursor"),
                ({"user_id": "carol", "bogus": "1"}, "bogus")]:
            with self.subTest(params=params):
                self.fails(self.c, "GET", "/v1/memories", params=params, status=400,
                           code="invalid_argument", mentions=mention)


class ItemTest(ApiTestCase):

    def test_get(self):
        m = self.add(self.c, "erin", "owns a red bicycle")
        path = "/v1/memories/" + m["id"]
        self.assertEqual(self.ok(self.c, "GET", path, params={"user_id": "erin"}), m)
        self.fails(self.c, "GET", path, params={"user_id": "frank"}, status=404, code="not_found")
        self.fails(self.c, "GET", "/v1/memories/" + str(uuid.uuid4()), params={"user_id": "erin"},
                   status=404, code="not_found")
        self.fails(self.c, "GET", "/v1/memories/not-an-id", params={"user_id": "erin"},
                   status=404, code="not_found")
        self.fails(self.c, "GET", path, status=400, mentions="user_id")
        self.fails(self.c, "GET", path, params={"user_id": "erin", "hard": "true"}, status=400,
                   mentions="hard")
        # An agent narrows the scope.
        self.fails(self.c, "GET", path, params={"user_id": "erin", "agent_id": "other"},
                   status=404)

    def test_patch(self):
        m = self.add(self.c, "erin", "lives in Paris", valid_to="2030-01-01T00:00:00Z")
        path, scope = "/v1/memories/" + m["id"], {"user_id": "erin"}
        p = self.ok(self.c, "PATCH", path, {"content": "lives in Rome", "tags": ["home"],
                                            "importance": 0.7, "reason": "moved"}, params=scope)
        self.assertEqual((p["content"], p["tags"], p["importance"]),
                         ("lives in Rome", ["home"], 0.7))
        self.assertEqual(p["valid_to"], "2030-01-01T00:00:00.000Z")
        p = self.ok(self.c, "PATCH", path, {"valid_to": None}, params=scope)
        self.assertIsNone(p["valid_to"])
        self.assertEqual(self.ok(self.c, "GET", path, params=scope), p)
        for body, mention in [({}, "nothing"), ({"reason": "only a reason"}, "nothing"),
                              ({"content": "x", "bogus": 1}, "bogus"),
                              ({"type": "bogus"}, "type"), ({"importance": -1}, "importance"),
                              ({"metadata": "x"}, "metadata"), ({"content": ""}, "content"),
                              ({"status": "bogus"}, "status"), ({"valid_from": 5}, "valid_from")]:
            with self.subTest(body=body):
                self.fails(self.c, "PATCH", path, body, params=scope, status=400,
                           code="invalid_argument", mentions=mention)
        self.fails(self.c, "PATCH", "/v1/memories/" + str(uuid.uuid4()), {"content": "x"},
                   params=scope, status=404, code="not_found")
        self.fails(self.c, "PATCH", path, {"content": "x"}, params={"user_id": "frank"},
                   status=404, code="not_found")
        self.fails(self.c, "PATCH", path, {"content": "x"}, status=400, mentions="user_id")
        self.ok(self.c, "DELETE", path, params=scope)
        self.fails(self.c, "PATCH", path, {"content": "back again"}, params=scope, status=409,
                   code="conflict")
        self.assertEqual(self.ok(self.c, "GET", path, params=scope)["content"], "lives in Rome")

    def test_history(self):
        m = self.add(self.c, "erin", "version one")
        path, scope = "/v1/memories/" + m["id"], {"user_id": "erin"}
        self.ok(self.c, "PATCH", path, {"content": "version two", "reason": "edit"}, params=scope)
        self.ok(self.c, "PATCH", path, {"importance": 0.9}, params=scope)
        self.ok(self.c, "DELETE", path, params=dict(scope, reason="obsolete"))
        hist = self.ok(self.c, "GET", path + "/history", params=scope)["results"]
        self.assertEqual([e["event"] for e in hist], ["ADD", "UPDATE", "UPDATE", "DELETE"])
        self.assertEqual([e["item_id"] for e in hist], [m["id"]] * 4)
        self.assertEqual((hist[0]["old_content"], hist[0]["new_content"]), (None, "version one"))
        self.assertEqual((hist[1]["old_content"], hist[1]["new_content"]),
                         ("version one", "version two"))
        self.assertEqual(hist[1]["reason"], "edit")
        self.assertEqual(hist[3]["reason"], "obsolete")
        self.fails(self.c, "GET", path + "/history", params={"user_id": "frank"}, status=404)
        self.fails(self.c, "GET", "/v1/memories/%s/history" % uuid.uuid4(), params=scope,
                   status=404, code="not_found")
        self.fails(self.c, "GET", path + "/history", status=400, mentions="user_id")

    def test_soft_delete(self):
        m = self.add(self.c, "erin", "has a pet parrot")
        path, scope = "/v1/memories/" + m["id"], {"user_id": "erin"}
        self.fails(self.c, "DELETE", path, params={"user_id": "frank"}, status=404)
        r = self.ok(self.c, "DELETE", path, params=dict(scope, reason="wrong"))
        self.assertEqual(r, {"id": m["id"], "deleted": True, "hard": False})
        self.assertEqual(self.ok(self.c, "GET", path, params=scope)["status"], "deleted")
        self.assertEqual(self.list_all(self.c, "erin"), [])
        hits = self.ok(self.c, "POST", "/v1/search", {"user_id": "erin", "query": "parrot"})
        self.assertEqual(hits["results"], [])
        # Deleting again is OK and records nothing.
        self.ok(self.c, "DELETE", path, params=scope)
        hist = self.ok(self.c, "GET", path + "/history", params=scope)["results"]
        self.assertEqual([e["event"] for e in hist], ["ADD", "DELETE"])

    def test_hard_delete(self):
        m = self.add(self.c, "erin", "secret diary entry")
        keep = self.add(self.c, "erin", "keep this one")
        path, scope = "/v1/memories/" + m["id"], {"user_id": "erin"}
        self.fails(self.c, "DELETE", path, params=dict(scope, hard="maybe"), status=400,
                   mentions="hard")
        self.fails(self.c, "DELETE", path, params=dict(scope, bogus="1"), status=400,
                   mentions="bogus")
        self.fails(self.c, "DELETE", path, params={"user_id": "frank", "hard": "true"}, status=404)
        r = self.ok(self.c, "DELETE", path, params=dict(scope, hard="true"))
        self.assertEqual(r, {"id": m["id"], "deleted": True, "hard": True, "purged": [m["id"]],
                             "session_turns": 0, "jobs": 0})
        self.fails(self.c, "GET", path, params=scope, status=404, code="not_found")
        self.fails(self.c, "GET", path + "/history", params=scope, status=404, code="not_found")
        self.fails(self.c, "DELETE", path, params=dict(scope, hard="1"), status=404)
        self.fails(self.c, "DELETE", path, params=scope, status=404)
        self.assertEqual([x["id"] for x in self.list_all(self.c, "erin", status="all")],
                         [keep["id"]])
        export = self.call(self.c, "GET", "/v1/export", params=scope, expect=200).text()
        self.assertNotIn("secret diary", export)
        self.fails(self.c, "DELETE", "/v1/memories/" + str(uuid.uuid4()), params=scope,
                   status=404, code="not_found")

    def test_delete_every_memory_of_a_user(self):
        for i in range(5):
            self.add(self.c, "gina", "gina memory %d" % i)
        self.add(self.c, "hank", "hank memory")
        self.ok(self.c, "DELETE", "/v1/memories/" + self.list_all(self.c, "gina")[0]["id"],
                params={"user_id": "gina"})
        r = self.ok(self.c, "DELETE", "/v1/memories", params={"user_id": "gina"})
        self.assertEqual(r, {"user_id": "gina", "deleted": 5})
        self.assertEqual(self.count("gina"), 0)
        self.assertEqual(self.count("hank"), 1)
        self.assertEqual(self.ok(self.c, "DELETE", "/v1/memories", params={"user_id": "gina"}),
                         {"user_id": "gina", "deleted": 0})
        self.fails(self.c, "DELETE", "/v1/memories", status=400, mentions="user_id")
        self.fails(self.c, "DELETE", "/v1/memories", params={"user_id": "hank", "agent_id": "a"},
                   status=400, mentions="agent_id")
        self.assertEqual(self.count("hank"), 1)


# ------------------------------------------------------------------------------------------
# search, context, export
# ------------------------------------------------------------------------------------------

CORPUS = [
    ("I live in Beijing with my two cats", ["home"], "fact", {"lang": "en"}),
    ("My favourite food is spicy noodles", ["food"], "preference", {"lang": "en"}),
    ("I work as a nurse at the city hospital", ["work"], "fact", {"lang": "en"}),
    ("The cats are called Miso and Tofu", ["home", "pets"], "fact", {"lang": "fr"}),
    ("Went hiking in the Alps last summer", ["travel"], "event", {"lang": "en"}),
    ("Prefers tea over coffee in the morning", ["food"], "preference", {"lang": "de"}),
]


class SearchTest(ApiTestCase):

    def seed(self):
        ids = {}
        for text, tags, typ, md in CORPUS:
            ids[text] = self.add(self.c, "ivy", text, tags=tags, type=typ, metadata=md)["id"]
        self.add(self.c, "jack", "jack also has cats named Miso")
        return ids

    def search(self, expect=200, **body):
        body.setdefault("user_id", "ivy")
        return self.ok(self.c, "POST", "/v1/search", body, expect=expect)["results"]

    def test_search_ranks_and_stays_in_scope(self):
        ids = self.seed()
        hits = self.search(query="what are the names of my cats")
        self.assertGreater(len(hits), 0)
        self.assertEqual(hits[0]["id"], ids["The cats are called Miso and Tofu"])
        scores = [x["score"] for x in hits]
        self.assertEqual(scores, sorted(scores, reverse=True))
        for x in hits:
            self.assertEqual(set(x), {"id", "memory", "score"})
            self.assertEqual(x["memory"]["user_id"], "ivy")
            self.assertIn(x["id"], ids.values())
        self.assertLessEqual(len(self.search(query="cats", k=1)), 1)

    def test_explain_min_score_fusion(self):
        self.seed()
        hits = self.search(query="where do I live", explain=True)
        self.assertGreater(len(hits), 0)
        for x in hits:
            self.assertEqual(set(x["explain"]), {"keyword", "vector", "context", "session", "time",
                                                 "relevance", "recency", "importance",
                                                 "retention", "retention_factor",
                                                 "keyword_rank", "vector_rank", "graph",
                                                 "graph_rank"})
        all_hits = self.search(query="cats food work hiking tea", k=10)
        self.assertGreater(len(all_hits), 2)
        cut = (all_hits[0]["score"] + all_hits[-1]["score"]) / 2
        above = self.search(query="cats food work hiking tea", k=10, min_score=cut)
        self.assertEqual([x["id"] for x in above],
                         [x["id"] for x in all_hits if x["score"] >= cut])
        self.assertLess(len(above), len(all_hits))
        self.assertGreater(len(self.search(query="cats", fusion="rrf", diversify=True)), 0)
        self.assertGreater(len(self.search(query="their names", recent_turns=["my cats"])), 0)

    def test_filters(self):
        ids = self.seed()
        def found(**filters):
            return {x["memory"]["content"] for x in
                    self.search(query="cats food work hiking tea", k=10, filters=filters)}
        self.assertEqual(found(tags=["food"]), {"My favourite food is spicy noodles",
                                                "Prefers tea over coffee in the morning"})
        self.assertEqual(found(tags=["home", "pets"]), {"The cats are called Miso and Tofu"})
        self.assertEqual(found(types=["event"]), {"Went hiking in the Alps last summer"})
        self.assertEqual(found(metadata={"lang": "fr"}), {"The cats are called Miso and Tofu"})
        self.assertEqual(found(metadata={"lang": {"in": ["fr", "de"]}}),
                         {"The cats are called Miso and Tofu",
                          "Prefers tea over coffee in the morning"})
        self.assertEqual(found(created_before="2000-01-01T00:00:00Z"), set())
        self.ok(self.c, "DELETE", "/v1/memories/" + ids["Went hiking in the Alps last summer"],
                params={"user_id": "ivy"})
        self.assertEqual(found(types=["event"]), set())
        self.assertEqual(found(types=["event"], statuses="all"),
                         {"Went hiking in the Alps last summer"})
        self.assertEqual(found(types=["event"], statuses=["deleted"]),
                         {"Went hiking in the Alps last summer"})

    def test_invalid_search_requests(self):
        for body, mention in [
                ({"query": "x", "k": 0}, "k"), ({"query": "x", "k": 11}, "k"),
                ({"query": "x", "k": "3"}, "k"), ({"query": "x", "k": 2.5}, "k"),
                ({}, "query"), ({"query": 5}, "query"),
                ({"query": "x", "bogus": 1}, "bogus"),
                ({"query": "x", "user_id": None}, "user_id"),
                ({"query": "x", "filters": {"bogus": 1}}, "bogus"),
                ({"query": "x", "filters": {"types": ["bogus"]}}, "types"),
                ({"query": "x", "filters": {"metadata": {"a": [1]}}}, "metadata"),
                ({"query": "x", "filters": {"metadata": {"a": {"in": [[1]]}}}}, "metadata"),
                ({"query": "x", "filters": {"metadata": {"a": 2 ** 63}}}, "metadata"),
                ({"query": "x", "filters": "tags"}, "filters"),
                ({"query": "x", "fusion": "magic"}, "fusion"),
                ({"query": "x", "explain": "yes"}, "explain"),
                ({"query": "x", "min_score": "high"}, "min_score"),
                ({"query": "x", "recent_turns": "hi"}, "recent_turns"),
                ({"query": "x", "recent_turns": ["t"] * 65}, "recent_turns")]:
            body.setdefault("user_id", "ivy")
            with self.subTest(body=json.dumps(body)[:100]):
                self.fails(self.c, "POST", "/v1/search", body, 400, "invalid_argument", mention)
        self.assertEqual(self.search(query="x", k=10), [])  # the largest k allowed


class ContextTest(ApiTestCase):

    def test_context_respects_the_token_budget(self):
        ids = set()
        for i, (text, tags, typ, md) in enumerate(CORPUS * 4):
            ids.add(self.add(self.c, "kim", "%s (note %d)" % (text, i), tags=tags)["id"])
        previous = -1
        for budget in (16, 24, 40, 80, 160, 400, 4000):
            with self.subTest(budget=budget):
                ctx = self.ok(self.c, "POST", "/v1/context",
                              {"user_id": "kim", "query": "cats food work", "k": 10,
                               "token_budget": budget})
                self.assertEqual(set(ctx), {"context", "memories", "tokens", "session",
                                            "profile"})
                self.assertIs(ctx["profile"], False)
                self.assertEqual(ctx["session"], {"turns": 0, "summary": False})
                self.assertLessEqual(ctx["tokens"], budget)
                # A crude independent bound: a token is at least a word or a punctuation run.
                self.assertLessEqual(len(ctx["context"].split()), budget)
                for m in ctx["memories"]:
                    self.assertIn(m["id"], ids)
                    self.assertIn("[%s]" % m["id"], ctx["context"])
                self.assertGreaterEqual(len(ctx["memories"]), previous)
                previous = len(ctx["memories"])
        self.assertGreater(previous, 0)

    def test_invalid_context_requests(self):
        for body, mention in [({"query": "x", "token_budget": 15}, "token_budget"),
                              ({"query": "x", "token_budget": 4001}, "token_budget"),
                              ({"query": "x", "token_budget": "lots"}, "token_budget"),
                              ({"query": "x", "k": 11}, "k"), ({"query": "x", "explain": True},
                                                               "explain"),
                              ({"token_budget": 100}, "query"),
                              ({"query": "x", "filters": {"tiers": ["bogus"]}}, "tiers")]:
            body.setdefault("user_id", "kim")
            with self.subTest(body=body):
                self.fails(self.c, "POST", "/v1/context", body, 400, "invalid_argument", mention)


class ExportTest(ApiTestCase):

    def test_export_is_json_lines_with_a_header(self):
        a = self.add(self.c, "lee", "lee one")
        b = self.add(self.c, "lee", "lee two")
        self.add(self.c, "max", "max one")
        self.ok(self.c, "PATCH", "/v1/memories/" + a["id"], {"content": "lee one, edited"},
                params={"user_id": "lee"})
        self.ok(self.c, "DELETE", "/v1/memories/" + b["id"], params={"user_id": "lee"})
        r = self.call(self.c, "GET", "/v1/export", params={"user_id": "lee"}, expect=200)
        self.assertTrue(r.header("content-type").startswith("application/x-ndjson"))
        self.assertIn("attachment", r.header("content-disposition"))
        lines = r.text().splitlines()
        header = json.loads(lines[0])
        self.assertEqual((header["kind"], header["version"]), ("engram-export", 2))
        records = [json.loads(line) for line in lines[1:]]
        self.assertEqual([x["kind"] for x in records], ["memory", "memory"])
        self.assertEqual([x["memory"]["id"] for x in records], [a["id"], b["id"]])
        self.assertEqual([x["memory"]["content"] for x in records], ["lee one, edited", "lee two"])
        self.assertEqual([x["memory"]["status"] for x in records], ["active", "deleted"])
        self.assertEqual([len(x["history"]) for x in records], [2, 2])
        self.assertEqual(len(records[0]["vectors"]), 1)
        empty = self.call(self.c, "GET", "/v1/export", params={"user_id": "nobody"}, expect=200)
        self.assertEqual(len(empty.text().splitlines()), 1)
        self.fails(self.c, "GET", "/v1/export", status=400, mentions="user_id")
        self.fails(self.c, "GET", "/v1/export", params={"user_id": "lee", "limit": "3"},
                   status=400, mentions="limit")


# ------------------------------------------------------------------------------------------
# operations routes, routing errors
# ------------------------------------------------------------------------------------------

class OpsTest(ApiTestCase):

    def test_health_and_readiness(self):
        self.assertEqual(self.ok(self.c, "GET", "/healthz"), {"status": "ok"})
        self.assertEqual(self.ok(self.c, "GET", "/readyz"), {"status": "ready"})

    def test_a_second_server_on_the_same_port_is_refused(self):
        # cpp-httplib sets SO_REUSEPORT by default, which would let a second server share the
        # port and silently take half of the connections.
        other = os.path.join(self.dir, "other.db")
        r = h.run_engram(other, "serve", "--host", "127.0.0.1", "--port", str(self.server.port),
                         timeout=30)
        self.assertNotEqual(r.returncode, 0, r)
        self.assertIn(b"cannot listen on 127.0.0.1:%d" % self.server.port, r.stderr)
        self.assertEqual(self.ok(self.c, "GET", "/healthz"), {"status": "ok"})

    def test_connections_queue_while_the_server_cannot_accept(self):
        # cpp-httplib listens with a backlog of 5: beyond it the kernel drops SYNs and clients
        # retry a second later. With the server stopped (nothing accepts), 64 connects must
        # still all complete in the kernel's queue and be served once it runs again.
        n = 64
        self.server.proc.send_signal(signal.SIGSTOP)
        socks = []
        try:
            for _ in range(n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", self.server.port))
                socks.append(s)
            deadline = time.time() + 0.8  # under the 1 s SYN retry
            pending = set(range(n))
            while pending and time.time() < deadline:
                _, writable, _ = select.select([], [socks[i] for i in pending], [], 0.05)
                for s in writable:
                    pending.discard(socks.index(s))
            connected = [s for s in socks
                         if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
                         and socks.index(s) not in pending]
            self.assertEqual(len(connected), n)
        finally:
            self.server.proc.send_signal(signal.SIGCONT)
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        for s in socks:
            s.setblocking(True)
            s.settimeout(30)
            s.sendall(request)
        for s in socks:
            reply = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
            s.close()
            self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:80])

    def test_openapi_document_is_the_committed_one(self):
        r = self.call(self.c, "GET", "/openapi.json", expect=200)
        self.assertTrue(r.header("content-type").startswith("application/json"))
        self.assertEqual(r.json(), json.loads(openapi_doc()))
        self.assertEqual(r.body, openapi_doc())

    def test_metrics(self):
        for i in range(3):
            self.add(self.c, "mo", "metric memory %d" % i)
        found = self.ok(self.c, "POST", "/v1/search",
                        {"user_id": "mo", "query": "metric"})["results"]
        self.assertEqual(len(found), 3)
        self.fails(self.c, "GET", "/v1/memories/" + str(uuid.uuid4()), params={"user_id": "mo"},
                   status=404)
        self.fails(self.c, "GET", "/nowhere", status=404)
        # The first scrape of this server: the memory gauges are computed now.
        r = self.call(self.c, "GET", "/metrics", expect=200)
        self.assertTrue(r.header("content-type").startswith("text/plain"))
        samples = {}
        sample_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (-?[0-9.e+-]+|\+Inf)$')
        for line in r.text().splitlines():
            if line.startswith("# HELP ") or line.startswith("# TYPE "):
                continue
            m = sample_re.match(line)
            self.assertIsNotNone(m, "not a Prometheus sample line: %r" % line)
            samples[m.group(1) + (m.group(2) or "")] = float(m.group(3))
        total = "engram_http_requests_total"
        self.assertEqual(samples[total + '{route="POST /v1/memories",status="201"}'], 3)
        self.assertEqual(samples[total + '{route="POST /v1/search",status="200"}'], 1)
        self.assertEqual(samples[total + '{route="GET /v1/memories/{id}",status="404"}'], 1)
        self.assertEqual(samples[total + '{route="unmatched",status="404"}'], 1)
        self.assertEqual(samples['engram_http_request_duration_seconds_count'
                                 '{route="POST /v1/memories"}'], 3)
        self.assertEqual(samples['engram_memories{status="active"}'], 3)
        self.assertEqual(samples['engram_memories{status="deleted"}'], 0)
        self.assertEqual(samples["engram_scopes"], 1)
        # The search's three hits were looked up in the item cache once each, and are in it now
        # (read from the database, or put there when the user's index loaded).
        lookups = 'engram_item_cache_lookups_total{result="%s"}'
        self.assertEqual(samples[lookups % "hit"] + samples[lookups % "miss"], 3)
        self.assertEqual(samples["engram_item_cache_entries"], 3)
        self.assertGreater(samples["engram_item_cache_bytes"], 3 * 128)
        self.assertEqual(samples["engram_index_huge_page_bytes"], 0)  # rows of 3: far too few
        self.assertEqual(samples["engram_http_rate_limited_total"], 0)

    def test_a_postgres_server_that_cannot_be_reached_is_a_clear_error_at_start(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed_port = s.getsockname()[1]  # nothing listens there once closed
        r = subprocess.run([h.ENGRAM, "--db",
                            "postgres://engram:hunter2@127.0.0.1:%d/engram" % closed_port,
                            "serve", "--port", str(closed_port)],
                           capture_output=True, env=h.clean_env(), timeout=60)
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("cannot open postgres://engram:***@127.0.0.1:%d" % closed_port, err)
        self.assertNotIn("hunter2", err)

    def test_a_postgres_server_that_never_answers_fails_the_start_within_seconds(self):
        # A listener that accepts (the kernel completes the handshake) and never says a word:
        # a host gone silent, not one that refuses. libpq would wait for ever without the
        # connect timeout Engram adds to the URL.
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            t0 = time.monotonic()
            r = subprocess.run([h.ENGRAM, "--db",
                                "postgres://engram@127.0.0.1:%d/engram" % silent.getsockname()[1],
                                "serve", "--port", "0"],
                               capture_output=True, env=h.clean_env(), timeout=60)
            took = time.monotonic() - t0
        err = r.stderr.decode()
        self.assertEqual(r.returncode, 2, err)
        self.assertIn("timeout expired", err)
        self.assertLess(took, 20, err)

    def test_unknown_routes_are_404(self):
        for method, path in [("POST", "/"), ("GET", "/v2/memories"), ("POST", "/v1/nothing"),
                             ("GET", "/v1/memories/x/y"), ("GET", "/v1/admin"),
                             ("DELETE", "/v1/admin/keys/a/b"), ("GET", "/healthz/x")]:
            with self.subTest(path=path):
                self.fails(self.c, method, path, raw=b"{}" if method == "POST" else None,
                           status=404, code="not_found")

    def test_wrong_methods_are_405_with_allow(self):
        doc = json.loads(openapi_doc())
        templates = {p: {m.upper() for m in ops if m.upper() in METHODS}
                     for p, ops in doc["paths"].items()}
        for template in templates:
            path = template.replace("{id}", "some-id")
            allowed = set()
            for other, methods in templates.items():
                if template_regex(other).match(path):
                    allowed |= methods
            for method in METHODS:
                if method in allowed:
                    continue
                with self.subTest(method=method, path=path):
                    # No body on GET: httplib leaves a GET body unread (see SmugglingTest).
                    r = self.c.request(method, path, raw=None if method == "GET" else b"{}")
                    self.assert_error_body(r, 405, "method_not_allowed")
                    self.assertEqual(set(r.header("allow").split(", ")), allowed, r)



class LifecycleTest(ApiTestCase):
    """Expiry, retention in explain, and POST /v1/maintenance with its log (the server's clock
    is the real one: every time here is a real 2026 date in the past of the run)."""

    def test_expired_memories_leave_search_and_maintenance_archives_them(self):
        gone = self.add(self.c, "lin", "wants hotpot for dinner", type="preference",
                        created_at="2026-01-05T09:00:00Z", expires_at="2026-01-05T23:59:59Z")
        kept = self.add(self.c, "lin", "likes hotpot", type="preference")
        self.assertEqual(gone["expires_at"], "2026-01-05T23:59:59.000Z")
        self.assertIsNone(kept["expires_at"])
        hits = self.ok(self.c, "POST", "/v1/search", {"user_id": "lin", "query": "hotpot"})
        self.assertEqual([h["id"] for h in hits["results"]], [kept["id"]])
        hits = self.ok(self.c, "POST", "/v1/search",
                       {"user_id": "lin", "query": "hotpot", "explain": True,
                        "filters": {"include_expired": True}})["results"]
        self.assertEqual({h["id"] for h in hits}, {gone["id"], kept["id"]})
        for h in hits:
            self.assertGreater(h["explain"]["retention"], 0)
            self.assertLessEqual(h["explain"]["retention"], 1)
            self.assertGreaterEqual(h["explain"]["retention_factor"], 0.9)
        dry = self.ok(self.c, "POST", "/v1/maintenance", {"user_id": "lin", "dry_run": True})
        self.assertEqual((dry["dry_run"], dry["expired"], dry["archived"], dry["purged"]),
                         (True, 1, 0, 0))
        self.assertEqual(dry["actions"][0]["id"], gone["id"])
        self.assertEqual(dry["actions"][0]["action"], "expire")
        self.assertEqual(dry["actions"][0]["content"], "wants hotpot for dinner")
        path, scope = "/v1/memories/" + gone["id"], {"user_id": "lin"}
        self.assertEqual(self.ok(self.c, "GET", path, params=scope)["status"], "active")
        run = self.ok(self.c, "POST", "/v1/maintenance", {})  # the whole tenant
        self.assertEqual((run["dry_run"], run["expired"]), (False, 1))
        self.assertEqual(run["users"], [{"tenant": "default", "user_id": "lin", "examined": 2,
                                         "archived": 0, "expired": 1, "purged": 0,
                                         "merged": 0, "summarized": 0, "summaries": 0,
                                         "promoted": 0, "profiles": 0}])
        self.assertEqual(self.ok(self.c, "GET", path, params=scope)["status"], "archived")
        history = self.ok(self.c, "GET", path + "/history", params=scope)["results"]
        self.assertIn("expired at 2026-01-05T23:59:59.000Z", history[-1]["reason"])
        log = self.ok(self.c, "GET", "/v1/maintenance/log", params=scope)["results"]
        self.assertEqual([(e["id"], e["action"]) for e in log], [(gone["id"], "expire")])
        self.assertRegex(log[0]["at"], r"^2\d{3}-")
        self.assertEqual(self.ok(self.c, "GET", "/v1/maintenance/log",
                                 params={"user_id": "nobody"})["results"], [])
        # Nothing changed since: the next run looks at nothing.
        self.assertEqual(self.ok(self.c, "POST", "/v1/maintenance", {})["examined"], 0)

    def test_profile_and_recall(self):
        c = self.server.client()
        c.store_as_given = False  # through the write path (rules)
        for said in ["I'm allergic to pollen", "My wife is called Lily", "I work as a nurse"]:
            self.ok(c, "POST", "/v1/memories", {"user_id": "ada", "content": said}, expect=201)
        profile = self.ok(self.c, "GET", "/v1/profile", params={"user_id": "ada"})
        kinds = {s["kind"]: [l["text"] for l in s["lines"]] for s in profile["sections"]}
        self.assertTrue(any("pollen" in t for t in kinds.get("health", [])), profile)
        self.assertTrue(any("nurse" in t for t in kinds.get("work", [])), profile)
        self.assertIn("User profile:", profile["text"])
        self.assertRegex(profile["updated_at"], r"^2\d{3}-")
        for s in profile["sections"]:
            for line in s["lines"]:
                got = self.ok(self.c, "GET", "/v1/memories/" + line["memory_ids"][0],
                              params={"user_id": "ada"})
                self.assertEqual(got["content"], line["text"])
        empty = self.ok(self.c, "GET", "/v1/profile", params={"user_id": "nobody"})
        self.assertEqual((empty["sections"], empty["memories"], empty["updated_at"]),
                         ([], 0, None))
        ctx = self.ok(self.c, "POST", "/v1/context",
                      {"user_id": "ada", "query": "work", "token_budget": 200, "profile": True})
        self.assertTrue(ctx["profile"])
        self.assertTrue(ctx["context"].startswith("User profile:\n"), ctx["context"])
        self.fails(self.c, "POST", "/v1/context", {"user_id": "ada", "query": "x",
                                                  "profile": True, "profile_share": 2},
                   mentions="profile_share")

        hike = {"user_id": "ada", "messages": [{"role": "user",
                                                "content": "I'm going hiking tomorrow"}]}
        hits = self.ok(self.c, "POST", "/v1/recall", hike)["results"]
        self.assertEqual(len(hits), 1, hits)
        self.assertIn("pollen", hits[0]["memory"]["content"])
        self.assertIn("outdoors", hits[0]["reason"])
        self.assertGreaterEqual(hits[0]["score"], 0.6)
        quiet = dict(hike, messages=[{"role": "user", "content": "How do I reset my router?"}])
        self.assertEqual(self.ok(self.c, "POST", "/v1/recall", quiet)["results"], [])
        for body, mention in [({"user_id": "ada"}, "messages"),
                              (dict(hike, k=0), "k"), (dict(hike, min_score=2), "min_score"),
                              (dict(hike, messages=[]), "messages"),
                              (dict(hike, bogus=1), "bogus")]:
            with self.subTest(body=body):
                self.fails(self.c, "POST", "/v1/recall", body, mentions=mention)
        c.close()

    def test_expires_at_is_validated_and_patchable(self):
        m = self.add(self.c, "kai", "in Tokyo this week", type="event")
        path, scope = "/v1/memories/" + m["id"], {"user_id": "kai"}
        p = self.ok(self.c, "PATCH", path, {"expires_at": "2099-01-01T00:00:00Z"}, params=scope)
        self.assertEqual(p["expires_at"], "2099-01-01T00:00:00.000Z")
        p = self.ok(self.c, "PATCH", path, {"expires_at": None}, params=scope)
        self.assertIsNone(p["expires_at"])
        self.fails(self.c, "PATCH", path, {"expires_at": "2001-01-01T00:00:00Z"}, params=scope,
                   mentions="expires_at")
        self.fails(self.c, "PATCH", path, {"expires_at": "soon"}, params=scope,
                   mentions="expires_at")
        self.fails(self.c, "POST", "/v1/memories",
                   {"user_id": "kai", "content": "x", "infer": True,
                    "expires_at": "2099-01-01T00:00:00Z"}, mentions="expires_at")
        for body, mention in [({"dry_run": "yes"}, "dry_run"), ({"bogus": 1}, "bogus"),
                              ({"limit": -1}, "limit")]:
            with self.subTest(body=body):
                self.fails(self.c, "POST", "/v1/maintenance", body, mentions=mention)
        self.fails(self.c, "GET", "/v1/maintenance/log", params={"user_id": "kai", "limit": "0"},
                   mentions="limit")
        self.fails(self.c, "GET", "/v1/maintenance/log", params={}, mentions="user_id")
        self.assertEqual(self.count("kai"), 1)


class ConsoleFilesTest(ServerTestCase):
    """The web console's files: `/` and `/console/<file>`, compiled into the binary (or from
    --console-dir), each with a content type and a policy that keeps the page to its own
    origin; no other path, no climbing out of the folder, none with --no-console. The console's
    behaviour is tested in a browser (tests/console)."""

    def test_the_built_in_console_is_served_at_the_root(self):
        c = self.start_server().client()
        r = c.request("GET", "/")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.header("content-type").startswith("text/html"), r)
        self.assertIn(b"<html", r.body)
        policy = r.header("content-security-policy")
        self.assertIn("script-src 'self'", policy)
        self.assertIn("connect-src 'self'", policy)
        self.assertEqual(r.header("x-content-type-options"), "nosniff")
        with open(os.path.join(h.ROOT, "console", "dist", "index.html"), "rb") as f:
            self.assertEqual(r.body, f.read())
        for path in ["/console/missing.js", "/console/.hidden", "/console/a/b.js",
                     "/console/..%2F..%2Fetc%2Fpasswd", "/index.html"]:
            with self.subTest(path=path):
                self.assert_error_body(c.request("GET", path), 404, "not_found")

    def test_a_console_folder_is_served_and_no_console_serves_nothing(self):
        folder = os.path.join(self.dir, "console")
        os.makedirs(folder)
        with open(os.path.join(folder, "index.html"), "w") as f:
            f.write("<!doctype html><title>dev console</title>")
        with open(os.path.join(folder, "app.js"), "w") as f:
            f.write("console.log('dev');")
        c = self.start_server("--console-dir", folder, name="dev").client()
        self.assertIn(b"dev console", c.request("GET", "/").body)
        js = c.request("GET", "/console/app.js")
        self.assertEqual(js.status, 200, js)
        self.assertTrue(js.header("content-type").startswith("text/javascript"), js)
        off = self.start_server("--no-console", db=os.path.join(self.dir, "off.db"),
                                name="off").client()
        self.assert_error_body(off.request("GET", "/"), 404, "not_found")
        self.assertEqual(off.request("GET", "/healthz").status, 200)


class HugePagesTest(ServerTestCase):
    """Huge pages are opt-in: `engram serve` runs as started, in ordinary memory, unless told
    `--huge-pages`; an operator who wants glibc's allocator there too sets GLIBC_TUNABLES
    (README). The index rows' own huge-page path is tested in the unit tests."""

    @staticmethod
    def proc_field(path, name):
        with open(path) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
        raise AssertionError("no %s in %s" % (name, path))

    def environ(self, server):
        with open("/proc/%d/environ" % server.proc.pid, "rb") as f:
            pairs = [e.decode().split("=", 1) for e in f.read().split(b"\0") if b"=" in e]
        return dict(pairs)

    def serve(self, name, tunables, *args):
        env = h.clean_env()
        env.pop("GLIBC_TUNABLES", None)
        if tunables is not None:
            env["GLIBC_TUNABLES"] = tunables
        s = self.start_server(*args, db=os.path.join(self.dir, name + ".db"), name=name, env=env)
        c = s.client()
        for i in range(20):
            self.call(c, "POST", "/v1/memories", {"user_id": "hp", "content": "huge %d" % i},
                      expect=201)
        self.assertEqual(len(self.ok(c, "POST", "/v1/search",
                                     {"user_id": "hp", "query": "huge", "k": 5})["results"]), 5)
        return s

    def metric(self, server, name):
        r = self.call(server.client(), "GET", "/metrics", expect=200)
        for line in r.text().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise AssertionError("no %s in /metrics" % name)

    def test_by_default_the_server_runs_as_started_in_ordinary_memory(self):
        s = self.serve("plain", None)
        self.assertNotIn("GLIBC_TUNABLES", self.environ(s), "no re-exec with a tunable")
        with open("/proc/%d/cmdline" % s.proc.pid, "rb") as f:
            self.assertIn(b"serve", f.read().split(b"\0"))
        self.assertEqual(self.proc_field("/proc/%d/status" % s.proc.pid, "HugetlbPages"), 0)
        self.assertEqual(self.metric(s, "engram_index_huge_page_bytes"), 0)

    def test_the_operator_recipe_puts_the_allocator_in_huge_pages_when_the_pool_has_room(self):
        free = self.proc_field("/proc/meminfo", "HugePages_Free")
        s = self.serve("recipe", "glibc.malloc.hugetlb=2", "--huge-pages")
        self.assertEqual(self.environ(s).get("GLIBC_TUNABLES"), "glibc.malloc.hugetlb=2",
                         "the operator's environment, untouched")
        in_huge = self.proc_field("/proc/%d/status" % s.proc.pid, "HugetlbPages")
        if free > 16:
            self.assertGreater(in_huge, 0, "glibc's arenas in the pool")
        else:
            self.assertEqual(in_huge, 0, "no pool: ordinary memory, and the server still serves")


class FramingTest(ApiTestCase):
    """Request bodies on a keep-alive connection must never be read as further requests."""

    def exchange(self, first, second, pause=0.3):
        """Sends `first`, waits, sends `second` on the same connection; returns all replies."""
        sock = socket.create_connection(("127.0.0.1", self.server.port), timeout=5)
        try:
            sock.sendall(first)
            time.sleep(pause)
            try:
                sock.sendall(second)
            except OSError:
                pass  # the server closed the connection: fine
            time.sleep(pause)
            sock.settimeout(0.5)
            return h.read_until_closed(sock)
        finally:
            sock.close()

    def test_post_bodies_are_consumed(self):
        hidden = b"DELETE /v1/memories?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n"
        self.add(self.c, "alice", "must survive")
        for method, path in [(b"POST", b"/v1/nothing"), (b"PUT", b"/v1/memories"),
                             (b"POST", b"/healthz"), (b"DELETE", b"/v1/search")]:
            head = (b"%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" %
                    (method, path, len(hidden)))
            self.exchange(head, hidden)
        self.assertEqual(len(self.list_all(self.c, "alice")), 1)

    def test_get_bodies_are_not_run_as_requests(self):
        """cpp-httplib 0.11.4 reads a body only for POST, PUT, PATCH and DELETE; the body of a
        GET would stay on the connection and run as the next request (request smuggling). The
        server refuses such a request and every later one on that connection."""
        hidden = b"DELETE /v1/memories?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n"
        self.add(self.c, "alice", "must survive")
        head = (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" %
                len(hidden))
        self.exchange(head, hidden)
        self.assertEqual(len(self.list_all(self.c, "alice")), 1, "the GET body ran as a DELETE")


class EdgeTest(ServerTestCase):
    """The hardened HTTP edge, over raw sockets: every error a client can cause comes back as
    the JSON error body; ambiguous framing is refused and the connection closed; a request that
    trickles in is cut off at --request-timeout however steadily it arrives; connections over
    --max-connections-per-ip get a JSON 503; and normal clients keep being served while a slow
    flood from another address runs."""

    def raw(self, port, data, wait=2.0, source=None):
        sock = socket.socket()
        if source:
            sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.settimeout(wait)
        try:
            sock.sendall(data)
            return h.read_until_closed(sock)
        except OSError:
            return b""
        finally:
            sock.close()

    def responses(self, data):
        """Splits raw bytes into (status, headers dict, body) triples by Content-Length."""
        out = []
        while data:
            head, sep, rest = data.partition(b"\r\n\r\n")
            self.assertTrue(sep, "a response head without its end: %r" % data[:300])
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ")[1])
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (l.partition(":") for l in lines[1:])}
            n = int(headers.get("content-length", "0"))
            out.append((status, headers, rest[:n]))
            data = rest[n:]
        return out

    def assert_json_error(self, data, status, mention=None):
        replies = self.responses(data)
        self.assertEqual(len(replies), 1, "exactly one response: %r" % data[:600])
        got, headers, body = replies[0]
        self.assertEqual(got, status, data[:400])
        self.assertTrue(headers.get("content-type", "").startswith("application/json"), headers)
        self.assertEqual(headers.get("connection"), "close", headers)
        err = json.loads(body)["error"]
        self.assertEqual(set(err), {"code", "message"})
        if mention:
            self.assertIn(mention, err["message"])

    def test_protocol_errors_are_json_and_close_the_connection(self):
        s = self.start_server()
        self.add(s.client(), "alice", "still here")
        post = b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        cases = [
            (post + b"Content-Length: -1\r\n\r\n{}", 400, "Content-Length"),
            (post + b"Content-Length: abc\r\n\r\n{}", 400, "Content-Length"),
            (post + b"Content-Length: +10\r\n\r\n{}", 400, "Content-Length"),
            (post + b"Content-Length: 18446744073709551617\r\n\r\n{}", 400, "Content-Length"),
            (post + b"Content-Length: 2\r\nContent-Length: 5\r\n\r\n{}", 400, "Content-Length"),
            (post + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400, "Content-Length"),
            (b"GET /v1/memories/abc%00garbage?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n", 400,
             "control character"),
            (b"GET /v1/memories/abc%0a?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n", 400,
             "control character"),
            (b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, None),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 40000 + b"\r\n\r\n", 431,
             None),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, None),
            (b"GET /healthz HTTP/1.1\r\nHost: x\r\n folded: line\r\n\r\n", 400, None),
            (b"GET /healthz HTTP/2.5\r\nHost: x\r\n\r\n", 505, "HTTP/2.5"),
            (b"GET healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, None),
            (post + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"2\r\n{}\r\n0\r\n\r\n", 400, "Transfer-Encoding"),
            (post + b"Transfer-Encoding: gzip\r\n\r\n{}", 400, "chunked"),
            (post + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"0\r\n\r\n", 400, "chunked"),
            (post + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400,
             "chunked body"),
        ]
        # As a connection's first request, and on a keep-alive connection after a good one (and
        # after two good ones sent at once, pipelined): the replies before come first, whole,
        # then the JSON error, then the close.
        ok = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        for data, status, mention in cases:
            with self.subTest(request=data[:70]):
                self.assert_json_error(self.raw(s.port, data), status, mention)
            for before in (ok, ok + ok):
                with self.subTest(follow_up=data[:70], after=before.count(b"GET")):
                    replies = self.responses(self.raw(s.port, before + data))
                    self.assertEqual([r[0] for r in replies], [200] * before.count(b"GET") +
                                     [status])
                    last = replies[-1]
                    self.assertTrue(last[1]["content-type"].startswith("application/json"))
                    self.assertEqual(last[1].get("connection"), "close")
                    if mention:
                        self.assertIn(mention, json.loads(last[2])["error"]["message"])
        self.assertEqual([m["content"] for m in self.list_all(s.client(), "alice")],
                         ["still here"])
        # The gate's answers are in the access log (route "refused"), the path but no more.
        s.stop()
        refused = [r for r in s.log_records() if r["route"] == "refused"]
        self.assertEqual(sorted({r["status"] for r in refused}), [400, 414, 431, 505])
        self.assertIn("/v1/memories/abc%00garbage", {r["path"] for r in refused})
        self.assertTrue(all(r["remote"] == "127.0.0.1" for r in refused), refused)
        served = [r for r in s.log_records() if r["route"] != "refused"]
        self.assertTrue(served and all(r["remote"] == "127.0.0.1" for r in served), served[:3])
        s.access_log = ""  # its 505 is the client's doing; tearDown fails any 5xx it reads

    def test_keep_alive_requests_pass_the_edge_whole_however_they_are_cut(self):
        """The edge reads every request's framing itself: bodies by Content-Length or chunked,
        empty lines between requests, Expect: 100-continue, all sent a byte at a time, reach
        the handlers whole and in order."""
        s = self.start_server()
        self.add(s.client(), "alice", "I drink green tea every morning")
        body = json.dumps({"user_id": "alice", "query": "green tea"}).encode()
        head = b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        chunked = (head + b"Transfer-Encoding: chunked\r\n\r\n" +
                   b"".join(b"%x;ext=1\r\n%s\r\n" % (len(body[i:i + 7]), body[i:i + 7])
                            for i in range(0, len(body), 7)) +
                   b"0\r\nX-Trailer: yes\r\n\r\n")
        plain = head + b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        stream = chunked + plain + b"\r\n" + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + plain
        sock = socket.create_connection(("127.0.0.1", s.port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(stream)):
            sock.sendall(stream[i:i + 1])
            if i % 8 == 0:
                time.sleep(0.001)
        sock.settimeout(5)
        got = b""
        while len(self.responses_so_far(got)) < 4:
            chunk = sock.recv(65536)
            self.assertTrue(chunk, "the connection closed after %r" % got[-300:])
            got += chunk
        replies = self.responses(got)
        self.assertEqual([r[0] for r in replies], [200, 200, 200, 200])
        for i in (0, 1, 3):
            results = json.loads(replies[i][2])["results"]
            self.assertIn("green tea", results[0]["memory"]["content"])
        # Expect: 100-continue: the interim answer reaches the client, then the reply.
        sock.sendall(head + b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        interim = sock.recv(65536)
        self.assertTrue(interim.startswith(b"HTTP/1.1 100"), interim)
        sock.sendall(body)
        got = b""
        while not self.responses_so_far(got):
            chunk = sock.recv(65536)
            self.assertTrue(chunk)
            got += chunk
        self.assertEqual(self.responses(got)[0][0], 200)
        sock.close()

    def responses_so_far(self, data):
        """The complete responses at the start of `data`."""
        out = []
        while True:
            head, sep, rest = data.partition(b"\r\n\r\n")
            if not sep:
                return out
            n = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    n = int(value)
            if len(rest) < n:
                return out
            out.append(head)
            data = rest[n:]

    def test_a_large_reply_read_slowly_arrives_whole_before_the_next(self):
        """Through the relay, a reply larger than every buffer on the way (~5.7 MB) reaches a
        client that reads it steadily but slowly, byte for byte, with the pipelined request after
        it answered after it, although the writer waits longer than --read-timeout between
        chances to write; a client that stops reading is closed and its slot given back."""
        s = self.start_server("--read-timeout", "1")
        c = s.client()
        filler = "x" * 900
        for start in (0, 600):
            mems = [{"content": "memory %d %s" % (i, filler)} for i in range(start, start + 600)]
            self.ok(c, "POST", "/v1/memories/batch",
                    {"user_id": "bulk", "infer": False, "memories": mems}, expect=201)
        requests = (b"GET /v1/export?user_id=bulk HTTP/1.1\r\nHost: x\r\n\r\n"
                    b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.connect(("127.0.0.1", s.port))
        sock.sendall(requests)
        sock.settimeout(10)
        got = b""
        while True:
            chunk = sock.recv(8192)
            if not chunk:
                break
            got += chunk
            time.sleep(0.015)
        sock.close()
        replies = self.responses(got)
        self.assertEqual([r[0] for r in replies], [200, 200])
        self.assertGreater(len(replies[0][2]), 5_000_000)
        lines = replies[0][2].decode().splitlines()
        self.assertEqual(len(lines), 1201)
        contents = sorted(json.loads(line)["memory"]["content"] for line in lines[1:])
        self.assertEqual(contents, sorted("memory %d %s" % (i, filler) for i in range(1200)))
        self.assertEqual(json.loads(replies[1][2]), {"status": "ok"})

        def open_connections():
            text = c.request("GET", "/metrics").text()
            return int(re.search(r"^engram_http_open_connections (\d+)$", text, re.M).group(1))

        baseline = open_connections()
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        stuck.connect(("127.0.0.1", s.port))
        stuck.sendall(requests)
        time.sleep(0.5)
        self.assertEqual(open_connections(), baseline + 1)
        deadline = time.monotonic() + 8
        while open_connections() > baseline and time.monotonic() < deadline:
            time.sleep(0.25)
        self.assertEqual(open_connections(), baseline, "a client that reads nothing keeps its slot")
        stuck.close()

    def test_the_direct_edge_still_refuses_ambiguous_framing_and_slow_requests(self):
        """--http-edge direct: the library reads the heads (no relay); what needs no raw bytes
        is still Engram's JSON answer, and a trickling request is still cut off."""
        s = self.start_server("--http-edge", "direct", "--request-timeout", "2")
        self.add(s.client(), "alice", "still here")
        ok = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        post = b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        for data, mention in [
                (post + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "Content-Length"),
                (b"GET /v1/memories/x%00y?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n",
                 "control character")]:
            with self.subTest(data=data[:60]):
                replies = self.responses(self.raw(s.port, ok + data))
                self.assertEqual([r[0] for r in replies], [200, 400])
                self.assertIn(mention, json.loads(replies[1][2])["error"]["message"])
        sock = socket.create_connection(("127.0.0.1", s.port))
        sock.sendall(b"POST /v1/search HTTP/1.1\r\nHost: x\r\n")
        sock.settimeout(0.3)
        start, closed = time.monotonic(), False
        while time.monotonic() - start < 8 and not closed:
            try:
                sock.sendall(b"X")
                closed = sock.recv(65536) == b""
            except socket.timeout:
                continue
            except OSError:
                closed = True
        sock.close()
        self.assertTrue(closed)
        self.assertLess(time.monotonic() - start, 4.5)
        self.assertEqual([m["content"] for m in self.list_all(s.client(), "alice")],
                         ["still here"])

    def test_content_length_with_chunked_never_serves_the_bytes_after(self):
        s = self.start_server()
        self.add(s.client(), "alice", "must survive")
        smuggled = b"DELETE /v1/memories?user_id=alice HTTP/1.1\r\nHost: x\r\n\r\n"
        data = (b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"2\r\n{}\r\n0\r\n\r\n" + smuggled)
        self.assert_json_error(self.raw(s.port, data), 400, "Transfer-Encoding")
        self.assertEqual(len(self.list_all(s.client(), "alice")), 1, "the smuggled DELETE ran")

    def test_trickled_requests_are_cut_off_at_the_request_timeout(self):
        s = self.start_server("--request-timeout", "2", "--read-timeout", "10")
        for prefix in (b"", b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"):
            with self.subTest(after_a_request=bool(prefix)):
                sock = socket.create_connection(("127.0.0.1", s.port))
                sock.sendall(prefix + b"POST /v1/search HTTP/1.1\r\nHost: x\r\n")
                sock.settimeout(0.3)
                start, got, closed = time.monotonic(), b"", False
                while time.monotonic() - start < 8:
                    try:
                        sock.sendall(b"X")  # a byte every 0.3 s: never silent for long
                        chunk = sock.recv(65536)
                        if not chunk:
                            closed = True
                            break
                        got += chunk
                    except socket.timeout:
                        continue
                    except OSError:
                        closed = True
                        break
                elapsed = time.monotonic() - start
                sock.close()
                self.assertTrue(closed, "a trickling request kept its connection for 8 s")
                self.assertLess(elapsed, 4.5)
                self.assertIn(b"408", got)  # the first request, or the one after a reply
                self.assertIn(b"request_timeout", got)
        metrics = s.client().request("GET", "/metrics").text()
        self.assertRegex(metrics, r'engram_http_refused_total\{reason="timeout"\} [1-9]')

    def test_connections_over_the_per_address_limit_get_a_json_503(self):
        # (No access log: the harness fails a test whose log holds a 5xx, and 503 is the point.)
        s = self.start_server("--max-connections-per-ip", "4", access_log=False)
        held = [socket.create_connection(("127.0.0.1", s.port), source_address=("127.0.0.2", 0))
                for _ in range(4)]
        try:
            over = self.raw(s.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                            source="127.0.0.2")
            self.assert_json_error(over, 503, "--max-connections-per-ip")
            # Another address is not affected.
            ok = self.responses(self.raw(s.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                         b"Connection: close\r\n\r\n"))
            self.assertEqual(ok[0][0], 200)
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.5)  # the slots are given back once the server sees the closes
        again = self.responses(self.raw(s.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                                        b"Connection: close\r\n\r\n", source="127.0.0.2"))
        self.assertEqual(again[0][0], 200)

    def test_normal_clients_are_served_while_a_slow_flood_runs(self):
        s = self.start_server("--request-timeout", "3", "--max-connections-per-ip", "100",
                              access_log=False)
        stop = time.monotonic() + 8
        flood_states = {"opened": 0, "refused": 0, "cut": 0}

        def flood():
            socks = []
            while time.monotonic() < stop:
                for _ in range(20):
                    if len(socks) >= 400:
                        break
                    sock = socket.socket()
                    sock.bind(("127.0.0.2", 0))
                    sock.setblocking(False)
                    sock.connect_ex(("127.0.0.1", s.port))
                    socks.append(sock)
                    flood_states["opened"] += 1
                for sock in list(socks):
                    try:
                        data = sock.recv(4096)
                    except BlockingIOError:
                        try:
                            sock.send(b"G")  # a byte at a time, never silent for long
                        except OSError:
                            pass
                        continue
                    except OSError:
                        data = b""
                    flood_states["refused" if b" 503 " in data else "cut"] += 1
                    socks.remove(sock)
                    sock.close()
                time.sleep(0.05)
            for sock in socks:
                sock.close()

        import threading
        t = threading.Thread(target=flood)
        t.start()
        time.sleep(1)
        c = s.client(timeout=5)
        served, failed = 0, 0
        while time.monotonic() < stop - 0.5:
            try:
                r = c.request("GET", "/v1/memories", params={"user_id": "alice"})
                served += r.status == 200
                failed += r.status != 200
            except OSError:
                failed += 1
        t.join()
        self.assertGreater(served, 50)
        self.assertEqual(failed, 0, "normal requests failed during the flood")
        self.assertGreater(flood_states["refused"], 0, flood_states)
        self.assertGreater(flood_states["cut"], 0, flood_states)


# ------------------------------------------------------------------------------------------
# one name per thing: content and its deprecated alias, unknown-field hints, listings
# ------------------------------------------------------------------------------------------

class IdentifierLimitsTest(ApiTestCase):
    """Every identifier is 1..256 bytes of UTF-8 without control characters (metadata keys
    1..256 bytes), checked before anything runs: a chit-chat add or an async one is refused
    like any other, and nothing is stored."""

    def test_every_route_refuses_an_oversized_or_control_character_identifier(self):
        long = "u" * 60000  # inside the 64 KiB body limit, far over the identifier limit
        for bad, words in ((long, "over the limit of 256"), ("a\u0007b", "control character"),
                           ("x" * 257, "257 bytes")):
            for field in ("user_id", "agent_id", "session_id"):
                ids = {"user_id": "ida"}
                ids[field] = bad
                cases = [
                    ("POST", "/v1/memories", dict(ids, content="hello!")),  # chit-chat
                    ("POST", "/v1/memories", dict(ids, content="I live in Oslo", async_=True)),
                    ("POST", "/v1/memories", dict(ids, content="I live in Oslo", infer=False)),
                    ("POST", "/v1/memories/batch",
                     dict(ids, infer=False, memories=[{"content": "likes tea"}])),
                    ("POST", "/v1/search", dict(ids, query="tea")),
                    ("POST", "/v1/context", dict(ids, query="tea")),
                ]
                if field != "session_id":
                    cases.append(("POST", "/v1/recall",
                                  dict(ids, messages=[{"role": "user", "content": "hike"}])))
                for method, path, body in cases:
                    body = {("async" if k == "async_" else k): v for k, v in body.items()}
                    with self.subTest(field=field, path=path, bad=bad[:8], body=list(body)):
                        self.fails(self.c, method, path, body, status=400,
                                   code="invalid_argument", mentions=words)
                if len(bad) < 1000:  # query strings: the URL limit refuses the longest first
                    for path in ("/v1/memories", "/v1/profile", "/v1/maintenance/log"):
                        if path != "/v1/memories" and field == "session_id":
                            continue  # not a parameter of these routes
                        with self.subTest(field=field, path=path, bad=bad[:8]):
                            self.fails(self.c, "GET", path, params=ids, status=400,
                                       code="invalid_argument", mentions=words)
            self.fails(self.c, "POST", "/v1/sessions/s1/messages",
                       {"user_id": bad, "messages": [{"role": "user", "content": "I live in Oslo"}]},
                       status=400, code="invalid_argument", mentions=words)
            self.fails(self.c, "POST", "/v1/maintenance", {"user_id": bad}, status=400,
                       code="invalid_argument", mentions=words)
        self.fails(self.c, "POST", "/v1/memories",
                   {"user_id": "ida", "content": "likes tea", "infer": False,
                    "metadata": {"k" * 257: 1}}, status=400, mentions="metadata")
        self.fails(self.c, "POST", "/v1/memories",
                   {"user_id": "ida", "content": "likes tea", "infer": False,
                    "tags": ["t" * 257]}, status=400, mentions="tags")
        # Nothing was stored, not even a user row; the limit itself is accepted.
        self.assertEqual(self.ok(self.c, "GET", "/v1/users")["results"], [])
        edge = "e" * 256
        self.call(self.c, "POST", "/v1/memories",
                  {"user_id": edge, "agent_id": edge, "session_id": edge, "content": "likes tea",
                   "infer": False, "metadata": {"k" * 256: 1}}, expect=201)
        self.assertEqual(self.count(edge), 1)


class NamesAndListingsTest(ApiTestCase):

    def test_text_is_a_deprecated_alias_of_content(self):
        r = self.call(self.c, "POST", "/v1/memories",
                      {"user_id": "ann", "text": "prefers window seats", "infer": False},
                      expect=201)
        body = r.json()
        self.assertEqual(body["results"][0]["memory"]["content"], "prefers window seats")
        self.assertEqual([(w["code"], w["field"], w["replacement"]) for w in body["warnings"]],
                         [("deprecated_field", "text", "content")])
        self.assertTrue(r.header("Warning").startswith("299 "), r.headers)
        self.assertIn("'text' is deprecated", r.header("Warning"))
        # With extraction too, and in a batch (one warning however many entries use it).
        said = self.call(self.c, "POST", "/v1/memories", {"user_id": "ann", "text": "I live in Oslo."})
        self.assertEqual(len(said.json()["warnings"]), 1)
        batch = self.ok(self.c, "POST", "/v1/memories/batch", {
            "user_id": "ann", "infer": False,
            "memories": [{"text": "a"}, {"text": "b"}, {"content": "c"}]}, expect=201)
        self.assertEqual(len(batch["warnings"]), 1)
        plain = self.call(self.c, "POST", "/v1/memories",
                          {"user_id": "ann", "content": "likes jazz", "infer": False}, expect=201)
        self.assertNotIn("warnings", plain.json())
        self.assertIsNone(plain.header("Warning"))

    def test_text_and_content_that_differ_are_refused(self):
        before = self.count("ben")
        msg = self.fails(self.c, "POST", "/v1/memories",
                         {"user_id": "ben", "content": "a", "text": "b", "infer": False},
                         code="invalid_argument")
        self.assertIn("'text'", msg)
        self.assertIn("content", msg)
        self.assertEqual(self.count("ben"), before)
        # Equal values are one memory, with the warning.
        same = self.ok(self.c, "POST", "/v1/memories",
                       {"user_id": "ben", "content": "a", "text": "a", "infer": False}, expect=201)
        self.assertEqual(len(same["results"]), 1)
        self.assertEqual(len(same["warnings"]), 1)

    def test_unknown_fields_name_the_field_to_use(self):
        self.fails(self.c, "POST", "/v1/memories", {"user_id": "cy", "txt": "x"},
                   mentions="field 'txt' is not a known field; did you mean 'content'?")
        self.fails(self.c, "POST", "/v1/memories", {"userId": "cy", "content": "x"},
                   mentions="did you mean 'user_id'?")
        item = self.add(self.c, "cy", "original", infer=False)
        self.fails(self.c, "PATCH", "/v1/memories/" + item["id"], {"text": "changed"},
                   params={"user_id": "cy"}, mentions="did you mean 'content'?")
        self.fails(self.c, "POST", "/v1/search", {"user_id": "cy", "query": "x", "top_k": 3},
                   mentions="did you mean 'k'?")
        self.fails(self.c, "GET", "/v1/memories", params={"user_id": "cy", "limt": "3"},
                   mentions="did you mean 'limit'?")
        self.fails(self.c, "POST", "/v1/memories", {"user_id": "cy", "content": "x", "bogus": 1},
                   mentions="'bogus' is not a known field")

    def test_users_of_the_tenant_with_counts_in_pages(self):
        for user, n in (("u-carol", 3), ("u-alice", 1), ("u-bob", 2)):
            for i in range(n):
                self.add(self.c, user, "memory %d of %s" % (i, user), infer=False)
        self.ok(self.c, "POST", "/v1/sessions/s1/messages",
                {"user_id": "u-dan", "infer": False,
                 "messages": [{"role": "user", "content": "hello there"}]}, expect=201)
        seen, cursor = [], None
        while True:
            params = {"limit": "2"}
            if cursor:
                params["cursor"] = cursor
            page = self.ok(self.c, "GET", "/v1/users", params=params)
            self.assertLessEqual(len(page["results"]), 2)
            seen += page["results"]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        mine = {u["user_id"]: (u["items"], u["sessions"]) for u in seen
                if u["user_id"].startswith("u-")}
        self.assertEqual(mine, {"u-alice": (1, 0), "u-bob": (2, 0), "u-carol": (3, 0),
                                "u-dan": (0, 1)})
        self.assertEqual([u["user_id"] for u in seen], sorted(u["user_id"] for u in seen))
        self.fails(self.c, "GET", "/v1/users", params={"limit": "0"}, mentions="limit")
        self.fails(self.c, "GET", "/v1/users", params={"user_id": "x"}, mentions="user_id")

    def test_sessions_of_a_user_newest_first(self):
        for sid in ("first", "second", "third"):
            self.ok(self.c, "POST", "/v1/sessions/%s/messages" % sid,
                    {"user_id": "eve", "infer": False,
                     "messages": [{"role": "user", "content": "turn in " + sid},
                                  {"role": "assistant", "content": "noted"}]}, expect=201)
        self.ok(self.c, "POST", "/v1/sessions/other/messages",
                {"user_id": "frank", "infer": False,
                 "messages": [{"role": "user", "content": "not eve's"}]}, expect=201)
        self.ok(self.c, "POST", "/v1/sessions/first/close", {"user_id": "eve"})
        page = self.ok(self.c, "GET", "/v1/sessions", params={"user_id": "eve", "limit": "2"})
        self.assertEqual([s["session_id"] for s in page["results"]], ["third", "second"])
        self.assertEqual(page["results"][0]["turn_count"], 2)
        self.assertIsNone(page["results"][0]["closed_at"])
        rest = self.ok(self.c, "GET", "/v1/sessions",
                       params={"user_id": "eve", "cursor": page["next_cursor"]})
        self.assertEqual([s["session_id"] for s in rest["results"]], ["first"])
        self.assertIsNotNone(rest["results"][0]["closed_at"])
        self.assertIsNone(rest["next_cursor"])
        # The CLI lists the same sessions, with the same body under --json.
        r = h.run_engram(self.server.db, "--user", "eve", "--json", "sessions", "--limit", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), page)
        r = h.run_engram(self.server.db, "--user", "eve", "sessions")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.decode().splitlines()
        self.assertEqual([l.split()[0] for l in lines], ["third", "second", "first"])
        self.assertIn("2 turns", lines[0])
        self.assertIn("closed", lines[2])
        none = self.ok(self.c, "GET", "/v1/sessions", params={"user_id": "nobody"})
        self.assertEqual(none, {"results": [], "next_cursor": None})
        self.fails(self.c, "GET", "/v1/sessions", mentions="user_id")


if __name__ == "__main__":
    h.main()
