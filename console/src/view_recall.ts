// Proactive recall: type what was just said, see what the server would raise unasked (an
// allergy before a dinner booking) and why, or that it stays quiet (the usual answer).
import * as api from "./api.js";
import type { RecallResponse } from "engram-client";
import { errorBox } from "./dialogs.js";
import { field, fill, h } from "./dom.js";
import { t } from "./i18n.js";
import { scopeToken, state } from "./state.js";
import { memoryLine, needUser, scoreRow } from "./widgets.js";

const view = {
  token: "",
  text: "",
  k: 3,
  minScore: 0.6,
  result: null as RecallResponse | null,
};

/** One turn per line; "assistant:" (or "助手：") at the start marks the assistant's. */
export function turns(text: string): Array<{ role: string; content: string }> {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const m = /^(assistant|助手)\s*[:：]\s*(.*)$/i.exec(line);
      return m ? { role: "assistant", content: m[2] } : { role: "user", content: line.replace(/^(user|用户)\s*[:：]\s*/i, "") };
    });
}

function output(): HTMLElement {
  const r = view.result;
  if (!r) return h("div");
  const results = r.results ?? [];
  if (results.length === 0) return h("p", { class: "empty", "data-test": "recall-quiet" }, t("recall_quiet"));
  return h("ul", { class: "memories", "data-test": "recall-results" },
    results.map((hit) =>
      memoryLine(hit.memory ?? { id: hit.id },
        h("div", { class: "recall-why" },
          scoreRow(t("sig_score"), hit.score, "score"),
          h("p", { class: "reason" }, t("recall_reason"), " ", hit.reason ?? "")),
      ),
    ),
  );
}

export function mountRecall(root: HTMLElement): void {
  if (!state.user) return fill(root, needUser());
  if (view.token !== scopeToken()) {
    view.token = scopeToken();
    view.result = null;
  }
  const out = h("div");
  const text = h("textarea", { rows: 3, placeholder: t("recall_placeholder"), "data-test": "recall-text" });
  text.value = view.text;
  const k = h("input", { type: "number", min: 1, max: 20, value: view.k });
  const min = h("input", { type: "number", min: 0, max: 1, step: 0.05, value: view.minScore });
  const go = h("button", { type: "submit", class: "primary", "data-test": "recall-go" }, t("recall_go"));
  const form = h("form", { class: "search-form" },
    field(t("recall_turns"), text, "wide"),
    h("div", { class: "filters" }, field(t("k"), k), field(t("min_score"), min), go),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    view.text = text.value;
    view.k = Math.max(1, Math.min(20, Number(k.value) || 3));
    view.minScore = Math.max(0, Math.min(1, Number(min.value)));
    const messages = turns(view.text);
    if (messages.length === 0) return;
    go.disabled = true;
    try {
      view.result = await api.recall({ user_id: state.user, messages, k: view.k, min_score: view.minScore });
      fill(out, output());
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      go.disabled = false;
    }
  });
  fill(root, h("section", { class: "page recall-page" },
    h("h2", null, t("nav_recall")),
    h("p", { class: "lead" }, t("recall_lead")),
    form, out));
  fill(out, output());
}
