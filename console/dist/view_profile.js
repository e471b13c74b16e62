import * as api from "./api.js";
import { confirmAction, describe, errorBox, toast } from "./dialogs.js";
import { bar, fill, h } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { fadesAt, isCritical, retention } from "./retention.js";
import { dataChanged, scopeToken, state } from "./state.js";
import { needUser, openMemory } from "./widgets.js";
const RETENTION_ROWS = 200;
const view = { token: "", report: null };
function idLink(id) {
    return h("button", { type: "button", class: "link mono", onClick: () => openMemory(id) }, fmt.shortId(id));
}
function profileView(p) {
    const sections = (p.sections ?? []).filter((s) => (s.lines ?? []).length > 0);
    const s = p.summary;
    return h("div", { class: "profile", "data-test": "profile" }, s && s.text
        ? h("div", { class: "profile-summary" }, h("h3", null, t("profile_summary")), h("p", null, s.text), h("p", { class: "hint" }, t("profile_summary_meta", { model: s.model ?? "", at: fmt.dateTime(s.generated_at) }), s.current === false ? ` · ${t("profile_summary_stale")}` : ""))
        : h("p", { class: "hint" }, t("profile_no_summary")), sections.length === 0
        ? h("p", { class: "empty" }, t("profile_empty"))
        : h("div", { class: "profile-sections" }, sections.map((sec) => h("div", { class: "profile-section" }, h("h4", null, label("section", sec.kind)), h("ul", null, (sec.lines ?? []).map((line) => h("li", null, h("span", null, line.text ?? ""), " ", (line.memory_ids ?? []).map(idLink))))))), p.updated_at && h("p", { class: "hint" }, t("profile_updated", { at: fmt.dateTime(p.updated_at) })));
}
function retentionView(items) {
    if (items.length === 0)
        return h("p", { class: "empty" }, t("no_memories"));
    const now = Date.now();
    const rows = items.map((m) => ({ m, r: retention(m, now) })).sort((a, b) => a.r - b.r);
    return h("div", { class: "table-wrap" }, h("table", { class: "retention-table", "data-test": "retention-table" }, h("thead", null, h("tr", null, [t("content"), t("type"), t("retention"), t("critical_label"), t("expires"), t("fades")].map((c) => h("th", null, c)))), h("tbody", null, rows.map(({ m, r }) => {
        const fades = fadesAt(m);
        return h("tr", null, h("td", null, h("button", { type: "button", class: "link", onClick: () => m.id && openMemory(m.id) }, m.content ?? "")), h("td", null, label("type", m.type)), h("td", { class: "nowrap" }, bar(r, "retention"), ` ${fmt.num(r)}`), h("td", null, isCritical(m) ? h("span", { class: "badge critical" }, t("critical")) : ""), h("td", { class: "nowrap" }, m.expires_at ? fmt.day(m.expires_at) : t("never")), h("td", { class: "nowrap" }, fades ? fmt.day(fades.toISOString()) : t("never")));
    }))));
}
function reportView(r) {
    const counts = [
        [t("m_examined"), r.examined], [t("m_expired"), r.expired], [t("m_archived"), r.archived],
        [t("m_purged"), r.purged], [t("m_merged"), r.merged], [t("m_summarized"), r.summarized],
        [t("m_promoted"), r.promoted],
    ];
    const actions = r.actions ?? [];
    return h("div", { class: "report", "data-test": "maintenance-report" }, h("p", { class: "hint" }, r.dry_run ? t("m_dry_run_note") : t("m_ran_note", { ms: r.duration_ms ?? 0 })), h("dl", { class: "counts" }, counts.map(([k, v]) => [h("dt", null, k), h("dd", null, String(v ?? 0))]).flat()), actions.length === 0
        ? h("p", { class: "empty" }, r.dry_run ? t("m_nothing_would") : t("m_nothing_did"))
        : h("div", { class: "table-wrap" }, h("table", null, h("thead", null, h("tr", null, [t("action"), t("content"), t("reason")].map((c) => h("th", null, c)))), h("tbody", null, actions.map((a) => h("tr", null, h("td", null, h("span", { class: "badge" }, label("action", a.action))), h("td", null, a.content ?? (a.id ? fmt.shortId(a.id) : "")), h("td", { class: "hint" }, a.reason ?? "")))))), (r.problems ?? []).length > 0 && h("ul", { class: "error" }, (r.problems ?? []).map((p) => h("li", null, p))));
}
async function loadInto(el, load, draw) {
    fill(el, h("p", { class: "loading" }, t("loading")));
    try {
        fill(el, draw(await load()));
    }
    catch (e) {
        fill(el, errorBox(e));
    }
}
export function mountProfile(root) {
    if (!state.user)
        return fill(root, needUser());
    const user = state.user;
    if (view.token !== scopeToken()) {
        view.token = scopeToken();
        view.report = null;
    }
    const profileBox = h("div");
    const retentionBox = h("div");
    const reportBox = h("div");
    const logBox = h("div");
    const loadLog = () => loadInto(logBox, () => api.maintenanceLog(user), (r) => {
        const rows = r.results ?? [];
        if (rows.length === 0)
            return h("p", { class: "empty" }, t("m_log_empty"));
        return h("div", { class: "table-wrap" }, h("table", { "data-test": "maintenance-log" }, h("thead", null, h("tr", null, [t("when"), t("action"), t("memory"), t("reason")].map((c) => h("th", null, c)))), h("tbody", null, rows.slice().reverse().map((e) => h("tr", null, h("td", { class: "nowrap" }, fmt.dateTime(e.at)), h("td", null, label("action", e.action)), h("td", null, e.id ? idLink(e.id) : ""), h("td", { class: "hint" }, e.reason ?? ""))))));
    });
    const preview = async () => {
        await loadInto(reportBox, () => api.maintain({ user_id: user, dry_run: true, full: true }), (r) => {
            view.report = r;
            return reportView(r);
        });
    };
    const run = async () => {
        const ok = await confirmAction({ title: t("m_run_title"), body: t("m_run_body", { user }), confirmLabel: t("m_run") });
        if (!ok)
            return;
        try {
            view.report = await api.maintain({ user_id: user, full: true });
            toast(t("m_ran"));
            dataChanged();
        }
        catch (e) {
            toast(describe(e), "error");
        }
    };
    fill(root, h("section", { class: "page profile-page" }, h("h2", null, t("nav_profile")), profileBox, h("h3", null, t("retention_title")), h("p", { class: "hint" }, t("retention_note")), retentionBox, h("h3", null, t("maintenance")), h("p", { class: "hint" }, t("maintenance_note")), h("div", { class: "actions" }, h("button", { type: "button", "data-test": "m-preview", onClick: preview }, t("m_preview")), h("button", { type: "button", class: "danger", "data-test": "m-run", onClick: run }, t("m_run"))), reportBox, h("h3", null, t("m_log")), logBox));
    if (view.report)
        fill(reportBox, reportView(view.report));
    loadInto(profileBox, () => api.profile(user), profileView);
    loadInto(retentionBox, async () => (await api.listMemories({ user_id: user, status: "active", limit: RETENTION_ROWS })).results ?? [], retentionView);
    loadLog();
}
