// A chat loop with long-term memory: OpenAI's SDK talks to the model, Engram remembers.
// Before each call Engram packs what it knows about the user into a system message
// (POST /v1/context); after it, the exchange goes back to Engram (the session's turns, from
// which the write path extracts facts for next time).
//   ENGRAM_URL=http://127.0.0.1:8420 OPENAI_API_KEY=sk-... node examples/openai-chat.mjs
import { createInterface } from "node:readline";
import OpenAI from "openai";
import { EngramClient, memoryPrompt, saveExchange } from "engram-client";

const openai = new OpenAI(); // OPENAI_API_KEY, and OPENAI_BASE_URL for any compatible server
const model = process.env.OPENAI_MODEL ?? "gpt-4o-mini";
const memory = {
  client: new EngramClient(), // ENGRAM_URL, ENGRAM_API_KEY
  userId: process.env.ENGRAM_USER ?? "demo",
  sessionId: `openai-${Date.now()}`,
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const system = await memoryPrompt(memory, line); // "" when nothing relevant is known
  const messages = system ? [{ role: "system", content: system }] : [];
  messages.push({ role: "user", content: line });
  const completion = await openai.chat.completions.create({ model, messages });
  const answer = completion.choices[0].message.content ?? "";
  console.log(`assistant: ${answer}`);
  await saveExchange(memory, line, answer);
}
