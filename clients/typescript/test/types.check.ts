// Compiled (not run) by `npm run build`: the typed methods accept what docs/openapi.json
// allows and refuse what it does not. Each @ts-expect-error must be an error, or tsc fails.
import { EngramClient, type ContextResponse, type Memory, type SearchResponse } from "engram-client";

export async function typed(client: EngramClient): Promise<void> {
  const found: SearchResponse = await client.search({ user_id: "u", query: "tea", k: 5 });
  const memory: Memory | undefined = found.results?.[0]?.memory;
  const context: ContextResponse = await client.context({ user_id: "u", query: "q", token_budget: 300 });
  await client.updateMemory("id", { user_id: "u" }, { content: "x", reason: "moved" });
  await client.addMemory({ user_id: "u", content: "I like tea", infer: false, type: "preference" });
  void memory;
  void context;

  // @ts-expect-error: user_id is required
  await client.search({ query: "tea" });
  // @ts-expect-error: an unknown field of SearchRequest
  await client.search({ user_id: "u", query: "tea", limit: 5 });
  // @ts-expect-error: not a memory type
  await client.addMemory({ user_id: "u", content: "x", type: "note" });
  // @ts-expect-error: the reply of export is JSON Lines text
  const lines: object = await client.exportMemories({ user_id: "u" });
  void lines;
}
