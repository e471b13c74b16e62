// The client of the OpenAI-compatible chat proxy (POST /v1/chat/completions): an OpenAI request
// body with `user` = the Engram user and `stream: true`, answered with server-sent events, one
// `data: {chunk}` per piece of the reply and `data: [DONE]` at the end; a stream that breaks off
// ends with an error event instead. A plain JSON completion is read too. A 404 means this server
// runs no proxy (engram serve without --upstream-url).
import { failure, headers } from "./api.js";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatRequest {
  /** The upstream's model (the proxy requires one). */
  model: string;
  messages: ChatMessage[];
  user: string;
  /** Engram's options, removed by the proxy before forwarding. */
  engram?: { session_id?: string };
}

/** The route is not there: engram serve was started without an upstream model. */
export class ChatProxyMissing extends Error {}

interface Chunk {
  choices?: Array<{ delta?: { content?: string | null }; message?: { content?: string | null } }>;
  error?: { message?: string };
}

/** The data of each complete event in `buffer`, and what is left of it (an unfinished event). */
export function splitEvents(buffer: string): { events: string[]; rest: string } {
  const parts = buffer.split(/\r?\n\r?\n/);
  const rest = parts.pop() ?? "";
  const events: string[] = [];
  for (const part of parts) {
    const data = part
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length > 0) events.push(data.join("\n")); // comments and other fields: none
  }
  return { events, rest };
}

function deltaOf(data: string): string {
  const chunk = JSON.parse(data) as Chunk;
  if (chunk.error) throw new Error(chunk.error.message || "the model failed");
  return chunk.choices?.[0]?.delta?.content ?? "";
}

/** Sends the conversation; calls onDelta with each piece of the reply; resolves the whole reply. */
export async function streamChat(
  req: ChatRequest,
  onDelta: (text: string) => void,
  signal?: AbortSignal,
): Promise<string> {
  const res = await fetch("/v1/chat/completions", {
    method: "POST",
    headers: { ...headers(true), Accept: "text/event-stream" },
    body: JSON.stringify({ ...req, stream: true }),
    signal,
    cache: "no-store",
  });
  if (res.status === 404) throw new ChatProxyMissing("no chat proxy");
  if (!res.ok) throw await failure(res);
  if (!(res.headers.get("Content-Type") ?? "").includes("text/event-stream") || !res.body) {
    const whole = ((await res.json()) as Chunk).choices?.[0]?.message?.content ?? "";
    onDelta(whole);
    return whole;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const { events, rest } = splitEvents(buffer);
    buffer = rest;
    for (const data of events) {
      if (data.trim() === "[DONE]") {
        await reader.cancel();
        return text;
      }
      const delta = deltaOf(data);
      if (delta) {
        text += delta;
        onDelta(delta);
      }
    }
  }
  return text; // the stream ended without [DONE]: what arrived is the reply
}
