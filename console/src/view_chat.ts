// A demo chat through the server's OpenAI-compatible chat proxy: the proxy adds the selected
// user's memories to the prompt and writes the exchange back (in a session of its own per
// conversation), so a conversation here shows memory at work and the Memories page shows what
// it stored. The reply is drawn as it streams. The model is the upstream's name for it, which
// the console cannot know: it is asked for once and kept (localStorage; it is not a secret).
import { describe } from "./dialogs.js";
import { field, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { scopeToken, state } from "./state.js";
import { ChatProxyMissing, streamChat, type ChatMessage } from "./chat_stream.js";
import { needUser } from "./widgets.js";

const MODEL = "engram.console.model";

function savedModel(): string {
  try {
    return localStorage.getItem(MODEL) ?? "";
  } catch {
    return "";
  }
}

const view = {
  token: "",
  model: savedModel(),
  session: "",
  messages: [] as ChatMessage[],
  missing: false,
};

/** A session id per conversation, so its turns are kept together. */
function newSession(): string {
  return `console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function bubble(m: ChatMessage): HTMLElement {
  return h("li", { class: `bubble ${m.role}`, "data-test": `chat-${m.role}` },
    h("span", { class: "who" }, m.role === "user" ? t("chat_you") : t("chat_assistant")),
    h("p", { class: "said" }, m.content));
}

export function mountChat(root: HTMLElement): void {
  if (!state.user) return fill(root, needUser());
  if (view.token !== scopeToken()) {
    view.token = scopeToken();
    view.messages = [];
    view.session = newSession();
  }
  const log = h("ol", { class: "chat-log", "data-test": "chat-log", "aria-live": "polite" }, view.messages.map(bubble));
  const notice = h("div");
  const input = h("textarea", { rows: 2, placeholder: t("chat_placeholder"), "data-test": "chat-input" });
  const model = h("input", { type: "text", value: view.model, placeholder: t("chat_model_placeholder"), required: true, "data-test": "chat-model" });
  const send = h("button", { type: "submit", class: "primary", "data-test": "chat-send" }, t("chat_send"));
  const stop = h("button", { type: "button", hidden: true }, t("chat_stop"));
  const reset = h("button", { type: "button", "data-test": "chat-new", onClick: () => {
    view.messages = [];
    view.session = newSession();
    fill(log);
    fill(notice);
  } }, t("chat_new"));
  const form = h("form", { class: "chat-form" }, input, h("div", { class: "actions" }, field(t("chat_model"), model), reset, stop, send));
  let controller: AbortController | null = null;
  stop.addEventListener("click", () => controller?.abort());
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault(); // Enter sends, Shift+Enter breaks the line (IME composition untouched)
      form.requestSubmit();
    }
  });
  if (view.missing) fill(notice, h("p", { class: "notice", "data-test": "chat-missing" }, t("chat_missing")));

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const said = input.value.trim();
    if (!said || controller) return;
    view.model = model.value.trim();
    try {
      localStorage.setItem(MODEL, view.model);
    } catch {
      // storage disabled: asked again next time
    }
    const user: ChatMessage = { role: "user", content: said };
    view.messages.push(user);
    const userEl = bubble(user);
    log.appendChild(userEl);
    input.value = "";
    const reply: ChatMessage = { role: "assistant", content: "" };
    const replyEl = bubble(reply);
    replyEl.classList.add("streaming");
    const said_ = replyEl.querySelector(".said")!;
    log.appendChild(replyEl);
    controller = new AbortController();
    send.disabled = true;
    stop.hidden = false;
    fill(notice);
    try {
      await streamChat(
        { model: view.model, messages: view.messages.slice(), user: state.user, engram: { session_id: view.session } },
        (delta) => {
          reply.content += delta;
          said_.textContent = reply.content; // text, never markup: a reply is data like a memory
          replyEl.scrollIntoView({ block: "end" });
        },
        controller.signal,
      );
      view.messages.push(reply);
      view.missing = false;
    } catch (err) {
      if ((err as Error).name === "AbortError") {
        if (reply.content) view.messages.push(reply);
      } else if (reply.content) {
        // Broken off mid-reply: what arrived stays, marked, with the reason.
        view.messages.push(reply);
        replyEl.classList.add("interrupted");
        fill(notice, h("p", { class: "error" }, describe(err)));
      } else {
        // Not sent: take the turn back, so it can be sent again as it was.
        replyEl.remove();
        userEl.remove();
        view.messages.pop();
        input.value = said;
        view.missing = err instanceof ChatProxyMissing;
        fill(notice, view.missing
          ? h("p", { class: "notice", "data-test": "chat-missing" }, t("chat_missing"))
          : h("p", { class: "error" }, describe(err)));
      }
    } finally {
      replyEl.classList.remove("streaming");
      controller = null;
      send.disabled = false;
      stop.hidden = true;
    }
  });

  fill(root, h("section", { class: "page chat-page" },
    h("h2", null, t("nav_chat")),
    h("p", { class: "lead" }, t("chat_lead", { user: state.user })),
    notice, log, form));
  input.focus();
}
