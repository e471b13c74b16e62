// Every route of the API through the client, against a real `engram serve` with API keys.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { API_VERSION, EngramClient, NotFoundError } from "engram-client";
import { startEngram } from "./support/engram-server.mjs";
import { recordingFetch } from "./support/recording-fetch.mjs";

const USER = "alice";
const recorder = recordingFetch();
let server, client, admin;

before(async () => {
  let keys;
  server = await startEngram([], (s) => {
    keys = { tenant: s.createKey({ tenant: "acme" }), admin: s.createKey({ tenant: "ops", admin: true }) };
  });
  client = new EngramClient({ baseUrl: server.url, apiKey: keys.tenant.secret, fetch: recorder.fetch });
  admin = new EngramClient({ baseUrl: server.url, apiKey: keys.admin.secret, fetch: recorder.fetch });
});

after(() => server.stop());

test("operations routes: health, readiness, metrics, the API document", async () => {
  assert.equal((await client.healthz()).status, "ok");
  assert.equal((await client.readyz()).status, "ready");
  assert.match(await client.metrics(), /^# HELP engram_/m);
  const doc = await client.openapi();
  assert.equal(doc.info.version, API_VERSION);
});

test("memories: add, batch, list, get, update, history, delete", async () => {
  const stored = await client.addMemory({ user_id: USER, content: "Prefers green tea", infer: false, type: "preference", tags: ["drinks"] });
  const memory = stored.results[0].memory;
  assert.equal(memory.content, "Prefers green tea");
  assert.equal(memory.type, "preference");

  const batch = await client.addMemoriesBatch({
    user_id: USER,
    infer: false,
    memories: [{ content: "Has a cat named Miso", type: "fact" }, { content: "Plays the cello", type: "skill" }],
  });
  assert.equal(batch.results.length, 2);

  const page = await client.listMemories({ user_id: USER, limit: 2 });
  assert.equal(page.results.length, 2);
  assert.equal(typeof page.next_cursor, "string");
  const rest = await client.listMemories({ user_id: USER, cursor: page.next_cursor });
  assert.equal(rest.results.length, 1);

  assert.equal((await client.getMemory(memory.id, { user_id: USER })).content, "Prefers green tea");
  const updated = await client.updateMemory(memory.id, { user_id: USER }, { content: "Prefers jasmine tea", reason: "changed" });
  assert.equal(updated.content, "Prefers jasmine tea");
  const history = await client.memoryHistory(memory.id, { user_id: USER });
  assert.deepEqual(history.results.map((h) => h.event), ["ADD", "UPDATE"]);

  const soft = await client.deleteMemory(memory.id, { user_id: USER, reason: "test" });
  assert.equal(soft.deleted, true);
  assert.equal(soft.hard, false);
  const hard = await client.deleteMemory(batch.results[1].id, { user_id: USER, hard: true });
  assert.deepEqual([hard.hard, hard.purged[0]], [true, batch.results[1].id]);

  const made = await client.ingestDocument({ doc_id: "hours", filename: "hours.md", content: "# Store hours\n\nOpen at nine on weekdays." });
  assert.deepEqual([made.document.doc_id, made.document.chunks], ["hours", 1]);
  assert.deepEqual((await client.listDocuments()).documents.map((d) => d.doc_id), ["hours"]);
  assert.deepEqual((await client.getDocument("hours")).chunks[0].title_path, ["Store hours"]);
  const ctx = await client.context({ user_id: USER, query: "when does the store open", sources: ["knowledge"] });
  assert.equal(ctx.knowledge[0].citation, "[hours §Store hours]");
  const gone = await client.deleteDocument("hours");
  assert.deepEqual([gone.deleted, gone.chunks], [true, 1]);
});

test("the write path, asynchronous adds and jobs", async () => {
  const written = await client.addMemory({ user_id: USER, content: "I live in Lisbon and I am allergic to peanuts" });
  assert.equal(written.results[0].kind, "turn");
  assert.ok(written.results.some((r) => r.kind === "memory" && /peanut/.test(r.memory.content)), JSON.stringify(written));
  const entities = await client.listEntities({ user_id: USER, kind: "place" });
  const lisbon = entities.entities.find((e) => e.name === "Lisbon");
  assert.ok(lisbon, JSON.stringify(entities));
  const detail = await client.getEntity(lisbon.id, { user_id: USER });
  assert.ok(detail.edges.some((e) => e.predicate === "lives_in" && e.active), JSON.stringify(detail));
  const near = await client.entityNeighbours(lisbon.id, { user_id: USER, hops: 1 });
  assert.deepEqual(near.neighbours.map((n) => n.entity.kind), ["user"]);

  const accepted = await client.addMemory({ user_id: USER, content: "I work at Initech", async: true });
  assert.equal(accepted.state, "queued");
  let job;
  for (let i = 0; i < 100; i++) {
    job = await client.getJob(accepted.job_id, { user_id: USER });
    if (job.state === "done" || job.state === "failed") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(job.state, "done", JSON.stringify(job));
});

test("retrieval: search, context, recall, profile", async () => {
  const found = await client.search({ user_id: USER, query: "what am I allergic to?", k: 3, explain: true });
  assert.match(found.results[0].memory.content, /peanut/);
  assert.equal(typeof found.results[0].score, "number");
  assert.equal(typeof found.results[0].explain.keyword, "number");

  const context = await client.context({ user_id: USER, query: "plan a dinner for me", token_budget: 300, profile: true });
  assert.match(context.context, /peanut/);
  assert.ok(context.tokens <= 300);
  assert.equal(context.profile, true);

  const recalled = await client.recallMemories({ user_id: USER, messages: [{ role: "user", content: "We're going out for Thai food tonight" }] });
  assert.ok(Array.isArray(recalled.results));

  const profile = await client.getProfile({ user_id: USER });
  assert.ok(profile.sections.length > 0);
  assert.equal(typeof profile.text, "string");
});

test("sessions: append, get, list, close", async () => {
  const appended = await client.appendSessionMessages("s1", {
    user_id: USER,
    messages: [{ role: "user", content: "I'm flying to Chengdu next Friday" }, { role: "assistant", content: "Have a good trip!" }],
  });
  assert.equal(appended.turns.length, 2);
  const session = await client.getSession("s1", { user_id: USER });
  assert.equal(session.turn_count, 2);
  assert.deepEqual(session.working.turns.map((t) => t.role), ["user", "assistant"]);
  const sessions = await client.listSessions({ user_id: USER });
  assert.ok(sessions.results.some((s) => s.session_id === "s1"));
  const closed = await client.closeSession("s1", { user_id: USER });
  assert.equal(closed.closed, true);
});

test("users, export, maintenance", async () => {
  const users = await client.listUsers();
  assert.deepEqual(users.results.map((u) => u.user_id), [USER]);
  const exported = await client.exportMemories({ user_id: USER });
  const lines = exported.trim().split("\n").map((line) => JSON.parse(line));
  assert.ok(lines.length > 3);
  const report = await client.maintain({ user_id: USER, dry_run: true });
  assert.equal(report.dry_run, true);
  const log = await client.maintenanceLog({ user_id: USER });
  assert.ok(Array.isArray(log.results));
});

test("administration: keys, audit, tenant purge, revocation", async () => {
  const created = await admin.createKey({ tenant: "scratch", name: "temp" });
  assert.match(created.secret, /^egk_/);
  const scratch = new EngramClient({ baseUrl: server.url, apiKey: created.secret });
  await scratch.addMemory({ user_id: "bob", content: "Bob likes chess", infer: false });

  const keys = await admin.listKeys({ tenant: "scratch" });
  assert.deepEqual(keys.results.map((k) => k.id), [created.id]);
  const purged = await admin.purgeTenant("scratch");
  assert.deepEqual([purged.tenant, purged.users, purged.purged], ["scratch", 1, 1]);
  assert.equal((await admin.revokeKey(created.id)).revoked, true);

  // The audit log is written by a background thread every 200 ms.
  let audit;
  for (let i = 0; i < 50; i++) {
    audit = await admin.listAudit({ limit: 100 });
    if (audit.results.some((e) => e.route === "/v1/admin/tenants/{id}")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(audit.results.some((e) => e.route === "/v1/admin/tenants/{id}"), JSON.stringify(audit));
});

test("the chat proxy says how to enable it when the server has no upstream", async () => {
  // The proxy itself is tested against a fake upstream in tests/blackbox/chat_proxy_test.py.
  await assert.rejects(
    client.chatCompletions({ model: "m", user: USER, messages: [{ role: "user", content: "hi" }] }),
    (e) => e instanceof NotFoundError && e.code === "proxy_not_enabled",
  );
});

test("erasing a user", async () => {
  const erased = await client.deleteUserMemories({ user_id: USER });
  assert.ok(erased.deleted > 0);
  assert.deepEqual((await client.listMemories({ user_id: USER, status: "all" })).results, []);
});

test("every operation of docs/openapi.json was exercised", () => {
  assert.deepEqual(recorder.all.filter((id) => !recorder.seen.has(id)), []);
});
