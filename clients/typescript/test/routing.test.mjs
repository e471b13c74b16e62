// X-Engram-User: every request made for a user carries it (the user_id of its query or body, or
// the chat proxy's `user`), so that a proxy routing by user sends it to that user's replica
// (docs/deploy.md, "Routing"); requests for no user carry none.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BadRequestError, EngramClient } from "engram-client";
import { startEngram } from "./support/engram-server.mjs";
import { json, scriptedServer } from "./support/scripted-server.mjs";

let server;
before(async () => {
  server = await scriptedServer([json(200, { results: [], next_cursor: null })]);
});
after(() => server.close());

/** The X-Engram-User of the one request `call(client)` sent, as the UTF-8 that arrived. */
async function sent(call, options = {}) {
  const count = server.requests.length;
  await call(new EngramClient({ baseUrl: server.url, apiKey: "", ...options }));
  assert.equal(server.requests.length, count + 1);
  const value = server.requests.at(-1).headers["x-engram-user"];
  return value === undefined ? undefined : Buffer.from(value, "latin1").toString("utf8");
}

test("requests for a user name it", async () => {
  const cases = {
    "addMemory (body)": (c) => c.addMemory({ user_id: "alice", content: "x", infer: false }),
    "search (body)": (c) => c.search({ user_id: "alice", query: "tea" }),
    "listMemories (query)": (c) => c.listMemories({ user_id: "alice" }),
    "getMemory (query, path id)": (c) => c.getMemory("m1", { user_id: "alice" }),
    "updateMemory (query and body)": (c) => c.updateMemory("m1", { user_id: "alice" }, { content: "y" }),
    "appendSessionMessages (body, path id)": (c) =>
      c.appendSessionMessages("s1", { user_id: "alice", messages: [{ role: "user", content: "hi" }] }),
    "deleteUserMemories (query)": (c) => c.deleteUserMemories({ user_id: "alice" }),
    "chatCompletions (OpenAI's user)": (c) => c.chatCompletions({ user: "alice", model: "m", messages: [] }),
  };
  for (const [name, call] of Object.entries(cases)) {
    assert.equal(await sent(call), "alice", name);
  }
});

test("requests for no user carry none", async () => {
  for (const call of [(c) => c.healthz(), (c) => c.listUsers(), (c) => c.listKeys(), (c) => c.maintain()]) {
    assert.equal(await sent(call), undefined, String(call));
  }
});

test("a user id beyond ASCII goes as its UTF-8 bytes", async () => {
  assert.equal(await sent((c) => c.search({ user_id: "张三 Müller", query: "tea" })), "张三 Müller");
});

test("a user id no header can carry is sent without one, for the server to refuse", async () => {
  assert.equal(await sent((c) => c.search({ user_id: "bad\r\nX-Injected: 1", query: "tea" })), undefined);
  assert.equal(server.requests.at(-1).headers["x-injected"], undefined);
});

test("headers given to the client or the call come last", async () => {
  const search = (options) => (c) => c.search({ user_id: "alice", query: "tea" }, options);
  assert.equal(await sent(search(), { headers: { "X-Engram-User": "fixed" } }), "fixed");
  assert.equal(await sent(search({ headers: { "X-Engram-User": "call" } })), "call");
});

test("the real server takes the header for any user id", async (t) => {
  const engram = await startEngram();
  t.after(() => engram.stop());
  const client = new EngramClient({ baseUrl: engram.url });
  for (const user of ["alice", "张三 Müller"]) {
    const stored = await client.addMemory({ user_id: user, content: "Likes green tea", infer: false });
    const hits = await client.search({ user_id: user, query: "green tea" });
    assert.deepEqual(hits.results.map((h) => h.memory.id), [stored.results[0].id], user);
  }
  // An id no header can carry is sent without one, and the server names what is wrong.
  await assert.rejects(client.search({ user_id: "bad\nuser", query: "tea" }), (e) => {
    assert.ok(e instanceof BadRequestError, String(e));
    assert.match(e.message, /user_id/);
    return true;
  });
});
