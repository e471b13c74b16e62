import { failure, headers } from "./api.js";
export class ChatProxyMissing extends Error {
}
export function splitEvents(buffer) {
    const parts = buffer.split(/\r?\n\r?\n/);
    const rest = parts.pop() ?? "";
    const events = [];
    for (const part of parts) {
        const data = part
            .split(/\r?\n/)
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).replace(/^ /, ""));
        if (data.length > 0)
            events.push(data.join("\n"));
    }
    return { events, rest };
}
function deltaOf(data) {
    const chunk = JSON.parse(data);
    if (chunk.error)
        throw new Error(chunk.error.message || "the model failed");
    return chunk.choices?.[0]?.delta?.content ?? "";
}
export async function streamChat(req, onDelta, signal) {
    const res = await fetch("/v1/chat/completions", {
        method: "POST",
        headers: { ...headers(true), Accept: "text/event-stream" },
        body: JSON.stringify({ ...req, stream: true }),
        signal,
        cache: "no-store",
    });
    if (res.status === 404)
        throw new ChatProxyMissing("no chat proxy");
    if (!res.ok)
        throw await failure(res);
    if (!(res.headers.get("Content-Type") ?? "").includes("text/event-stream") || !res.body) {
        const whole = (await res.json()).choices?.[0]?.message?.content ?? "";
        onDelta(whole);
        return whole;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let text = "";
    for (;;) {
        const { value, done } = await reader.read();
        if (done)
            break;
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
    return text;
}
