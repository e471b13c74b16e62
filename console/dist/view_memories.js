import * as api from "./api.js";
import { confirmAction, describe, errorBox, toast } from "./dialogs.js";
import { field, fill, h, select } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { on, scopeToken, state } from "./state.js";
import { memoryLine, needUser } from "./widgets.js";
export const TIERS = ["working", "episodic", "semantic", "knowledge"];
export const TYPES = [
    "fact", "preference", "goal", "event", "opinion", "decision", "commitment",
    "summary", "skill", "knowledge", "profile", "message",
];
export const STATUSES = ["active", "superseded", "archived", "deleted"];
const PAGE = 50;
const view = {
    token: "",
    filters: { tier: "", type: "", status: "active", tag: "" },
    items: [],
    cursor: null,
    loaded: false,
    seq: 0,
};
on("data", () => {
    view.loaded = false;
});
export function options(group, values, anyLabel) {
    return [["", anyLabel], ...values.map((v) => [v, label(group, v)])];
}
async function load(more) {
    const seq = ++view.seq;
    const f = view.filters;
    const page = await api.listMemories({
        user_id: state.user,
        tier: f.tier || undefined,
        type: f.type || undefined,
        status: f.status || "all",
        tag: f.tag.trim() || undefined,
        limit: PAGE,
        cursor: more ? view.cursor ?? undefined : undefined,
    });
    if (seq !== view.seq)
        return false;
    view.items = more ? view.items.concat(page.results ?? []) : page.results ?? [];
    view.cursor = page.next_cursor ?? null;
    view.loaded = true;
    return true;
}
function timeline() {
    if (view.items.length === 0)
        return h("p", { class: "empty" }, t("no_memories"));
    const list = h("ol", { class: "timeline", "data-test": "timeline" });
    let currentDay = "";
    let group = null;
    for (const m of view.items) {
        const d = fmt.day(m.created_at);
        if (d !== currentDay || !group) {
            currentDay = d;
            group = h("ul", { class: "memories" });
            list.appendChild(h("li", { class: "day" }, h("h3", { class: "day-head" }, d), group));
        }
        group.appendChild(memoryLine(m, null, fmt.time(m.created_at)));
    }
    return list;
}
async function download() {
    try {
        const blob = await api.exportUser(state.user);
        const href = URL.createObjectURL(blob);
        const a = h("a", { href, download: `engram-export-${state.user}.jsonl`, class: "hidden" });
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(href), 10_000);
        toast(t("export_done"));
    }
    catch (e) {
        toast(describe(e), "error");
    }
}
async function eraseUser(rerender) {
    const user = state.user;
    const ok = await confirmAction({
        title: t("erase_user_title"),
        body: t("erase_user_body", { user }),
        confirmLabel: t("erase_user_confirm"),
        typeToConfirm: user,
    });
    if (!ok)
        return;
    try {
        const r = await api.eraseUser(user);
        toast(t("erase_user_done", { n: r.deleted ?? 0 }));
        view.loaded = false;
        rerender();
    }
    catch (e) {
        toast(describe(e), "error");
    }
}
export function mountMemories(root) {
    if (!state.user)
        return fill(root, needUser());
    if (view.token !== scopeToken()) {
        view.token = scopeToken();
        view.items = [];
        view.cursor = null;
        view.loaded = false;
    }
    const body = h("div", { class: "timeline-wrap", "data-test": "timeline-wrap" });
    const busy = (state_) => {
        body.dataset.state = state_;
        body.setAttribute("aria-busy", String(state_ === "loading"));
    };
    const rerender = () => mountMemories(root);
    const f = view.filters;
    const tier = select(options("tier", TIERS, t("any_tier")), f.tier, { "data-test": "filter-tier" });
    const type = select(options("type", TYPES, t("any_type")), f.type, { "data-test": "filter-type" });
    const status = select([...options("status", STATUSES, t("any_status")).slice(1), ["all", t("status_all")]], f.status, { "data-test": "filter-status" });
    const tag = h("input", { type: "text", value: f.tag, placeholder: t("tag_placeholder"), "data-test": "filter-tag" });
    const apply = () => {
        view.filters = { tier: tier.value, type: type.value, status: status.value, tag: tag.value };
        view.loaded = false;
        refresh();
    };
    for (const control of [tier, type, status])
        control.addEventListener("change", apply);
    tag.addEventListener("change", apply);
    const more = h("button", { type: "button", "data-test": "load-more" }, t("load_more"));
    const count = h("span", { class: "count" });
    const footer = h("div", { class: "list-footer" }, count, more);
    const draw = () => {
        busy("ready");
        fill(body, timeline());
        count.textContent = t("shown_count", { n: view.items.length });
        more.hidden = !view.cursor;
    };
    const refresh = async () => {
        busy("loading");
        fill(body, h("p", { class: "loading" }, t("loading")));
        try {
            if (await load(false))
                draw();
        }
        catch (e) {
            busy("error");
            fill(body, errorBox(e));
        }
    };
    more.addEventListener("click", async () => {
        more.disabled = true;
        try {
            if (await load(true))
                draw();
        }
        catch (e) {
            toast(describe(e), "error");
        }
        finally {
            more.disabled = false;
        }
    });
    fill(root, h("section", { class: "page memories-page" }, h("div", { class: "page-head" }, h("h2", null, t("nav_memories")), h("div", { class: "page-actions" }, h("button", { type: "button", "data-test": "export", onClick: download }, t("export")), h("button", { type: "button", class: "danger subtle", "data-test": "erase-user", onClick: () => eraseUser(rerender) }, t("erase_user")))), h("div", { class: "filters" }, field(t("tier"), tier), field(t("type"), type), field(t("status"), status), field(t("tag"), tag)), body, footer));
    if (view.loaded)
        draw();
    else
        refresh();
}
