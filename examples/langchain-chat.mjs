// A chat loop with long-term memory in LangChain.js: withEngramMemory gives the chain the
// user's memory context as {memory} and writes each exchange back to an Engram session (whose
// newest turns lead the next context, so no separate message history is needed).
//   ENGRAM_URL=http://127.0.0.1:8420 OPENAI_API_KEY=sk-... node examples/langchain-chat.mjs
import { createInterface } from "node:readline";
import { StringOutputParser } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { ChatOpenAI } from "@langchain/openai";
import { EngramClient } from "engram-client";
import { withEngramMemory } from "engram-client/langchain";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant.\n{memory}"],
  ["human", "{input}"],
]);
const model = new ChatOpenAI({
  model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
  configuration: { baseURL: process.env.OPENAI_BASE_URL }, // any OpenAI-compatible server
});
const chat = withEngramMemory(prompt.pipe(model).pipe(new StringOutputParser()), {
  client: new EngramClient(), // ENGRAM_URL, ENGRAM_API_KEY
  userId: process.env.ENGRAM_USER ?? "demo",
  sessionId: `langchain-${Date.now()}`,
});

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  console.log(`assistant: ${await chat.invoke({ input: line })}`);
}
