"""Every route of the API through the Python client, against a real engram serve with API
keys; every reply must parse into its result class with no field the document does not name."""

import json
import time

from engram_client import ROUTES, errors, models
from support import ClientTestCase, RecordingClient

USER = "alice"


class RoutesTest(ClientTestCase):
    def test_every_route(self):
        tenant = self.create_keys()
        server = self.start_server()
        client = self.engram_client(server, tenant["secret"], cls=RecordingClient)
        admin = self.engram_client(server, self.admin_key["secret"], cls=RecordingClient)
        for step in (self.operations_routes, self.memories, self.write_path, self.retrieval,
                     self.sessions, self.users_export_maintenance, self.chat_proxy,
                     self.erase_user):
            with self.subTest(step.__name__):
                step(client)
        with self.subTest("administration"):
            self.administration(admin, server)
        self.assertEqual(set(ROUTES) - client.sent - admin.sent, set())

    def create_keys(self):
        self.admin_key = server_create(self.db, "ops", admin=True)
        return server_create(self.db, "acme")

    def operations_routes(self, client):
        self.assertEqual(client.healthz().status, "ok")
        self.assertEqual(client.readyz().status, "ready")
        self.assertIn("# HELP engram_", client.metrics())
        self.assertEqual(client.openapi()["info"]["version"], "1.0.0")

    def memories(self, client):
        stored = client.add_memory(USER, "Prefers green tea", infer=False, type="preference",
                                   tags=["drinks"])
        self.assertIsInstance(stored, models.AddResponse)
        self.assert_no_extra(stored)
        memory = stored.results[0].memory
        self.assertEqual((memory.content, memory.type, memory.tags),
                         ("Prefers green tea", "preference", ["drinks"]))
        batch = client.add_memories_batch(USER, [{"content": "Has a cat named Miso", "type": "fact"},
                                                 {"content": "Plays the cello", "type": "skill"}],
                                          infer=False)
        self.assertEqual(len(batch.results), 2)

        page = client.list_memories(USER, limit=2)
        self.assert_no_extra(page)
        self.assertEqual(len(page.results), 2)
        self.assertIsNotNone(page.next_cursor)
        self.assertEqual(len(list(client.iter_memories(USER, limit=2))), 3)

        self.assertEqual(client.get_memory(memory.id, USER).content, "Prefers green tea")
        updated = client.update_memory(memory.id, USER, content="Prefers jasmine tea",
                                       reason="changed")
        self.assertEqual(updated.content, "Prefers jasmine tea")
        history = client.memory_history(memory.id, USER)
        self.assert_no_extra(history)
        self.assertEqual([h.event for h in history.results], ["ADD", "UPDATE"])
        self.assertEqual(history.results[1].old_content, "Prefers green tea")

        soft = client.delete_memory(memory.id, USER, reason="test")
        self.assertEqual((soft.deleted, soft.hard), (True, False))
        hard = client.delete_memory(batch.results[1].id, USER, hard=True)
        self.assert_no_extra(hard)
        self.assertEqual((hard.hard, hard.purged[0]), (True, batch.results[1].id))

        made = client.ingest_document(doc_id="hours", filename="hours.md",
                                      content="# Store hours\n\nOpen at nine on weekdays.")
        self.assert_no_extra(made)
        self.assertEqual((made.document.doc_id, made.document.chunks), ("hours", 1))
        self.assertEqual([d.doc_id for d in client.list_documents().documents], ["hours"])
        detail = client.get_document("hours")
        self.assertEqual(detail.chunks[0].title_path, ["Store hours"])
        ctx = client.context(USER, "when does the store open", sources=["knowledge"])
        self.assertEqual(ctx.knowledge[0].citation, "[hours §Store hours]")
        gone = client.delete_document("hours")
        self.assertEqual((gone.deleted, gone.chunks), (True, 1))

    def write_path(self, client):
        written = client.add_memory(USER, "I live in Lisbon and I am allergic to peanuts")
        self.assert_no_extra(written)
        self.assertEqual(written.results[0].kind, "turn")
        self.assertTrue(any(r.kind == "memory" and "peanut" in r.memory.content
                            for r in written.results), written)
        places = client.list_entities(USER, kind="place")["entities"]
        lisbon = next(e for e in places if e["name"] == "Lisbon")
        detail = client.get_entity(lisbon["id"], USER)
        self.assertTrue(any(e["predicate"] == "lives_in" and e["active"]
                            for e in detail["edges"]), detail)
        near = client.entity_neighbours(lisbon["id"], USER, hops=1)
        self.assertEqual([n["entity"]["kind"] for n in near["neighbours"]], ["user"])
        accepted = client.add_memory(USER, "I work at Initech", async_=True)
        self.assertIsInstance(accepted, models.JobAccepted)
        for _ in range(100):
            job = client.get_job(accepted.job_id, USER)
            if job.state in ("done", "failed"):
                break
            time.sleep(0.05)
        self.assertEqual(job.state, "done", job)
        self.assertIsInstance(job.result, models.AddResponse)
        self.assert_no_extra(job)

    def retrieval(self, client):
        found = client.search(USER, "what am I allergic to?", k=3, explain=True)
        self.assert_no_extra(found)
        self.assertIn("peanut", found.results[0].memory.content)
        self.assertIsInstance(found.results[0].explain, models.Explain)
        context = client.context(USER, "plan a dinner for me", token_budget=300, profile=True)
        self.assert_no_extra(context)
        self.assertIn("peanut", context.context)
        self.assertLessEqual(context.tokens, 300)
        self.assertTrue(context.profile)
        recalled = client.recall_memories(
            USER, [{"role": "user", "content": "We're going out for Thai food tonight"}])
        self.assert_no_extra(recalled)
        profile = client.get_profile(USER)
        self.assert_no_extra(profile)
        self.assertTrue(profile.sections and profile.text)

    def sessions(self, client):
        appended = client.append_session_messages("s1", USER, [
            {"role": "user", "content": "I'm flying to Chengdu next Friday"},
            {"role": "assistant", "content": "Have a good trip!"}])
        self.assert_no_extra(appended)
        self.assertEqual(len(appended.turns), 2)
        session = client.get_session("s1", USER)
        self.assert_no_extra(session)
        self.assertEqual([t.role for t in session.working.turns], ["user", "assistant"])
        listed = client.list_sessions(USER)
        self.assert_no_extra(listed)
        self.assertIn("s1", [s.session_id for s in listed.results])
        closed = client.close_session("s1", USER)
        self.assert_no_extra(closed)
        self.assertTrue(closed.closed)

    def users_export_maintenance(self, client):
        users = client.list_users()
        self.assert_no_extra(users)
        self.assertEqual([u.user_id for u in users.results], [USER])
        lines = [json.loads(line) for line in client.export_memories(USER).splitlines()]
        self.assertGreater(len(lines), 3)
        report = client.maintain(user_id=USER, dry_run=True)
        self.assert_no_extra(report)
        self.assertTrue(report.dry_run)
        log = client.maintenance_log(USER)
        self.assert_no_extra(log)

    def chat_proxy(self, client):
        # The proxy itself is tested against a fake upstream in tests/blackbox/chat_proxy_test.py.
        with self.assertRaises(errors.NotFoundError) as raised:
            client.chat_completions(USER, "m", [{"role": "user", "content": "hi"}])
        self.assertEqual(raised.exception.code, "proxy_not_enabled")

    def erase_user(self, client):
        erased = client.delete_user_memories(USER)
        self.assert_no_extra(erased)
        self.assertGreater(erased.deleted, 0)
        self.assertEqual(client.list_memories(USER, status="all").results, [])

    def administration(self, admin, server):
        created = admin.create_key("scratch", name="temp")
        self.assert_no_extra(created)
        self.assertTrue(created.secret.startswith("egk_"))
        scratch = self.engram_client(server, created.secret)
        scratch.add_memory("bob", "Bob likes chess", infer=False)
        keys = admin.list_keys(tenant="scratch")
        self.assert_no_extra(keys)
        self.assertEqual([k.id for k in keys.results], [created.id])
        purged = admin.purge_tenant("scratch")
        self.assert_no_extra(purged)
        self.assertEqual((purged.tenant, purged.users, purged.purged), ("scratch", 1, 1))
        self.assertTrue(admin.revoke_key(created.id).revoked)
        for _ in range(50):  # the audit log is written every 200 ms
            audit = admin.list_audit(limit=100)
            if any(e.route == "/v1/admin/tenants/{id}" for e in audit.results):
                break
            time.sleep(0.1)
        self.assert_no_extra(audit)
        self.assertIn("/v1/admin/tenants/{id}", [e.route for e in audit.results])


def server_create(db, tenant, admin=False):
    import server_harness
    return server_harness.create_key(db, tenant, admin=admin)
