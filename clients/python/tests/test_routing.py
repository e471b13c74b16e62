"""X-Engram-User: every request made for a user carries it (the user_id of its query or body,
or the chat proxy's `user`), so that a proxy routing by user sends it to that user's replica
(docs/deploy.md, "Routing"); requests for no user carry none."""

import unittest

from support import ClientTestCase, ScriptedServer, json_reply

from engram_client import BadRequestError, EngramClient

OK = json_reply(200, {"results": [], "next_cursor": None})


def routing_header(request):
    """The header as the bytes that arrived, decoded as UTF-8 (http.server gives Latin-1)."""
    value = request[2].get("X-Engram-User")
    return None if value is None else value.encode("latin-1").decode("utf-8")


class ScriptedRoutingTest(unittest.TestCase):
    def setUp(self):
        self.server = ScriptedServer([OK])
        self.addCleanup(self.server.close)

    def sent(self, call, **options):
        """The X-Engram-User of the one request `call(client)` sent."""
        before = len(self.server.requests)
        call(EngramClient(self.server.url, "", **options))
        self.assertEqual(len(self.server.requests), before + 1)
        return routing_header(self.server.requests[-1])

    def test_requests_for_a_user_name_it(self):
        cases = {
            "add_memory (body)": lambda c: c.add_memory("alice", "x", infer=False),
            "search (body)": lambda c: c.search("alice", "tea"),
            "list_memories (query)": lambda c: c.list_memories("alice"),
            "getMemory (query, path id)": lambda c: c.request(
                "getMemory", id="m1", query={"user_id": "alice"}),
            "appendSessionMessages (body, path id)": lambda c: c.request(
                "appendSessionMessages", id="s1",
                body={"user_id": "alice", "messages": [{"role": "user", "content": "hi"}]}),
            "deleteUserMemories (query)": lambda c: c.request(
                "deleteUserMemories", query={"user_id": "alice"}),
            "chatCompletions (OpenAI's user)": lambda c: c.request(
                "chatCompletions", body={"user": "alice", "model": "m", "messages": []}),
        }
        for name, call in cases.items():
            with self.subTest(name):
                self.assertEqual(self.sent(call), "alice")

    def test_requests_for_no_user_carry_none(self):
        for op in ("healthz", "listUsers", "listKeys", "maintain"):
            with self.subTest(op):
                self.assertIsNone(self.sent(lambda c: c.request(op)))

    def test_a_user_id_beyond_ascii_goes_as_its_utf8_bytes(self):
        self.assertEqual(self.sent(lambda c: c.search("张三 Müller", "tea")), "张三 Müller")

    def test_a_user_id_no_header_can_carry_is_left_to_the_server_to_refuse(self):
        self.assertIsNone(self.sent(lambda c: c.search("bad\r\nX-Injected: 1", "tea")))
        self.assertNotIn("X-Injected", self.server.requests[-1][2])

    def test_headers_given_to_the_client_come_last(self):
        self.assertEqual(self.sent(lambda c: c.search("alice", "tea"),
                                   headers={"X-Engram-User": "fixed"}), "fixed")


class RealServerRoutingTest(ClientTestCase):
    def test_the_server_takes_the_header_for_any_user_id(self):
        server = self.start_server()
        client = self.engram_client(server)
        for user in ("alice", "张三 Müller"):
            stored = client.add_memory(user, "Likes green tea", infer=False)
            hits = client.search(user, "green tea").results
            self.assertEqual([h.memory.id for h in hits], [stored.results[0].id])
        # An id no header can carry is sent without one, and the server names what is wrong.
        with self.assertRaises(BadRequestError) as caught:
            client.search("bad\nuser", "tea")
        self.assertIn("user_id", str(caught.exception))
