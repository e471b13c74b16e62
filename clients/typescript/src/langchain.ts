// LangChain.js integration (@langchain/core 0.3): a chat message history kept in Engram
// sessions, a retriever over /v1/search, and a wrapper that gives any runnable the user's
// memory context and writes the exchange back.
import { BaseChatMessageHistory } from "@langchain/core/chat_history";
import { Document } from "@langchain/core/documents";
import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  type BaseMessage,
  type MessageContent,
} from "@langchain/core/messages";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import type { EngramClient } from "./client.js";
import { NotFoundError } from "./errors.js";
import type { Filters, SearchHit, Turn } from "./generated/openapi.js";
import { memoryPrompt, saveExchange, type MemoryOptions } from "./memory.js";

/** The text of a message's content (its text parts, for multi-part content). */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return content
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Engram's role names are the chat APIs': user, assistant, system, tool. */
const ROLE_OF_TYPE: Record<string, string> = { human: "user", ai: "assistant" };

function toTurn(message: BaseMessage) {
  const type = message.getType();
  return { role: ROLE_OF_TYPE[type] ?? type, content: contentText(message.content) };
}

function toMessage(turn: Turn): BaseMessage {
  const content = turn.content ?? "";
  if (turn.role === "assistant") return new AIMessage(content);
  if (turn.role === "system") return new SystemMessage(content);
  return new HumanMessage(content);
}

export interface EngramChatMessageHistoryInput {
  client: EngramClient;
  userId: string;
  sessionId: string;
  agentId?: string;
  /** Extract memories from the turns added (default true). */
  infer?: boolean;
}

/**
 * A chat history kept in an Engram session. getMessages() is the session's working memory:
 * its newest turns within the server's --working-token-budget, not every turn ever said (the
 * rest is in long-term memory, reached through the retriever or withEngramMemory).
 *
 * Engram keeps what users said as memories, so clear() does not erase: it closes the session
 * (its summary is written) and moves this history to a new session id, which starts empty.
 * To erase, delete the memories (client.deleteMemory with hard, or client.deleteUserMemories).
 */
export class EngramChatMessageHistory extends BaseChatMessageHistory {
  lc_namespace = ["engram", "chat_history"];
  private readonly fields: EngramChatMessageHistoryInput;
  private current: string;
  private cleared = 0;

  constructor(fields: EngramChatMessageHistoryInput) {
    super();
    this.fields = fields;
    this.current = fields.sessionId;
  }

  /** The session the history is in now (clear() moves it to a new one). */
  get sessionId(): string {
    return this.current;
  }

