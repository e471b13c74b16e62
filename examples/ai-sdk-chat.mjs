// A streaming chat loop with long-term memory in the Vercel AI SDK: the Engram middleware adds
// the user's memory context to each call's prompt and, once the stream ends, writes the
// exchange back to an Engram session.
//   ENGRAM_URL=http://127.0.0.1:8420 OPENAI_API_KEY=sk-... node examples/ai-sdk-chat.mjs
import { createInterface } from "node:readline";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, wrapLanguageModel } from "ai";
import { EngramClient } from "engram-client";
import { engramMemoryMiddleware } from "engram-client/ai-sdk";

const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL }); // key: OPENAI_API_KEY
const model = wrapLanguageModel({
  model: openai.chat(process.env.OPENAI_MODEL ?? "gpt-4o-mini"),
  middleware: engramMemoryMiddleware({
    client: new EngramClient(), // ENGRAM_URL, ENGRAM_API_KEY
    userId: process.env.ENGRAM_USER ?? "demo",
    sessionId: `ai-sdk-${Date.now()}`,
  }),
});

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const result = streamText({ model, system: "You are a helpful assistant.", prompt: line });
  process.stdout.write("assistant: ");
  for await (const delta of result.textStream) process.stdout.write(delta);
  process.stdout.write("\n");
}
