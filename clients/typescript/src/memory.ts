// What every framework integration does around a model call: fetch the user's memory context
// for the new message before it, and write the exchange back after it. The LangChain.js and
// Vercel AI SDK integrations (and the examples) all go through these two functions.
import type { EngramClient } from "./client.js";
import type { ContextResponse, Message } from "./generated/openapi.js";

/** Whose memory, and how to read and write it. */
export interface MemoryOptions {
  client: EngramClient;
  userId: string;
  agentId?: string;
  /**
   * With a session, the exchange is appended to it (working memory and summaries) and its
   * newest turns and summary lead the context; without one, each exchange is a plain add.
   */
  sessionId?: string;
  /** Token budget of the context block (the server's default is 1000). */
  tokenBudget?: number;
  /** Lead the context with the user's profile (GET /v1/profile as text). */
  profile?: boolean;
  /** Run the write path on what is written back (default true: extract memories). */
  infer?: boolean;
  /** Turns the context block into the system message; see defaultMemoryPrompt. */
  formatContext?: (context: string) => string;
}

/** The system message that carries the context, unless formatContext says otherwise. */
export function defaultMemoryPrompt(context: string): string {
  return (
    "What you remember about this user (memory ids in brackets; " +
    "use what helps, ignore the rest):\n" +
    context
  );
}

/** POST /v1/context for `query` in this scope. */
export async function fetchContext(
  options: MemoryOptions,
  query: string,
): Promise<ContextResponse> {
  return options.client.context({
    user_id: options.userId,
    agent_id: options.agentId,
    session_id: options.sessionId,
    query,
    token_budget: options.tokenBudget,
    profile: options.profile,
  });
}

/** The system message text for `query`, or "" when Engram holds nothing relevant. */
export async function memoryPrompt(options: MemoryOptions, query: string): Promise<string> {
  if (query.trim() === "") return ""; // nothing to search for (an image-only message)
  const { context } = await fetchContext(options, query);
  if (!context || context.trim() === "") return "";
  return (options.formatContext ?? defaultMemoryPrompt)(context);
}

/** Writes a user message and the assistant's answer back to Engram. */
export async function saveExchange(
  options: MemoryOptions,
  userText: string,
  assistantText: string,
): Promise<void> {
  const messages: Message[] = [];
  if (userText.trim() !== "") messages.push({ role: "user", content: userText });
  if (assistantText.trim() !== "") messages.push({ role: "assistant", content: assistantText });
  if (messages.length === 0) return;
  const scope = { user_id: options.userId, agent_id: options.agentId, infer: options.infer };
  if (options.sessionId) {
    await options.client.appendSessionMessages(options.sessionId, { ...scope, messages });
  } else {
    await options.client.addMemory({ ...scope, messages });
  }
}
