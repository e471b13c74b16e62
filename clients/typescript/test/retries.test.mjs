// Retries: 429 and the server's own 503 are retried after the Retry-After it sent, for writes
// too (the server did not apply them); a failure that may have been applied (a proxy's 502, a
// dropped connection, a timeout) is retried only for idempotent requests. Also the timeout,
// the caller's abort, and the settings read from ENGRAM_URL / ENGRAM_API_KEY.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  EngramClient,
  EngramConnectionError,
  EngramTimeoutError,
  InternalServerError,
  RateLimitError,
  UnavailableError,
} from "engram-client";
import { holdConnection, startEngram } from "./support/engram-server.mjs";
import { drop, hang, json, reply, scriptedServer } from "./support/scripted-server.mjs";

const ADDED = json(201, { results: [] });
const PROXY_502 = reply(502, "<html>Bad Gateway</html>", { "Content-Type": "text/html" });
const add = (client) => client.addMemory({ user_id: "u", content: "I like tea" });

async function withScript(steps, body) {
  const server = await scriptedServer(steps);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function fastClient(url, options = {}) {
  return new EngramClient({ baseUrl: url, retryBaseMs: 1, ...options });
}

test("a write refused with 429 is retried after Retry-After and stored once", async (t) => {
  // One request per 2 s: the add right after a first request is refused with Retry-After 2.
  const server = await startEngram(["--rate-limit", "0.5", "--rate-burst", "1"]);
  t.after(() => server.stop());
  const client = new EngramClient({ baseUrl: server.url });
  await client.listUsers(); // spends the burst
  const start = Date.now();
  const stored = await client.addMemory({ user_id: "u", content: "Likes tea", infer: false });
  assert.ok(Date.now() - start >= 1900, `retried after ${Date.now() - start} ms, before Retry-After: 2`);
  assert.equal(stored.results.length, 1);
  const listed = await client.listMemories({ user_id: "u" }); // itself waits out a 429
  assert.deepEqual(listed.results.map((m) => m.content), ["Likes tea"]);
});

test("a write refused with the server's 503 is retried and stored once", async (t) => {
  const server = await startEngram(["--max-connections", "1"]);
  t.after(() => server.stop());
  const held = await holdConnection(server.port);
  setTimeout(() => held.destroy(), 300); // the slot frees before the retry (Retry-After: 1)
  const client = new EngramClient({ baseUrl: server.url });
  const stored = await client.addMemory({ user_id: "u", content: "Likes tea", infer: false });
  assert.equal(stored.results.length, 1);
  const listed = await client.listMemories({ user_id: "u" });
  assert.deepEqual(listed.results.map((m) => m.content), ["Likes tea"]);
});

test("429 retries give up after maxRetries", async () => {
  const limited = json(429, { error: { code: "rate_limited", message: "slow down" } }, { "Retry-After": "0" });
  await withScript([limited], async (server) => {
    await assert.rejects(add(fastClient(server.url, { maxRetries: 2 })), RateLimitError);
    assert.equal(server.requests.length, 3);
  });
});

test("a Retry-After longer than maxRetryDelayMs is not waited for", async () => {
  const limited = json(429, { error: { code: "rate_limited", message: "slow down" } }, { "Retry-After": "120" });
  await withScript([limited], async (server) => {
    const error = await add(fastClient(server.url, { maxRetryDelayMs: 5000 })).catch((e) => e);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfterMs, 120_000);
    assert.equal(server.requests.length, 1);
  });
});

test("a 503 that is not the server's own is retried for reads only", async () => {
  const proxy503 = reply(503, "upstream down", { "Content-Type": "text/plain", "Retry-After": "0" });
  await withScript([proxy503], async (server) => {
    const error = await add(fastClient(server.url)).catch((e) => e);
    assert.ok(error instanceof UnavailableError);
    assert.equal(error.code, "http_503");
    assert.equal(server.requests.length, 1);
  });
  await withScript([proxy503, json(200, { status: "ok" })], async (server) => {
    assert.deepEqual(await fastClient(server.url).healthz(), { status: "ok" });
    assert.equal(server.requests.length, 2);
  });
});

test("a proxy's 502 is retried for a read, never for a write", async () => {
  await withScript([PROXY_502], async (server) => {
    const error = await add(fastClient(server.url)).catch((e) => e);
    assert.ok(error instanceof InternalServerError);
    assert.deepEqual([error.status, error.code], [502, "http_502"]);
    assert.equal(server.requests.length, 1);
  });
  await withScript([PROXY_502, PROXY_502, json(200, { results: [] })], async (server) => {
    const found = await fastClient(server.url).search({ user_id: "u", query: "tea" });
    assert.deepEqual(found, { results: [] });
    assert.equal(server.requests.length, 3);
  });
});

test("a dropped connection is retried for a read, never for a write", async () => {
  await withScript([drop()], async (server) => {
    await assert.rejects(add(fastClient(server.url)), EngramConnectionError);
    assert.equal(server.requests.length, 1);
  });
  await withScript([drop(), json(200, { results: [], next_cursor: null })], async (server) => {
    await fastClient(server.url).listMemories({ user_id: "u" });
    assert.equal(server.requests.length, 2);
  });
});

test("a refused connection is retried even for a write: nothing was sent", async () => {
  let calls = 0;
  const refusing = async (...args) => {
    calls += 1;
    return fetch(...args);
  };
  const closed = await scriptedServer([ADDED]);
  await closed.close(); // the port now refuses connections
  const client = fastClient(closed.url, { fetch: refusing, maxRetries: 2 });
  const error = await add(client).catch((e) => e);
  assert.ok(error instanceof EngramConnectionError && error.notSent, `${error}`);
  assert.equal(calls, 3);
});

test("each attempt has a timeout", async () => {
  await withScript([hang()], async (server) => {
    const start = Date.now();
    const error = await fastClient(server.url, { timeoutMs: 200 }).healthz({ maxRetries: 0 }).catch((e) => e);
    assert.ok(error instanceof EngramTimeoutError, `${error}`);
    assert.ok(Date.now() - start < 2000);
  });
});

test("the caller's abort ends the call and is not retried, with or without a timeout", async () => {
  for (const timeoutMs of [30_000, 0]) {
    await withScript([json(200, { status: "ok" }), hang()], async (server) => {
      const client = fastClient(server.url, { timeoutMs });
      assert.deepEqual(await client.healthz(), { status: "ok" });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const error = await client.healthz({ signal: controller.signal }).catch((e) => e);
      assert.equal(error.name, "AbortError");
      assert.equal(server.requests.length, 2);
    });
  }
});

test("base URL and API key come from ENGRAM_URL and ENGRAM_API_KEY", async () => {
  await withScript([json(200, { status: "ok" })], async (server) => {
    const saved = { url: process.env.ENGRAM_URL, key: process.env.ENGRAM_API_KEY };
    process.env.ENGRAM_URL = `${server.url}/`;
    process.env.ENGRAM_API_KEY = "egk_from_env";
    try {
      const client = new EngramClient();
      assert.equal(client.baseUrl, server.url);
      await client.healthz();
    } finally {
      for (const [name, value] of [["ENGRAM_URL", saved.url], ["ENGRAM_API_KEY", saved.key]]) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    assert.equal(server.requests[0].headers.authorization, "Bearer egk_from_env");
    assert.equal(server.requests[0].url, "/healthz");
  });
});
