// Every error status the server answers becomes the typed error for it, carrying the
// server's code and message: 400, 401 (no key, a wrong key, a revoked key), 403, 404, 409,
// 413, 429 and 503, each provoked on a real `engram serve`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EngramClient,
  EngramError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnavailableError,
} from "engram-client";
import { holdConnection, startEngram } from "./support/engram-server.mjs";

const USER = "alice";

/** Asserts that `promise` rejects with `Class`, `status` and `code`; returns the error. */
async function rejectsWith(promise, Class, status, code, { requestId = true } = {}) {
  const error = await promise.then(
    (value) => assert.fail(`expected ${Class.name}, got ${JSON.stringify(value)}`),
    (e) => e,
  );
  assert.ok(error instanceof Class, `${error}`);
  assert.ok(error instanceof EngramError);
  assert.equal(error.status, status);
  assert.equal(error.code, code);
  assert.ok(error.message.length > `${status} ${code}: `.length, error.message);
  if (requestId) assert.match(error.requestId ?? "", /^\S+$/, "the reply's X-Request-Id");
  return error;
}

describe("with API keys", () => {
  let server, keys, client, admin;

  before(async () => {
    server = await startEngram(["--max-body-bytes", "2048"], (s) => {
      keys = { tenant: s.createKey({ tenant: "acme" }), admin: s.createKey({ tenant: "ops", admin: true }) };
    });
    client = new EngramClient({ baseUrl: server.url, apiKey: keys.tenant.secret });
    admin = new EngramClient({ baseUrl: server.url, apiKey: keys.admin.secret });
  });
  after(() => server.stop());

  test("400 invalid_argument names the field", async () => {
    const error = await rejectsWith(client.search({ user_id: USER, query: "tea", limit: 5 }), BadRequestError, 400, "invalid_argument");
    assert.match(error.message, /limit/);
  });

  test("401 unauthenticated: no key, or a wrong one", async () => {
    await rejectsWith(new EngramClient({ baseUrl: server.url }).listMemories({ user_id: USER }), AuthenticationError, 401, "unauthenticated");
    const wrong = new EngramClient({ baseUrl: server.url, apiKey: "egk_not_a_key" });
    await rejectsWith(wrong.listMemories({ user_id: USER }), AuthenticationError, 401, "unauthenticated");
  });

  test("401 for a key once it is revoked", async () => {
    const created = await admin.createKey({ tenant: "acme", name: "to-revoke" });
    const doomed = new EngramClient({ baseUrl: server.url, apiKey: created.secret });
    await doomed.listMemories({ user_id: USER });
    await admin.revokeKey(created.id);
    const start = Date.now();
    for (;;) {
      const outcome = await doomed.listMemories({ user_id: USER }).then(() => "accepted", (e) => e);
      if (outcome !== "accepted") {
        await rejectsWith(Promise.reject(outcome), AuthenticationError, 401, "unauthenticated");
        break;
      }
      assert.ok(Date.now() - start < 3000, "a revoked key still accepted after 3 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  test("403 permission_denied: a tenant key on an admin route", async () => {
    await rejectsWith(client.createKey({ tenant: "acme" }), PermissionDeniedError, 403, "permission_denied");
  });

  test("404 not_found", async () => {
    await rejectsWith(client.getMemory("no-such-id", { user_id: USER }), NotFoundError, 404, "not_found");
  });

  test("409 conflict: a turn for a closed session", async () => {
    const turn = { user_id: USER, messages: [{ role: "user", content: "I like rowing" }] };
    await client.appendSessionMessages("closed", turn);
    await client.closeSession("closed", { user_id: USER });
    await rejectsWith(client.appendSessionMessages("closed", turn), ConflictError, 409, "conflict");
  });

  test("413 payload_too_large", async () => {
    const big = { user_id: USER, content: "x".repeat(4000), infer: false };
    await rejectsWith(client.addMemory(big), PayloadTooLargeError, 413, "payload_too_large");
  });
});

test("429 rate_limited carries the server's Retry-After", async (t) => {
  // One request per 10 s: the second is refused however slow the machine, with Retry-After 10.
  const server = await startEngram(["--rate-limit", "0.1", "--rate-burst", "1"]);
  t.after(() => server.stop());
  const client = new EngramClient({ baseUrl: server.url, maxRetries: 0 });
  await client.listUsers();
  const error = await rejectsWith(client.listUsers(), RateLimitError, 429, "rate_limited");
  assert.equal(error.retryAfterMs, 10_000);
});

test("503 unavailable carries the server's Retry-After", async (t) => {
  const server = await startEngram(["--max-connections", "1"]);
  t.after(() => server.stop());
  const held = await holdConnection(server.port);
  t.after(() => held.destroy());
  const client = new EngramClient({ baseUrl: server.url, maxRetries: 0 });
  // Refused at the connection limit, before any request was read: no request id yet.
  const error = await rejectsWith(client.healthz(), UnavailableError, 503, "unavailable", { requestId: false });
  assert.equal(error.retryAfterMs, 1000);
});
