import { bar, h } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { isCritical } from "./retention.js";
let opener = () => { };
export function setOpener(fn) {
    opener = fn;
}
export function openMemory(id) {
    opener(id);
}
export function badges(m) {
    const expired = m.expires_at && Date.parse(m.expires_at) <= Date.now();
    return h("span", { class: "badges" }, h("span", { class: `badge type type-${m.type}` }, label("type", m.type)), h("span", { class: "badge tier" }, label("tier", m.tier)), m.status !== "active" && h("span", { class: `badge status status-${m.status}` }, label("status", m.status)), isCritical(m) && h("span", { class: "badge critical", title: t("critical_hint") }, t("critical")), m.expires_at &&
        h("span", { class: `badge expiry${expired ? " expired" : ""}` }, expired ? t("expired_on", { date: fmt.day(m.expires_at) }) : t("expires_on", { date: fmt.day(m.expires_at) })));
}
export function memoryLine(m, extra = null, when = fmt.dateTime(m.created_at)) {
    return h("li", { class: `memory status-${m.status}`, "data-id": m.id ?? "" }, h("button", { type: "button", class: "memory-open", onClick: () => m.id && openMemory(m.id) }, h("span", { class: "memory-when" }, when), h("span", { class: "memory-content", "data-test": "memory-content" }, m.content ?? ""), badges(m)), extra);
}
export function scoreRow(name, value, kind = "") {
    return h("div", { class: "score-row", "data-signal": kind || name }, h("span", { class: "score-name" }, name), bar(value ?? 0, kind), h("span", { class: "score-value" }, fmt.num(value)));
}
export function needUser() {
    return h("div", { class: "empty" }, t("pick_user_first"));
}
