#!/usr/bin/env python3
"""Black-box tests of `engram mcp`: each test starts the real binary on a fresh database and
talks to it over stdin/stdout exactly as an MCP client does (newline-delimited JSON-RPC 2.0).

Usage: mcp_test.py --engram PATH [--crash-writer PATH] [unittest options]
"""

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

ENGRAM = None
TIMEOUT = 30  # seconds to wait for any one reply or exit

TOOLS = {"add_memory", "search_memories", "get_context", "list_memories", "get_memory",
         "update_memory", "delete_memory", "memory_history", "get_profile",
         "recall_memories", "search_knowledge", "ingest_document", "list_documents",
         "delete_document", "list_entities", "entity_graph"}


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
                or k == "ENGRAM_CHECK_STORAGE"}  # the suite's storage checks stay on
    env.update(extra or {})
    return env


class McpProcess:
    """One `engram mcp` process. Lines of stdout are collected by a thread so that a missing
    reply is a timeout, never a hang; stderr goes to a file (logs may be long)."""

    def __init__(self, db, args=(), tenant=None, user=None, env=None, log_path=None):
        cmd = [ENGRAM, "--db", db]
        if tenant is not None:
            cmd += ["--tenant", tenant]
        cmd.append("mcp")
        if user is not None:
            cmd += ["--user", user]
        cmd += list(args)
        self.stderr = open(log_path or db + ".stderr", "w+b")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, env=clean_env(env))
        self.lines = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw)
        self.lines.put(None)  # end of output

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        self.send_raw(json.dumps(message).encode("utf-8") + b"\n")

    def receive(self):
        """The next stdout line, parsed; every stdout line must be one JSON-RPC message."""
        raw = self.lines.get(timeout=TIMEOUT)
        if raw is None:
            raise AssertionError("engram mcp closed stdout; stderr:\n" + self.log())
        assert raw.endswith(b"\n"), raw
        message = json.loads(raw.decode("utf-8"))
        assert isinstance(message, (dict, list)), raw
        return message

    def no_more_output(self):
        """True if nothing more is on stdout by the time a ping is answered."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": "probe-%d" % self.next_id, "method": "ping"})
        return self.receive()["id"] == "probe-%d" % self.next_id

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.receive()
        assert reply.get("id") == self.next_id, reply
        assert reply.get("jsonrpc") == "2.0", reply
        return reply

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, version="2025-06-18"):
        reply = self.request("initialize", {
            "protocolVersion": version,
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "mcp_test.py", "version": "1.0"}})
        self.notify("notifications/initialized")
        return reply

    def call(self, tool, arguments):
        reply = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in reply, reply
        return reply["result"]

    def close_and_wait(self):
        """Closes stdin (the stdio way of ending a session); returns the exit code."""
        self.proc.stdin.close()
        return self.proc.wait(timeout=TIMEOUT)

    def log(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        self.stderr.close()


class McpTestCase(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="engram-mcp-")
        self.db = os.path.join(self._tmp.name, "engram.db")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            p.kill()
        self._tmp.cleanup()

    def start(self, **kw):
        p = McpProcess(self.db, **kw)
        self.procs.append(p)
        return p

    def ok(self, p, tool, arguments):
        """A successful tool call: its structured result, checked against the text content."""
        result = p.call(tool, arguments)
        self.assertIs(result.get("isError"), False, result)
        self.assertEqual(result["content"][0]["type"], "text")
        self.assertEqual(json.loads(result["content"][0]["text"]), result["structuredContent"])
        return result["structuredContent"]

    def tool_error(self, p, tool, arguments):
        result = p.call(tool, arguments)
        self.assertIs(result.get("isError"), True, result)
        self.assertEqual(result["content"][0]["type"], "text")
        return result["content"][0]["text"]

    def cli_json(self, *args, tenant=None, user=None):
        cmd = [ENGRAM, "--db", self.db, "--json"]
        if tenant:
            cmd += ["--tenant", tenant]
        if user:
            cmd += ["--user", user]
        r = subprocess.run(cmd + list(args), capture_output=True, env=clean_env(), timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)


class SessionTest(McpTestCase):

    def test_a_client_session(self):
        p = self.start(user="alice")
        init = p.initialize()["result"]
        self.assertEqual(init["protocolVersion"], "2025-06-18")
        self.assertEqual(init["capabilities"], {"tools": {"listChanged": False}})
        self.assertEqual(init["serverInfo"]["name"], "engram")
        self.assertRegex(init["serverInfo"]["version"], r"^\d+\.\d+\.\d+$")

        tools = p.request("tools/list")["result"]["tools"]
        self.assertEqual({t["name"] for t in tools}, TOOLS)
        for t in tools:
            self.assertEqual(t["inputSchema"]["type"], "object", t["name"])
            self.assertIsInstance(t["inputSchema"]["properties"], dict, t["name"])
            self.assertTrue(t["description"], t["name"])

        # Stored as given (infer false): exactly this content, one memory per message.
        added = self.ok(p, "add_memory", {"content": "I live in Beijing", "tags": ["home"],
                                          "importance": 0.8, "infer": False})
        self.assertEqual(len(added["results"]), 1, added)
        item_id = added["results"][0]["id"]
        self.assertEqual(added["results"][0]["memory"]["user_id"], "alice")
        self.assertEqual(added["results"][0]["memory"]["content"], "I live in Beijing")
        turns = self.ok(p, "add_memory", {"infer": False, "messages": [
            {"role": "user", "content": "My sister is called Mei"},
            {"role": "assistant", "content": "Nice to know"}]})
        self.assertEqual([r["memory"]["type"] for r in turns["results"]], ["message", "message"])
        self.assertEqual([r["memory"]["metadata"]["role"] for r in turns["results"]],
                         ["user", "assistant"])

        hits = self.ok(p, "search_memories", {"query": "where do I live", "k": 2})
        self.assertEqual(hits["results"][0]["id"], item_id)
        context = self.ok(p, "get_context", {"query": "where do I live", "token_budget": 100})
        self.assertIn("Beijing", context["context"])
        self.assertLessEqual(context["tokens"], 100)
        page = self.ok(p, "list_memories", {"tag": ["home"]})
        self.assertEqual([m["id"] for m in page["results"]], [item_id])

        updated = self.ok(p, "update_memory", {"id": item_id, "content": "I live in Shanghai",
                                               "reason": "moved"})
        self.assertEqual(updated["content"], "I live in Shanghai")
        history = self.ok(p, "memory_history", {"id": item_id})["results"]
        self.assertEqual([h["event"] for h in history], ["ADD", "UPDATE"])

        self.assertEqual(self.ok(p, "delete_memory", {"id": item_id}),
                         {"id": item_id, "deleted": True, "hard": False})
        self.assertEqual(self.ok(p, "get_memory", {"id": item_id})["status"], "deleted")
        self.assertEqual(self.ok(p, "delete_memory", {"id": item_id, "hard": True})["hard"], True)
        self.assertTrue(self.tool_error(p, "get_memory", {"id": item_id}).startswith("not_found"))

        self.assertEqual(p.close_and_wait(), 0, p.log())
        self.assertIn("end of input", p.log())

    def test_add_memory_extracts_by_default(self):
        """An assistant passes on what the user said: the turn is kept, what it states is
        extracted and reconciled, chit-chat and the assistant's own words are not stored."""
        p = self.start(user="alice")
        p.initialize()
        added = self.ok(p, "add_memory", {"content": "I live in Beijing", "tags": ["home"]})
        self.assertEqual(added["extractor"], "rules-v2")
        self.assertEqual((added["skipped"], added["extraction_errors"]), ([], []))
        self.assertEqual([(r["kind"], r["event"]) for r in added["results"]],
                         [("turn", "ADD"), ("memory", "ADD")], added)
        turn, fact = added["results"]
        self.assertEqual(turn["memory"]["content"], "I live in Beijing")
        self.assertEqual((turn["memory"]["type"], turn["memory"]["tier"]), ("message", "episodic"))
        self.assertEqual(turn["memory"]["source"]["extractor"], "turn")
        self.assertEqual(turn["memory"]["source"]["role"], "user")
        self.assertEqual(fact["memory"]["slot"], "user/location")
        self.assertIn("Beijing", fact["memory"]["content"])
        self.assertEqual(fact["memory"]["source"]["extractor"], "rules-v2")
        for r in added["results"]:  # tags apply to what is stored
            self.assertEqual(r["memory"]["tags"], ["home"])
            self.assertEqual(r["memory"]["user_id"], "alice")
        # Linked both ways, in the reply and as stored.
        self.assertEqual(fact["memory"]["source"]["turn_ids"], [turn["id"]])
        self.assertEqual(turn["memory"]["derived_ids"], [fact["id"]])
        self.assertEqual(self.ok(p, "get_memory", {"id": turn["id"]})["derived_ids"], [fact["id"]])
        self.assertEqual(self.ok(p, "get_memory", {"id": fact["id"]})["source"]["turn_ids"],
                         [turn["id"]])

        moved = self.ok(p, "add_memory", {"messages": [
            {"role": "user", "content": "I moved to Shanghai."},
            {"role": "assistant", "content": "Shanghai, noted."}]})
        self.assertEqual([(r["kind"], r["event"]) for r in moved["results"]],
                         [("turn", "ADD"), ("memory", "SUPERSEDE")], moved)
        self.assertEqual(moved["results"][1]["replaced"]["id"], fact["id"])
        self.assertEqual(moved["results"][1]["memory"]["source"]["turn_ids"],
                         [moved["results"][0]["id"]])
        self.assertEqual([s["message"] for s in moved["skipped"]], [1], moved)
        self.assertIn("assistant", moved["skipped"][0]["reason"])
        self.assertEqual(self.ok(p, "get_memory", {"id": fact["id"]})["status"], "superseded")
        history = self.ok(p, "memory_history", {"id": fact["id"]})["results"]
        self.assertEqual([h["event"] for h in history], ["ADD", "SUPERSEDE"])

        chat = self.ok(p, "add_memory", {"content": "thanks!"})
        self.assertEqual(chat["results"], [])
        self.assertEqual(len(chat["skipped"]), 1, chat)
        self.assertIn("chit-chat", chat["skipped"][0]["reason"])
        listed = self.ok(p, "list_memories", {})["results"]
        self.assertEqual(sorted(m["content"] for m in listed if m["type"] == "message"),
                         ["I live in Beijing", "I moved to Shanghai."])
        self.assertEqual([m["slot"] for m in listed if m["type"] != "message"], ["user/location"])

        # What only storing as given means is refused with extraction, naming infer=false.
        for field, value in (("type", "fact"), ("tier", "semantic"), ("confidence", 0.5)):
            with self.subTest(field=field):
                error = self.tool_error(p, "add_memory", {"content": "I like tea", field: value})
                self.assertIn(field, error)
                self.assertIn("infer=false", error)
        self.assertEqual(len(self.ok(p, "list_memories", {})["results"]), len(listed))
        given = self.ok(p, "add_memory", {"content": "I like tea", "type": "preference",
                                          "infer": False})
        self.assertEqual([(r["event"], r["memory"]["type"], r["memory"]["content"])
                          for r in given["results"]], [("ADD", "preference", "I like tea")])
        self.assertEqual(p.close_and_wait(), 0, p.log())

    def test_older_protocol_versions(self):
        for asked, answered in (("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"),
                                ("1999-01-01", "2025-06-18")):
            p = self.start(user="alice")
            self.assertEqual(p.initialize(asked)["result"]["protocolVersion"], answered)
            self.assertEqual(p.close_and_wait(), 0)

    def test_memories_are_shared_with_the_cli(self):
        p = self.start(tenant="acme", user="bob")
        p.initialize()
        item_id = self.ok(p, "add_memory", {"content": "Bob's favourite colour is teal",
                                            "infer": False})["results"][0]["id"]
        self.assertEqual(p.close_and_wait(), 0)
        listed = self.cli_json("list", tenant="acme", user="bob")["memories"]
        self.assertEqual([m["id"] for m in listed], [item_id])
        self.assertEqual(self.cli_json("list", user="bob")["memories"], [],
                         "another tenant must not see it")

        self.cli_json("add", "--no-infer", "Bob plays the cello", tenant="acme", user="bob")
        p = self.start(tenant="acme", user="bob")
        p.initialize()
        hits = self.ok(p, "search_memories", {"query": "cello"})["results"]
        self.assertEqual(hits[0]["memory"]["content"], "Bob plays the cello")
        self.assertEqual(self.ok(p, "search_memories", {"query": "cello", "user_id": "carol"}),
                         {"results": []})

    def test_user_comes_from_arguments_or_environment(self):
        p = self.start()
        p.initialize()
        self.assertIn("user_id", self.tool_error(p, "list_memories", {}))
        self.ok(p, "add_memory", {"content": "explicit user", "user_id": "dana", "infer": False})
        p.close_and_wait()

        p = self.start(env={"ENGRAM_USER": "dana"})
        p.initialize()
        self.assertEqual(self.ok(p, "list_memories", {})["results"][0]["content"],
                         "explicit user")


