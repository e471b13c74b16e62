#!/usr/bin/env node
// What the client adds to a call: the median latency of POST /v1/search through
// EngramClient.search (with its default timeout, and with timeoutMs: 0) against the same
// request sent with a bare fetch, on a local server.
//   node bench/overhead.mjs --engram PATH [--n 10000]   starts a server on a temporary database
//   node bench/overhead.mjs --url URL [--n 10000]       uses a running one (keyless, or ENGRAM_API_KEY)
// The ways alternate in blocks of 100 calls, so drift in the server (caches, the
// machine's load) falls on both alike.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { EngramClient } from "engram-client";
import { startEngram } from "../test/support/engram-server.mjs";

const { values } = parseArgs({
  options: { engram: { type: "string" }, url: { type: "string" }, n: { type: "string", default: "10000" } },
});
const N = Number(values.n);
const BLOCK = 100;
const USER = "bench-user";
const QUERY = { user_id: USER, query: "what does she like to drink in the morning?", k: 5 };

async function serverUrl() {
  if (values.url) return { url: values.url, stop: async () => {} };
  if (!values.engram) throw new Error("give --engram PATH or --url URL");
  process.env.ENGRAM_BINARY = values.engram;
  const server = await startEngram();
  return { url: server.url, stop: () => server.stop() };
}

async function seed(client) {
  const topics = ["green tea", "espresso", "hiking", "jazz", "Lisbon", "cello", "sushi", "chess", "running", "Kyoto"];
  const memories = Array.from({ length: 200 }, (_, i) => ({
    content: `Note ${i}: she mentioned ${topics[i % topics.length]} and ${topics[(i * 7) % topics.length]}`,
    type: "fact",
  }));
  await client.addMemoriesBatch({ user_id: USER, infer: false, memories });
}

function rawSearch(url, key) {
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  const body = JSON.stringify(QUERY);
  return async () => {
    const response = await fetch(`${url}/v1/search`, { method: "POST", headers, body });
    if (!response.ok) throw new Error(`search: ${response.status}`);
    return response.json();
  };
}

async function timed(call, out) {
  const start = performance.now();
  await call();
  out.push(performance.now() - start);
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99) };
}

const { url, stop } = await serverUrl();
try {
  const client = new EngramClient({ baseUrl: url });
  await seed(client);
  const raw = rawSearch(url, process.env.ENGRAM_API_KEY);
  const viaClient = () => client.search(QUERY);
  const untimed = new EngramClient({ baseUrl: url, timeoutMs: 0 });
  const viaUntimed = () => untimed.search(QUERY);
  for (let i = 0; i < 500; i++) {
    await raw(); // warm up: connections, the server's caches, the JIT
    await viaClient();
    await viaUntimed();
  }
  const ways = { "raw fetch": raw, EngramClient: viaClient, "timeoutMs: 0": viaUntimed };
  const times = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  for (let done = 0; done < N; done += BLOCK) {
    for (const [name, call] of Object.entries(ways)) {
      for (let i = 0; i < BLOCK; i++) await timed(call, times[name]);
    }
  }
  const us = (ms) => `${(ms * 1000).toFixed(0)} µs`.padStart(8);
  const base = summary(times["raw fetch"]).median;
  console.log(`searches: ${N} each way, node ${process.version}, server ${url}`);
  for (const [name, samples] of Object.entries(times)) {
    const s = summary(samples);
    const over = name === "raw fetch" ? "" : `  overhead ${us(s.median - base)} (${(((s.median - base) / base) * 100).toFixed(1)} %)`;
    console.log(`${name.padEnd(13)} median ${us(s.median)}  p90 ${us(s.p90)}  p99 ${us(s.p99)}${over}`);
  }
} finally {
  await stop();
}
