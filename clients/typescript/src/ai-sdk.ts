// Vercel AI SDK integration (ai 5): a language-model middleware that adds the user's memory
// context to the prompt before each call and writes the exchange back after it, for
// generateText and streamText alike:
//   wrapLanguageModel({ model, middleware: engramMemoryMiddleware({ client, userId }) })
import type { LanguageModelMiddleware } from "ai";
import { memoryPrompt, saveExchange, type MemoryOptions } from "./memory.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapGenerate"]>>>;
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware["wrapStream"]>>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

export interface EngramMiddlewareOptions extends MemoryOptions {
  /**
   * Called when writing the exchange back fails, after the model has answered. The default
   * rethrows (generateText rejects, streamText's stream errors at its end); pass a logger to
   * make the write-back best-effort.
   */
  onWriteBackError?: (error: unknown) => void;
}

/**
 * The new user message: the text of the prompt's last message when a user wrote it. A call
 * whose prompt ends otherwise (a tool result in a multi-step run) is a continuation of an
 * exchange already handled, so the middleware leaves it alone.
 */
export function newUserText(prompt: Prompt): string | undefined {
  const last = prompt[prompt.length - 1];
  if (last?.role !== "user") return undefined;
  return last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The prompt with a system message added after its leading system messages. */
function withSystemMessage(prompt: Prompt, text: string): Prompt {
  let at = 0;
  while (at < prompt.length && prompt[at].role === "system") at++;
  return [...prompt.slice(0, at), { role: "system", content: text }, ...prompt.slice(at)];
}

function generatedText(result: GenerateResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

export function engramMemoryMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware {
  const onWriteBackError =
    options.onWriteBackError ??
    ((error: unknown) => {
      throw error;
    });
  const writeBack = async (prompt: Prompt, answer: string) => {
    const userText = newUserText(prompt);
    if (userText === undefined) return;
    try {
      await saveExchange(options, userText, answer);
    } catch (error) {
      onWriteBackError(error);
    }
  };
  return {
    middlewareVersion: "v2",
    async transformParams({ params }) {
      const userText = newUserText(params.prompt);
      if (userText === undefined) return params;
      const system = await memoryPrompt(options, userText);
      return system ? { ...params, prompt: withSystemMessage(params.prompt, system) } : params;
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      await writeBack(params.prompt, generatedText(result));
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      let answer = "";
      // Passes every part on as it comes and writes the exchange back once the stream ends.
      const tap = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") answer += part.delta;
          controller.enqueue(part);
        },
        flush: () => writeBack(params.prompt, answer),
      });
      return { stream: stream.pipeThrough(tap), ...rest };
    },
  };
}