class ProtocolTest(McpTestCase):

    def test_malformed_lines_and_errors(self):
        p = self.start(user="alice")
        p.send_raw(b"this is not json\n")
        reply = p.receive()
        self.assertEqual(reply["error"]["code"], -32700)
        self.assertIsNone(reply["id"])

        self.assertEqual(p.request("tools/list")["error"]["code"], -32002,
                         "requests before initialize are refused")
        self.assertEqual(p.request("ping")["result"], {})
        p.initialize()

        p.send_raw(b'{"jsonrpc": "2.0", "id": 5\n')  # truncated
        self.assertEqual(p.receive()["error"]["code"], -32700)
        p.send({"jsonrpc": "2.0", "id": 6})
        self.assertEqual(p.receive()["error"]["code"], -32600)
        p.send([{"jsonrpc": "2.0", "id": 7, "method": "ping"}])
        self.assertEqual(p.receive()["error"]["code"], -32600, "no batches in 2025-06-18")
        self.assertEqual(p.request("prompts/get", {"name": "x"})["error"]["code"], -32601)
        self.assertEqual(p.request("tools/call", {"name": "forget_everything"})["error"]["code"],
                         -32602)
        self.assertEqual(p.request("tools/call", {"name": "get_memory", "arguments": "id"})[
            "error"]["code"], -32602)

        self.assertIn("importance", self.tool_error(p, "add_memory",
                                                    {"content": "x", "importance": 7}))
        self.assertIn("colour", self.tool_error(p, "add_memory", {"content": "x", "colour": 1}))
        self.assertIn("'k'", self.tool_error(p, "search_memories", {"query": "x", "k": 1000}))

        # Notifications, known or not, are never answered.
        p.notify("notifications/cancelled", {"requestId": 3, "reason": "test"})
        p.notify("notifications/whatever")
        p.send_raw(b"\n")
        self.assertTrue(p.no_more_output())

        self.assertEqual(p.close_and_wait(), 0, p.log())

    def test_utf8_round_trip(self):
        p = self.start(user="alice")
        p.initialize()
        text = "我住在北京 🏠 — café"
        item_id = self.ok(p, "add_memory", {"content": text, "infer": False})["results"][0]["id"]
        self.assertEqual(self.ok(p, "get_memory", {"id": item_id})["content"], text)
        self.assertEqual(self.ok(p, "search_memories", {"query": "北京"})["results"][0]["id"],
                         item_id)

    def test_end_of_input_and_signals_exit_cleanly(self):
        p = self.start(user="alice")
        self.assertEqual(p.close_and_wait(), 0, p.log())

        p = self.start(user="alice")
        p.initialize()
        self.ok(p, "add_memory", {"content": "kept", "infer": False})
        p.proc.send_signal(signal.SIGTERM)
        self.assertEqual(p.proc.wait(timeout=TIMEOUT), 0, p.log())
        self.assertEqual(self.cli_json("list", user="alice")["memories"][0]["content"], "kept")

    def test_bad_database_fails_at_start(self):
        os.mkdir(self.db)  # a directory where the database file should be
        p = self.start(user="alice")
        self.assertNotEqual(p.proc.wait(timeout=TIMEOUT), 0)
        self.assertIsNone(p.lines.get(timeout=TIMEOUT), "nothing on stdout")
        self.assertNotEqual(p.log().strip(), "")


def main():
    global ENGRAM
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer")
    args, rest = parser.parse_known_args()
    ENGRAM = os.path.abspath(args.engram)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
