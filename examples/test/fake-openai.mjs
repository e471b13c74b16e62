// A stand-in for an OpenAI-compatible chat endpoint on 127.0.0.1: POST /v1/chat/completions,
// plain or streamed (server-sent events, as the official API streams). It answers every
// request with a fixed sentence quoting the user's last message, and records the requests, so
// a test can see which system messages (the memory context) reached "the model".
import { createServer } from "node:http";

function lastUserText(messages) {
  const last = [...messages].reverse().find((m) => m.role === "user");
  if (!last) return "";
  return typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
}

function completion(body, text) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** The answer as chat.completion.chunk events: the role, a chunk per word, the finish. */
function chunks(body, text) {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
  const choice = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const words = text.split(/(?<= )/);
  return [
    choice({ role: "assistant", content: "" }),
    ...words.map((w) => choice({ content: w })),
    choice({}, "stop"),
    { ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length } },
  ];
}

export async function startFakeOpenAI() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ error: { message: `no route ${req.url}`, type: "invalid_request_error" } }));
      }
      const body = JSON.parse(raw);
      requests.push(body);
      const text = `You said: ${lastUserText(body.messages)}`;
      if (!body.stream) {
        res.writeHead(200, { "Content-Type": "application/json" });
        return res.end(JSON.stringify(completion(body, text)));
      }
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      for (const chunk of chunks(body, text)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