  async getMessages(): Promise<BaseMessage[]> {
    const { client, userId, agentId } = this.fields;
    try {
      const session = await client.getSession(this.current, { user_id: userId, agent_id: agentId });
      return (session.working?.turns ?? []).map(toMessage);
    } catch (error) {
      if (error instanceof NotFoundError) return []; // no turn yet: the session does not exist
      throw error;
    }
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** One request for all the messages. */
  async addMessages(messages: BaseMessage[]): Promise<void> {
    const { client, userId, agentId, infer } = this.fields;
    await client.appendSessionMessages(this.current, {
      user_id: userId,
      agent_id: agentId,
      infer,
      messages: messages.map(toTurn),
    });
  }

  async addUserMessage(message: string): Promise<void> {
    await this.addMessage(new HumanMessage(message));
  }

  async addAIChatMessage(message: string): Promise<void> {
    await this.addMessage(new AIMessage(message));
  }

  async clear(): Promise<void> {
    const { client, userId, agentId } = this.fields;
    try {
      await client.closeSession(this.current, { user_id: userId, agent_id: agentId });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // nothing said yet: nothing to close
    }
    this.cleared += 1;
    this.current = `${this.fields.sessionId}~${Date.now().toString(36)}${this.cleared}`;
  }
}

export interface EngramRetrieverInput extends BaseRetrieverInput {
  client: EngramClient;
  userId: string;
  agentId?: string;
  /** Documents returned, 1..100 (the server's default is 10). */
  k?: number;
  filters?: Filters;
  minScore?: number;
}

/** Metadata of a retrieved memory: what a chain needs to cite, filter or date it. */
export interface MemoryDocumentMetadata {
  id: string;
  type?: string;
  tier?: string;
  score?: number;
  importance?: number;
  created_at?: string;
  updated_at?: string;
  valid_from?: string;
  valid_to?: string | null;
  tags?: string[];
  entities?: string[];
  session_id?: string;
  slot?: string;
}

/** A search hit as a LangChain Document: the memory's content, its id and what it is. */
export function hitToDocument(hit: SearchHit): Document<MemoryDocumentMetadata> {
  const m = hit.memory ?? {};
  const id = hit.id ?? m.id ?? "";
  return new Document<MemoryDocumentMetadata>({
    id,
    pageContent: m.content ?? "",
    metadata: {
      id,
      type: m.type,
      tier: m.tier,
      score: hit.score,
      importance: m.importance,
      created_at: m.created_at,
      updated_at: m.updated_at,
      valid_from: m.valid_from,
      valid_to: m.valid_to,
      tags: m.tags,
      entities: m.entities,
      session_id: m.session_id,
      slot: m.slot,
    },
  });
}

/** A retriever over POST /v1/search within one user's memories, best first. */
export class EngramRetriever extends BaseRetriever<MemoryDocumentMetadata> {
  lc_namespace = ["engram", "retrievers"];
  private readonly fields: EngramRetrieverInput;

  static lc_name(): string {
    return "EngramRetriever";
  }

  constructor(fields: EngramRetrieverInput) {
    // Only LangChain's own fields go to the base class: it keeps what it is given as
    // serializable kwargs, and the client (with its key) is not something to serialize.
    super({ callbacks: fields.callbacks, tags: fields.tags, metadata: fields.metadata });
    this.fields = fields;
  }

  async _getRelevantDocuments(query: string): Promise<Document<MemoryDocumentMetadata>[]> {
    const { client, userId, agentId, k, filters, minScore } = this.fields;
    const reply = await client.search({
      user_id: userId,
      agent_id: agentId,
      query,
      k,
      filters,
      min_score: minScore,
    });
    return (reply.results ?? []).map(hitToDocument);
  }
}

export interface EngramMemoryRunnableOptions extends MemoryOptions {
  /** The input field holding the user's message (default "input"). */
  inputKey?: string;
  /** The field the memory system text is passed in (default "memory"; "" when none). */
  memoryKey?: string;
}

/** The text of what a runnable answered: a string, a message, or anything with content. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  const content = (output as { content?: MessageContent } | null)?.content;
  if (content !== undefined) return contentText(content);
  return JSON.stringify(output);
}

/**
 * Wraps a runnable (typically prompt.pipe(model)) so that each call gets the user's memory
 * context for its input, as `{memory}`, and writes the exchange back to Engram afterwards.
 * With a sessionId the session's newest turns lead the context, so no separate message
 * history is needed (adding one would store each turn twice).
 */
export function withEngramMemory<RunOutput>(
  runnable: Runnable<Record<string, unknown>, RunOutput>,
  options: EngramMemoryRunnableOptions,
): Runnable<Record<string, unknown>, RunOutput> {
  const inputKey = options.inputKey ?? "input";
  const memoryKey = options.memoryKey ?? "memory";
  return RunnableLambda.from(async (input: Record<string, unknown>, config) => {
    const message = String(input[inputKey] ?? "");
    const memory = await memoryPrompt(options, message);
    const output = await runnable.invoke({ ...input, [memoryKey]: memory }, config);
    await saveExchange(options, message, outputText(output));
    return output;
  }).withConfig({ runName: "EngramMemory" });
}
