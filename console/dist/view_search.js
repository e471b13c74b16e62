import * as api from "./api.js";
import { errorBox } from "./dialogs.js";
import { field, fill, h, select } from "./dom.js";
import * as fmt from "./format.js";
import { t } from "./i18n.js";
import { on, scopeToken, state } from "./state.js";
import { options, TIERS, TYPES } from "./view_memories.js";
import { memoryLine, needUser, scoreRow } from "./widgets.js";
const view = {
    token: "",
    query: "",
    mode: "hybrid",
    k: 10,
    type: "",
    tier: "",
    allStatuses: false,
    expired: false,
    hits: null,
    timing: "",
    stale: false,
};
on("data", () => {
    if (view.hits)
        view.stale = true;
});
function request() {
    const filters = {};
    if (view.type)
        filters.types = [view.type];
    if (view.tier)
        filters.tiers = [view.tier];
    if (view.allStatuses)
        filters.statuses = "all";
    if (view.expired)
        filters.include_expired = true;
    return {
        user_id: state.user,
        query: view.query,
        k: view.mode === "fulltext" ? 100 : view.k,
        explain: true,
        fusion: view.mode === "rrf" ? "rrf" : "weighted",
        filters,
    };
}
function fullText(hits) {
    return hits
        .filter((hit) => (hit.explain?.keyword ?? 0) > 0)
        .sort((a, b) => (b.explain?.keyword ?? 0) - (a.explain?.keyword ?? 0))
        .slice(0, view.k);
}
function explainView(hit) {
    const x = hit.explain ?? {};
    const optional = [
        [t("sig_time"), x.time, "time"],
        [t("sig_session"), x.session, "session"],
        [t("sig_context"), x.context, "context"],
        [t("sig_graph"), x.graph, "graph"],
    ];
    return h("div", { class: "explain", "data-test": "explain" }, scoreRow(t("sig_score"), hit.score, "score"), scoreRow(t("sig_relevance"), x.relevance, "relevance"), scoreRow(t("sig_keyword"), x.keyword, "keyword"), scoreRow(t("sig_vector"), x.vector, "vector"), scoreRow(t("sig_importance"), x.importance, "importance"), scoreRow(t("sig_recency"), x.recency, "recency"), scoreRow(t("sig_retention"), x.retention, "retention"), optional.filter(([, v]) => (v ?? 0) > 0).map(([name, v, kind]) => scoreRow(name, v, kind)), h("p", { class: "hint ranks" }, t("ranks", { kw: x.keyword_rank || "–", vec: x.vector_rank || "–", factor: fmt.num(x.retention_factor, 3) })), x.graph_via
        ? h("p", { class: "hint", "data-test": "graph-via" }, t("graph_via", { name: x.graph_via, hops: String(x.graph_hops ?? 0) }))
        : null);
}
function results() {
    if (!view.hits)
        return h("div");
    if (view.hits.length === 0)
        return h("p", { class: "empty" }, t("no_results"));
    return h("div", null, h("p", { class: "hint", "data-test": "search-timing" }, view.timing), h("ol", { class: "hits", "data-test": "hits" }, view.hits.map((hit, i) => {
        const m = hit.memory ?? { id: hit.id };
        return h("li", { class: "hit", "data-test": "hit" }, h("span", { class: "hit-rank" }, `#${i + 1}`), h("ul", { class: "memories" }, memoryLine(m, explainView(hit))));
    })));
}
export function mountSearch(root) {
    if (!state.user)
        return fill(root, needUser());
    if (view.token !== scopeToken()) {
        view.token = scopeToken();
        view.hits = null;
    }
    const out = h("div", { class: "results" });
    const query = h("input", { type: "search", value: view.query, placeholder: t("search_placeholder"), "data-test": "search-input", required: true });
    const mode = select([["hybrid", t("mode_hybrid")], ["rrf", t("mode_rrf")], ["fulltext", t("mode_fulltext")]], view.mode, { "data-test": "search-mode" });
    const k = h("input", { type: "number", min: 1, max: 100, value: view.k });
    const type = select(options("type", TYPES, t("any_type")), view.type);
    const tier = select(options("tier", TIERS, t("any_tier")), view.tier);
    const all = h("input", { type: "checkbox", checked: view.allStatuses });
    const expired = h("input", { type: "checkbox", checked: view.expired });
    const go = h("button", { type: "submit", class: "primary", "data-test": "search-go" }, t("search"));
    const form = h("form", { class: "search-form" }, h("div", { class: "search-line" }, query, go), h("div", { class: "filters" }, field(t("mode"), mode), field(t("k"), k), field(t("type"), type), field(t("tier"), tier), h("label", { class: "check" }, all, t("include_inactive")), h("label", { class: "check" }, expired, t("include_expired"))));
    form.addEventListener("submit", async (e) => {
        e.preventDefault();
        Object.assign(view, {
            query: query.value.trim(), mode: mode.value, k: Math.max(1, Math.min(100, Number(k.value) || 10)),
            type: type.value, tier: tier.value, allStatuses: all.checked, expired: expired.checked,
        });
        if (!view.query)
            return;
        go.disabled = true;
        fill(out, h("p", { class: "loading" }, t("searching")));
        try {
            const started = performance.now();
            const r = await api.search(request());
            const answered = performance.now();
            const hits = r.results ?? [];
            view.hits = view.mode === "fulltext" ? fullText(hits) : hits;
            view.timing = "";
            fill(out, results());
            const drawn = performance.now();
            view.timing = t("search_timing", { n: view.hits.length, server: Math.round(answered - started), draw: Math.round(drawn - answered) });
            out.querySelector("[data-test=search-timing]")?.replaceChildren(view.timing);
        }
        catch (err) {
            fill(out, errorBox(err));
        }
        finally {
            go.disabled = false;
        }
    });
    fill(root, h("section", { class: "page search-page" }, h("h2", null, t("nav_search")), form, out));
    fill(out, results());
    query.focus();
    if (view.stale && view.query) {
        view.stale = false;
        form.requestSubmit();
    }
}
