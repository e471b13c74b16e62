// Pieces several pages draw alike: a memory's badges, a memory as a clickable line, a labelled
// score bar. A line opens the memory's panel through the opener view_item.ts registers (so this
// module does not import the panel, which imports it).
import type { Memory } from "./api.js";
import { bar, h } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { isCritical } from "./retention.js";

let opener: (id: string) => void = () => {};

export function setOpener(fn: (id: string) => void): void {
  opener = fn;
}

export function openMemory(id: string): void {
  opener(id);
}

/** Type, tier, status (when not active), critical and expiry, as small labels. */
export function badges(m: Memory): HTMLElement {
  const expired = m.expires_at && Date.parse(m.expires_at) <= Date.now();
  return h(
    "span",
    { class: "badges" },
    h("span", { class: `badge type type-${m.type}` }, label("type", m.type)),
    h("span", { class: "badge tier" }, label("tier", m.tier)),
    m.status !== "active" && h("span", { class: `badge status status-${m.status}` }, label("status", m.status)),
    isCritical(m) && h("span", { class: "badge critical", title: t("critical_hint") }, t("critical")),
    m.expires_at &&
      h(
        "span",
        { class: `badge expiry${expired ? " expired" : ""}` },
        expired ? t("expired_on", { date: fmt.day(m.expires_at) }) : t("expires_on", { date: fmt.day(m.expires_at) }),
      ),
  );
}

/** A memory as one line: its text (as text), badges, and a button that opens it. */
export function memoryLine(m: Memory, extra: Node | null = null, when = fmt.dateTime(m.created_at)): HTMLElement {
  return h(
    "li",
    { class: `memory status-${m.status}`, "data-id": m.id ?? "" },
    h(
      "button",
      { type: "button", class: "memory-open", onClick: () => m.id && openMemory(m.id) },
      h("span", { class: "memory-when" }, when),
      h("span", { class: "memory-content", "data-test": "memory-content" }, m.content ?? ""),
      badges(m),
    ),
    extra,
  );
}

/** A named score with its bar, e.g. "keyword 0.85 ▇▇▇▇". */
export function scoreRow(name: string, value: number | undefined, kind = ""): HTMLElement {
  return h(
    "div",
    { class: "score-row", "data-signal": kind || name },
    h("span", { class: "score-name" }, name),
    bar(value ?? 0, kind),
    h("span", { class: "score-value" }, fmt.num(value)),
  );
}

/** "Pick a user first", with the users to pick from. */
export function needUser(): HTMLElement {
  return h("div", { class: "empty" }, t("pick_user_first"));
}
