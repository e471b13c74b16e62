// What the LLM would see: the block POST /v1/context packs for a query under a token budget,
// exactly as an app would put it in the prompt, with the tokens it used and the memories cited.
import * as api from "./api.js";
import type { ContextResponse } from "engram-client";
import { errorBox } from "./dialogs.js";
import { bar, field, fill, h } from "./dom.js";
import * as fmt from "./format.js";
import { t } from "./i18n.js";
import { scopeToken, state } from "./state.js";
import { memoryLine, needUser } from "./widgets.js";

const view = {
  token: "",
  query: "",
  budget: 300,
  session: "",
  profile: false,
  result: null as ContextResponse | null,
};

function output(): HTMLElement {
  const r = view.result;
  if (!r) return h("div");
  const used = r.tokens ?? 0;
  return h("div", { class: "context-out" },
    h("div", { class: "token-use", "data-test": "context-tokens" },
      h("span", null, t("tokens_used", { used, budget: view.budget })),
      bar(view.budget > 0 ? used / view.budget : 0, "tokens"),
    ),
    r.session && (r.session.turns || r.session.summary)
      ? h("p", { class: "hint" }, t("context_session", { turns: r.session.turns ?? 0, summary: r.session.summary ? t("yes") : t("no") }))
      : null,
    r.profile ? h("p", { class: "hint" }, t("context_profile")) : null,
    h("h3", null, t("context_text")),
    r.context
      ? h("pre", { class: "context-text", "data-test": "context-text" }, r.context)
      : h("p", { class: "empty" }, t("context_empty")),
    h("h3", null, t("context_memories", { n: (r.memories ?? []).length })),
    h("ul", { class: "memories" },
      (r.memories ?? []).map((hit) => memoryLine(hit.memory ?? { id: hit.id }, h("span", { class: "hint hit-score" }, `${t("sig_score")} ${fmt.num(hit.score)}`))),
    ),
  );
}

export function mountContext(root: HTMLElement): void {
  if (!state.user) return fill(root, needUser());
  if (view.token !== scopeToken()) {
    view.token = scopeToken();
    view.result = null;
  }
  const out = h("div");
  const query = h("input", { type: "search", value: view.query, placeholder: t("context_placeholder"), required: true, "data-test": "context-query" });
  const budget = h("input", { type: "number", min: 16, max: 32768, step: 1, value: view.budget, "data-test": "context-budget" });
  const session = h("input", { type: "text", value: view.session, placeholder: t("optional") });
  const profile = h("input", { type: "checkbox", checked: view.profile });
  const go = h("button", { type: "submit", class: "primary", "data-test": "context-go" }, t("context_go"));
  const form = h("form", { class: "search-form" },
    h("div", { class: "search-line" }, query, go),
    h("div", { class: "filters" },
      field(t("token_budget"), budget), field(t("session"), session),
      h("label", { class: "check" }, profile, t("context_with_profile")),
    ),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    view.query = query.value.trim();
    view.budget = Math.max(16, Number(budget.value) || 300);
    view.session = session.value.trim();
    view.profile = profile.checked;
    if (!view.query) return;
    go.disabled = true;
    try {
      view.result = await api.context({
        user_id: state.user,
        query: view.query,
        token_budget: view.budget,
        session_id: view.session || undefined,
        profile: view.profile || undefined,
      });
      fill(out, output());
    } catch (err) {
      fill(out, errorBox(err));
    } finally {
      go.disabled = false;
    }
  });
  fill(root, h("section", { class: "page context-page" },
    h("h2", null, t("nav_context")),
    h("p", { class: "lead" }, t("context_lead")),
    form, out));
  fill(out, output());
}
