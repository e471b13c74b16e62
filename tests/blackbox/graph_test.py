"""Black-box tests of the entity graph (issue 39) through the real `engram serve` and the CLI:
messages in Chinese and English through POST /v1/memories with the built-in rules, then
GET /v1/entities (with counts), /v1/entities/{id} (edges with validity and sources) and
/v1/entities/{id}/neighbours; a move ending the old city's edge; bad input answered 4xx with a
JSON error body; another user's entity a 404; a hard delete clearing the graph; `engram
entities` and `engram graph NAME` on the same database; search following the graph (explain's
graph fields, "graph": false). Turns are dated in 2026.
"""

import json
import subprocess

import server_harness as h


class GraphTest(h.ServerTestCase):
    def setUp(self):
        super().setUp()
        self.server = self.start_server()
        self.c = h.Client(self.server.port, store_as_given=False)

    def tearDown(self):
        self.c.close()
        super().tearDown()

    def say(self, user, text, at):
        body = {"user_id": user, "messages": [{"role": "user", "content": text}],
                "created_at": at}
        return self.ok(self.c, "POST", "/v1/memories", body, expect=201)

    def entities(self, user, **params):
        page = self.ok(self.c, "GET", "/v1/entities", params=dict(params, user_id=user))
        self.assertEqual(set(page), {"entities", "next_cursor"})
        return {e["name"]: e for e in page["entities"]}

    def edges(self, user, entity_id):
        return self.ok(self.c, "GET", "/v1/entities/" + entity_id, params={"user_id": user})

    def test_entities_edges_and_a_move(self):
        said = self.say("alice", "我老公老王在阿里巴巴工作，我住在上海", "2026-03-01T09:00:00Z")
        turn_ids = [r["id"] for r in said["results"]]
        found = self.entities("alice")
        self.assertEqual(found["老王"]["kind"], "person")
        self.assertEqual(found["老王"]["aliases"], ["老公"])
        self.assertEqual(found["阿里巴巴"]["kind"], "organization")
        self.assertEqual(found["上海"]["kind"], "place")
        self.assertGreaterEqual(found["老王"]["mentions"], 1)
        self.assertEqual(found["老王"]["edges"], 2)  # partner of alice, works at 阿里巴巴
        self.assertEqual(found["alice"]["kind"], "user")

        wang = self.edges("alice", found["老王"]["id"])
        self.assertEqual(wang["entity"]["name"], "老王")
        works = [e for e in wang["edges"] if e["predicate"] == "works_at"]
        self.assertEqual(len(works), 1)
        self.assertEqual(works[0]["object"]["name"], "阿里巴巴")
        self.assertTrue(works[0]["active"])
        self.assertEqual(works[0]["valid_from"], "2026-03-01T09:00:00.000Z")
        self.assertIsNone(works[0]["valid_to"])
        self.assertTrue(set(works[0]["sources"]) <= set(turn_ids), works[0])
        self.assertTrue(works[0]["sources"])

        # A move a month later ends the old city's edge, in the world and in Engram.
        self.say("alice", "我搬到杭州了", "2026-04-01T09:00:00Z")
        user = self.edges("alice", found["alice"]["id"])
        homes = {e["object"]["name"]: e for e in user["edges"] if e["predicate"] == "lives_in"}
        self.assertEqual(set(homes), {"上海", "杭州"})
        self.assertFalse(homes["上海"]["active"])
        self.assertEqual(homes["上海"]["valid_to"], "2026-04-01T09:00:00.000Z")
        self.assertIsNotNone(homes["上海"]["expired_at"])
        self.assertTrue(homes["杭州"]["active"])
        self.assertEqual(self.entities("alice", kind="place")["上海"]["active_edges"], 0)

        # Two hops from 阿里巴巴: 老王, then alice (杭州 is a third); the walk stops at its cap.
        near = self.ok(self.c, "GET", "/v1/entities/%s/neighbours" % found["阿里巴巴"]["id"],
                       params={"user_id": "alice", "hops": "2"})
        self.assertEqual([(n["entity"]["name"], n["distance"]) for n in near["neighbours"]],
                         [("老王", 1), ("alice", 2)])
        self.assertFalse(near["truncated"])
        capped = self.ok(self.c, "GET", "/v1/entities/%s/neighbours" % found["阿里巴巴"]["id"],
                         params={"user_id": "alice", "hops": "2", "max_nodes": "1"})
        self.assertEqual(len(capped["neighbours"]), 1)
        self.assertTrue(capped["truncated"])

    def test_english_and_isolation_between_users(self):
        self.say("bob", "My sister Emma lives in London.", "2026-05-02T10:00:00Z")
        emma = self.entities("bob")["Emma"]
        self.assertEqual(emma["aliases"], ["sister"])
        self.assertNotIn("Emma", self.entities("carol"))
        self.fails(self.c, "GET", "/v1/entities/" + emma["id"], params={"user_id": "carol"},
                   status=404, code="not_found")
        self.fails(self.c, "GET", "/v1/entities/%s/neighbours" % emma["id"],
                   params={"user_id": "carol"}, status=404, code="not_found")

    def test_search_follows_the_graph_and_explains_it(self):
        self.say("erin", "My wife Anna works at Google.", "2026-05-01T09:00:00Z")
        self.say("erin", "My brother Tom works at Google.", "2026-05-02T09:00:00Z")
        self.say("erin", "The weather was nice on my walk today.", "2026-05-03T09:00:00Z")
        body = {"user_id": "erin", "query": "How is Anna doing?", "k": 20, "explain": True}
        hits = self.ok(self.c, "POST", "/v1/search", body)["results"]
        tom = [r for r in hits if "Tom" in r["memory"]["content"]]
        self.assertTrue(tom, hits)
        best = max(tom, key=lambda r: r["score"])
        # Reached through Anna's employer: the explanation names the entity and the distance.
        self.assertGreater(best["explain"]["graph"], 0)
        self.assertIn(best["explain"]["graph_via"], ("Google", "Tom"))
        self.assertGreaterEqual(best["explain"]["graph_hops"], 1)
        weather = [r for r in hits if "weather" in r["memory"]["content"]]
        for r in weather:
            self.assertEqual(r["explain"]["graph"], 0)
            self.assertNotIn("graph_via", r["explain"])
        off = self.ok(self.c, "POST", "/v1/search", dict(body, graph=False))["results"]
        for r in off:
            self.assertEqual(r["explain"]["graph"], 0)
            self.assertEqual(r["explain"]["graph_rank"], 0)
        tom_off = [r["score"] for r in off if "Tom" in r["memory"]["content"]]
        self.assertLess(max(tom_off, default=-1), best["score"])
        # The context takes the same switch; a wrong type is a 400 naming the field.
        ctx = self.ok(self.c, "POST", "/v1/context",
                      {"user_id": "erin", "query": "How is Anna doing?", "graph": False})
        self.assertIn("Anna", ctx["context"])
        self.fails(self.c, "POST", "/v1/search", dict(body, graph="yes"), status=400,
                   mentions="graph")

    def test_bad_input_is_a_4xx_with_a_json_body(self):
        self.say("dan", "我住在上海", "2026-06-01T08:00:00Z")
        some = next(iter(self.entities("dan").values()))["id"]
        neighbours = "/v1/entities/%s/neighbours" % some
        self.fails(self.c, "GET", "/v1/entities", params={}, status=400, mentions="user_id")
        self.fails(self.c, "GET", "/v1/entities", params={"user_id": "dan", "kind": "planet"},
                   status=400, mentions="kind")
        self.fails(self.c, "GET", "/v1/entities", params={"user_id": "dan", "limit": "0"},
                   status=400, mentions="limit")
        self.fails(self.c, "GET", "/v1/entities", params={"user_id": "dan", "colour": "red"},
                   status=400, mentions="colour")
        self.fails(self.c, "GET", neighbours, params={"user_id": "dan", "hops": "9"},
                   status=400, mentions="hops")
        self.fails(self.c, "GET", neighbours, params={"user_id": "dan", "hops": "two"},
                   status=400, mentions="hops")
        self.fails(self.c, "GET", neighbours,
                   params={"user_id": "dan", "include_ended": "perhaps"}, status=400,
                   mentions="include_ended")
        self.fails(self.c, "GET", "/v1/entities/no%20such", params={"user_id": "dan"},
                   status=400)
        self.fails(self.c, "GET", "/v1/entities/ent_missing", params={"user_id": "dan"},
                   status=404, code="not_found")

    def test_hard_delete_clears_the_graph_and_the_cli_reads_it(self):
        said = self.say("erin", "我的同事张伟住在深圳", "2026-07-01T08:00:00Z")
        self.say("erin", "我来自成都", "2026-07-02T08:00:00Z")
        self.assertIn("张伟", self.entities("erin"))
        for r in said["results"]:
            if r["memory"]["type"] != "message":
                self.ok(self.c, "DELETE", "/v1/memories/" + r["id"],
                        params={"user_id": "erin", "hard": "true"})
        left = self.entities("erin")
        self.assertNotIn("张伟", left)
        self.assertNotIn("深圳", left)
        self.assertIn("成都", left)
        self.c.close()
        self.assertEqual(self.server.stop(), 0)

        def cli(*args):
            return subprocess.run([h.ENGRAM, "--db", self.db, *args], capture_output=True,
                                  timeout=60, text=True)
        listed = cli("entities", "-u", "erin", "--json")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        names = {e["name"] for e in json.loads(listed.stdout)["entities"]}
        self.assertEqual(names, {"erin", "成都"})
        shown = cli("graph", "成都", "-u", "erin")
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertIn("erin --from--> 成都", shown.stdout)
        me = cli("graph", "erin", "-u", "erin", "--json")
        self.assertEqual(me.returncode, 0, me.stderr)
        self.assertEqual([n["entity"]["name"] for n in json.loads(me.stdout)["neighbours"]],
                         ["成都"])
        missing = cli("graph", "张伟", "-u", "erin")
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("张伟", missing.stderr)


if __name__ == "__main__":
    h.main()
