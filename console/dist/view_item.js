import * as api from "./api.js";
import { confirmAction, describe, errorBox, toast } from "./dialogs.js";
import { bar, field, fill, h, select } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { fadesAt, isCritical, retention } from "./retention.js";
import { dataChanged, state } from "./state.js";
import { TIERS, TYPES } from "./view_memories.js";
import { badges, setOpener } from "./widgets.js";
const MAX_HOPS = 20;
let panel = null;
let shown = "";
function ensurePanel() {
    if (panel && panel.isConnected)
        return panel;
    panel = h("dialog", { class: "drawer", "data-test": "memory-panel", "aria-label": t("memory") });
    panel.addEventListener("close", () => {
        panel?.remove();
        panel = null;
        shown = "";
    });
    panel.addEventListener("click", (e) => {
        if (e.target === panel)
            panel?.close();
    });
    document.body.appendChild(panel);
    return panel;
}
export async function openMemory(id) {
    const p = ensurePanel();
    shown = id;
    if (!p.open)
        p.showModal();
    fill(p, head(t("memory")), h("p", { class: "loading" }, t("loading")));
    try {
        const m = await api.getMemory(state.user, id);
        if (shown !== id)
            return;
        draw(p, m);
    }
    catch (e) {
        if (shown === id)
            fill(p, head(t("memory")), errorBox(e));
    }
}
export function closeMemory() {
    panel?.close();
}
function head(title) {
    return h("div", { class: "drawer-head" }, h("h2", null, title), h("button", { type: "button", class: "close", "aria-label": t("close"), "data-test": "panel-close", onClick: closeMemory }, "×"));
}
function draw(p, m) {
    const chain = h("div", { class: "chain", "data-test": "chain" }, h("p", { class: "loading" }, t("loading")));
    const history = h("div", { class: "history", "data-test": "history" }, h("p", { class: "loading" }, t("loading")));
    const editArea = h("div", { class: "edit-area" });
    fill(p, head(t("memory")), h("div", { class: "drawer-body" }, h("p", { class: "memory-text", "data-test": "panel-content" }, m.content ?? ""), badges(m), h("div", { class: "actions item-actions" }, h("button", { type: "button", "data-test": "edit", onClick: () => edit(editArea, m) }, t("edit")), m.status !== "deleted" &&
        h("button", { type: "button", class: "danger subtle", "data-test": "delete", onClick: () => remove(m) }, t("delete")), h("button", { type: "button", class: "danger", "data-test": "purge", onClick: () => purge(m) }, t("purge"))), editArea, h("h3", null, t("supersede_chain")), chain, h("h3", null, t("details")), details(m), h("h3", null, t("history")), history));
    loadChain(m).then((versions) => fill(chain, chainView(versions, m.id ?? "")), (e) => fill(chain, errorBox(e)));
    api.memoryHistory(state.user, m.id ?? "").then((r) => fill(history, historyView(r.results ?? [])), (e) => fill(history, errorBox(e)));
}
function details(m) {
    const r = retention(m);
    const fades = fadesAt(m);
    const rows = [
        [t("id"), m.id ?? ""],
        [t("slot"), m.slot || "–"],
        [t("importance"), fmt.num(m.importance)],
        [t("confidence"), fmt.num(m.confidence)],
        [t("created"), fmt.dateTime(m.created_at)],
        [t("updated"), fmt.dateTime(m.updated_at)],
        [t("valid"), `${fmt.day(m.valid_from)} → ${m.valid_to ? fmt.day(m.valid_to) : t("now")}`],
        [t("expires"), m.expires_at ? fmt.dateTime(m.expires_at) : t("never")],
        [
            t("retention"),
            h("span", { class: "retention", "data-test": "retention" }, bar(r, "retention"), ` ${fmt.num(r)} `, h("span", { class: "hint" }, isCritical(m) ? t("retention_critical") : fades ? t("fades_around", { date: fmt.day(fades.toISOString()) }) : t("never_fades"))),
        ],
        [t("critical_label"), isCritical(m) ? t("yes") : t("no")],
        [t("last_used"), m.last_accessed ? `${fmt.dateTime(m.last_accessed)} (${m.access_count ?? 0}×)` : t("never_read")],
        [t("tags"), (m.tags ?? []).join(", ") || "–"],
        [t("entities"), (m.entities ?? []).join(", ") || "–"],
        [t("source"), [m.source?.extractor, m.source?.session_id && `${t("session")} ${m.source.session_id}`].filter(Boolean).join(" · ") || "–"],
        [t("embedding_model"), m.embedding_model || "–"],
    ];
    const links = [
        ...(m.source?.turn_ids ?? []).map((id) => link(id, t("from_turn"))),
        ...(m.derived_ids ?? []).map((id) => link(id, t("derived"))),
    ];
    if (links.length)
        rows.push([t("linked"), h("span", { class: "links" }, links)]);
    return h("dl", { class: "details" }, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]).flat());
}
function link(id, what) {
    return h("button", { type: "button", class: "link", onClick: () => openMemory(id) }, `${what} ${fmt.shortId(id)}`);
}
async function loadChain(m) {
    const fetchOne = async (id) => {
        try {
            return await api.getMemory(state.user, id);
        }
        catch (e) {
            if (e instanceof api.ApiError && e.status === 404)
                return id;
            throw e;
        }
    };
    const older = [];
    let cur = m;
    for (let i = 0; i < MAX_HOPS && typeof cur !== "string" && cur.supersedes; i++) {
        cur = await fetchOne(cur.supersedes);
        older.unshift(cur);
    }
    const newer = [];
    cur = m;
    for (let i = 0; i < MAX_HOPS && typeof cur !== "string" && cur.superseded_by; i++) {
        cur = await fetchOne(cur.superseded_by);
        newer.push(cur);
    }
    return [...older, m, ...newer];
}
function chainView(versions, currentId) {
    if (versions.length === 1)
        return h("p", { class: "hint" }, t("chain_single"));
    const list = h("ol", { class: "chain-list" });
    versions.forEach((v, i) => {
        if (i > 0)
            list.appendChild(h("li", { class: "chain-arrow", "aria-hidden": "true" }, "→"));
        if (typeof v === "string") {
            list.appendChild(h("li", { class: "chain-node purged" }, t("chain_purged", { id: fmt.shortId(v) })));
            return;
        }
        const span = `${fmt.day(v.valid_from)} – ${v.valid_to ? fmt.day(v.valid_to) : t("now")}`;
        list.appendChild(h("li", { class: `chain-node status-${v.status}`, "aria-current": v.id === currentId ? "true" : false }, h("button", { type: "button", class: "chain-open", onClick: () => v.id && openMemory(v.id) }, h("span", { class: "chain-content" }, v.content ?? ""), h("span", { class: "chain-dates" }, span), h("span", { class: "chain-status" }, label("status", v.status)))));
    });
    return list;
}
function historyView(entries) {
    if (entries.length === 0)
        return h("p", { class: "hint" }, t("no_history"));
    return h("ol", { class: "history-list" }, entries.map((e) => h("li", { class: `history-entry event-${(e.event ?? "").toLowerCase()}` }, h("div", { class: "history-head" }, h("span", { class: "badge event" }, label("event", e.event)), h("time", null, fmt.dateTime(e.at))), e.old_content && e.old_content !== e.new_content
        ? h("p", { class: "history-change" }, h("del", null, e.old_content), " → ", h("ins", null, e.new_content ?? ""))
        : e.new_content && h("p", { class: "history-change" }, e.new_content), e.reason && h("p", { class: "hint" }, e.reason))));
}
function edit(area, m) {
    if (area.firstChild)
        return fill(area);
    const content = h("textarea", { rows: 3, "data-test": "edit-content" });
    content.value = m.content ?? "";
    const type = select(TYPES.map((v) => [v, label("type", v)]), m.type ?? "fact");
    const tier = select(TIERS.map((v) => [v, label("tier", v)]), m.tier ?? "semantic");
    const importance = h("input", { type: "number", min: 0, max: 1, step: 0.05, value: m.importance ?? 0.5 });
    const tags = h("input", { type: "text", value: (m.tags ?? []).join(", ") });
    const expires = h("input", { type: "datetime-local", value: fmt.toDateTimeInput(m.expires_at) });
    const canArchive = m.status === "active" || m.status === "archived";
    const status = select([["active", label("status", "active")], ["archived", label("status", "archived")]], m.status ?? "active", { disabled: !canArchive });
    const reason = h("input", { type: "text", placeholder: t("reason_placeholder"), "data-test": "edit-reason" });
    const form = h("form", { class: "edit-form" }, field(t("content"), content, "wide"), field(t("type"), type), field(t("tier"), tier), field(t("importance"), importance), field(t("status"), status), field(t("tags"), tags), field(t("expires"), expires), field(t("reason"), reason, "wide"), h("div", { class: "actions" }, h("button", { type: "button", onClick: () => fill(area) }, t("cancel")), h("button", { type: "submit", class: "primary", "data-test": "edit-save" }, t("save"))));
    form.addEventListener("submit", async (e) => {
        e.preventDefault();
        const patch = {};
        if (content.value !== m.content)
            patch.content = content.value;
        if (type.value !== m.type)
            patch.type = type.value;
        if (tier.value !== m.tier)
            patch.tier = tier.value;
        if (Number(importance.value) !== m.importance)
            patch.importance = Number(importance.value);
        const tagList = tags.value.split(",").map((s) => s.trim()).filter(Boolean);
        if (tagList.join("\n") !== (m.tags ?? []).join("\n"))
            patch.tags = tagList;
        const exp = fmt.fromDateTimeInput(expires.value) ?? null;
        if (fmt.toDateTimeInput(exp) !== fmt.toDateTimeInput(m.expires_at))
            patch.expires_at = exp;
        if (canArchive && status.value !== m.status)
            patch.status = status.value;
        if (Object.keys(patch).length === 0)
            return fill(area);
        if (reason.value.trim())
            patch.reason = reason.value.trim();
        try {
            await api.updateMemory(state.user, m.id ?? "", patch);
            toast(t("saved"));
            dataChanged();
            openMemory(m.id ?? "");
        }
        catch (err) {
            toast(describe(err), "error");
        }
    });
    fill(area, form);
    content.focus();
}
async function remove(m) {
    const ok = await confirmAction({
        title: t("delete_title"),
        body: h("div", null, h("p", null, t("delete_body")), h("blockquote", null, m.content ?? "")),
        confirmLabel: t("delete"),
    });
    if (!ok)
        return;
    try {
        await api.deleteMemory(state.user, m.id ?? "", false);
        toast(t("deleted"));
        dataChanged();
        openMemory(m.id ?? "");
    }
    catch (e) {
        toast(describe(e), "error");
    }
}
async function purge(m) {
    const ok = await confirmAction({
        title: t("purge_title"),
        body: h("div", null, h("p", null, t("purge_body")), h("blockquote", null, m.content ?? "")),
        confirmLabel: t("purge"),
    });
    if (!ok)
        return;
    try {
        const r = await api.deleteMemory(state.user, m.id ?? "", true);
        toast(t("purged", { n: (r.purged ?? []).length, turns: r.session_turns ?? 0 }));
        closeMemory();
        dataChanged();
    }
    catch (e) {
        toast(describe(e), "error");
    }
}
setOpener((id) => void openMemory(id));
