// The Vercel AI SDK middleware against the real `ai` package and a real engram serve: the
// memory context reaches the model's prompt and the exchange is written back, for
// generateText and streamText.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { generateText, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { ConflictError, EngramClient } from "engram-client";
import { engramMemoryMiddleware, newUserText } from "engram-client/ai-sdk";
import { startEngram } from "./support/engram-server.mjs";

const USER = "erin";
const USAGE = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };
let server, client;

before(async () => {
  server = await startEngram();
  client = new EngramClient({ baseUrl: server.url });
  await client.addMemory({ user_id: USER, content: "Erin is vegetarian and loves to cook", type: "preference", infer: false });
});

after(() => server.stop());

function generatingModel(text) {
  return new MockLanguageModelV2({
    doGenerate: async () => ({ content: [{ type: "text", text }], finishReason: "stop", usage: USAGE, warnings: [] }),
  });
}

function streamingModel(deltas) {
  const parts = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta) => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: "stop", usage: USAGE },
  ];
  return new MockLanguageModelV2({ doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }) });
}

function systemText(call) {
  return call.prompt.filter((m) => m.role === "system").map((m) => m.content).join("\n");
}

async function sessionTurns(sessionId) {
  const session = await client.getSession(sessionId, { user_id: USER });
  return session.working.turns.map((t) => [t.role, t.content]);
}

test("generateText: the context reaches the model and the exchange is written back", async () => {
  const mock = generatingModel("Try a lentil curry.");
  const model = wrapLanguageModel({
    model: mock,
    middleware: engramMemoryMiddleware({ client, userId: USER, sessionId: "ai-generate" }),
  });
  const result = await generateText({ model, system: "You are a chef.", prompt: "What should I cook?" });
  assert.equal(result.text, "Try a lentil curry.");
  const call = mock.doGenerateCalls[0];
  assert.equal(call.prompt[0].content, "You are a chef.", "the caller's system message stays first");
  assert.match(systemText(call), /vegetarian/);
  assert.deepEqual(await sessionTurns("ai-generate"), [["user", "What should I cook?"], ["assistant", "Try a lentil curry."]]);
});

test("streamText: the streamed answer is written back when the stream ends", async () => {
  const mock = streamingModel(["Grilled ", "halloumi ", "skewers."]);
  const model = wrapLanguageModel({
    model: mock,
    middleware: engramMemoryMiddleware({ client, userId: USER, sessionId: "ai-stream", profile: true }),
  });
  const result = streamText({ model, prompt: "Ideas for a barbecue?" });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  assert.equal(text, "Grilled halloumi skewers.");
  assert.match(systemText(mock.doStreamCalls[0]), /vegetarian/);
  assert.deepEqual(await sessionTurns("ai-stream"), [["user", "Ideas for a barbecue?"], ["assistant", "Grilled halloumi skewers."]]);
});

test("without a session each exchange is an add, extracted by the write path", async () => {
  const model = wrapLanguageModel({ model: generatingModel("Lovely!"), middleware: engramMemoryMiddleware({ client, userId: "frank" }) });
  await generateText({ model, prompt: "I adopted a cat named Pixel" });
  const found = await client.search({ user_id: "frank", query: "cat" });
  assert.ok(found.results.some((hit) => /Pixel/.test(hit.memory.content)), JSON.stringify(found));
});

test("a failed write-back rejects by default, or goes to onWriteBackError", async () => {
  await client.appendSessionMessages("ai-closed", { user_id: USER, messages: [{ role: "user", content: "hello there" }] });
  await client.closeSession("ai-closed", { user_id: USER });
  const options = { client, userId: USER, sessionId: "ai-closed" };
  const strict = wrapLanguageModel({ model: generatingModel("ok"), middleware: engramMemoryMiddleware(options) });
  await assert.rejects(generateText({ model: strict, prompt: "Remember this" }), ConflictError);

  const seen = [];
  const lenient = engramMemoryMiddleware({ ...options, onWriteBackError: (e) => seen.push(e) });
  const result = await generateText({ model: wrapLanguageModel({ model: generatingModel("ok"), middleware: lenient }), prompt: "Remember this" });
  assert.equal(result.text, "ok");
  assert.ok(seen[0] instanceof ConflictError);
});

test("a prompt that does not end with the user's message is left alone", () => {
  const text = (t) => [{ type: "text", text: t }];
  assert.equal(newUserText([{ role: "user", content: text("hi") }]), "hi");
  const toolStep = [
    { role: "user", content: text("weather?") },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "1", toolName: "weather", input: {} }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "1", toolName: "weather", output: { type: "text", value: "sunny" } }] },
  ];
  assert.equal(newUserText(toolStep), undefined);
});
