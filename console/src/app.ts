// The console's shell: the top bar (user picker, language, key), the page tabs (routed by the
// URL's #/page so a reload or a link keeps the page), and the connection: read the users of the
// key's tenant, and ask for a key whenever the server answers 401. Whether the key may
// administer is not probed: a probe would put a refused admin call in the audit log at every
// visit of a tenant key; the Admin page finds out when opened.
import * as api from "./api.js";
import { askKey, describe, toast } from "./dialogs.js";
import { fill, h, select } from "./dom.js";
import { lang, onLang, setLang, t, type Key } from "./i18n.js";
import { on, setKey, setUser, setUsers, state } from "./state.js";
import { mountAdmin } from "./view_admin.js";
import { mountChat } from "./view_chat.js";
import { mountContext } from "./view_context.js";
import { mountGraph } from "./view_graph.js";
import { closeMemory } from "./view_item.js";
import { mountMemories } from "./view_memories.js";
import { mountProfile } from "./view_profile.js";
import { mountRecall } from "./view_recall.js";
import { mountSearch } from "./view_search.js";

interface Page {
  id: string;
  title: Key;
  mount: (root: HTMLElement) => void;
}

const PAGES: Page[] = [
  { id: "memories", title: "nav_memories", mount: mountMemories },
  { id: "search", title: "nav_search", mount: mountSearch },
  { id: "context", title: "nav_context", mount: mountContext },
  { id: "profile", title: "nav_profile", mount: mountProfile },
  { id: "recall", title: "nav_recall", mount: mountRecall },
  { id: "graph", title: "nav_graph", mount: mountGraph },
  { id: "chat", title: "nav_chat", mount: mountChat },
  { id: "admin", title: "nav_admin", mount: mountAdmin },
];

const MAX_USER_PAGES = 20; // 20,000 users in the picker; a larger tenant is cut (said so)

const top = h("header", { class: "topbar" });
const nav = h("nav", { class: "tabs" });
const main = h("main", { id: "view" });
let connecting: Promise<void> | null = null;
let usersCut = false;

function currentPage(): Page {
  const id = location.hash.replace(/^#\/?/, "");
  return PAGES.find((p) => p.id === id) ?? PAGES[0];
}

function drawNav(): void {
  const cur = currentPage();
  nav.setAttribute("aria-label", t("nav_label"));
  fill(nav, PAGES.map((p) => {
    const cls = ["tab", p === cur && "active", p.id === "admin" && state.admin === false && "dim"].filter(Boolean).join(" ");
    return h("a", { href: `#/${p.id}`, class: cls, "aria-current": p === cur ? "page" : false, "data-test": `tab-${p.id}` }, t(p.title));
  }));
}

function drawTop(): void {
  const users = select(
    [["", state.users.length ? t("pick_user") : t("no_users")], ...state.users.map((u): [string, string] => [u.user_id ?? "", `${u.user_id} (${u.items ?? 0})`])],
    state.user,
    { "data-test": "user-select", "aria-label": t("user") },
  );
  users.addEventListener("change", () => setUser(users.value));
  const other = lang() === "zh" ? "en" : "zh";
  fill(top,
    h("a", { class: "brand", href: "#/memories" }, "Engram"),
    h("label", { class: "user-pick" }, h("span", { class: "field-label" }, t("user")), users,
      h("button", { type: "button", class: "icon", title: t("refresh_users"), "aria-label": t("refresh_users"), onClick: () => connect() }, "↻")),
    usersCut && h("span", { class: "hint" }, t("users_cut")),
    h("span", { class: "spacer" }),
    h("button", { type: "button", class: "lang", lang: other === "zh" ? "zh-CN" : "en", "data-test": "lang", onClick: () => setLang(other) }, other === "zh" ? "中文" : "English"),
    h("button", { type: "button", class: "key", "data-test": "key-button", onClick: () => promptKey(t("key_change")) },
      state.key ? t("key_set", { prefix: state.key.slice(0, 10) }) : t("key_none")),
  );
}

function draw(): void {
  document.title = `Engram · ${t(currentPage().title)}`;
  drawTop();
  drawNav();
  currentPage().mount(main);
}

async function promptKey(message: string): Promise<void> {
  const key = await askKey(message, state.key);
  if (key === null) return;
  closeMemory();
  setKey(key);
  await connect();
}

/** Reads the users of the key's tenant (all pages of them, up to MAX_USER_PAGES). */
async function connect(): Promise<void> {
  if (connecting) return connecting;
  connecting = (async () => {
    try {
      const all = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await api.listUsers(cursor);
        all.push(...(page.results ?? []));
        cursor = page.next_cursor ?? undefined;
      } while (cursor && ++pages < MAX_USER_PAGES);
      usersCut = Boolean(cursor);
      setUsers(all);
      // A user remembered from before that this tenant does not have is not kept.
      if (!all.some((u) => u.user_id === state.user)) setUser(all[0]?.user_id ?? "");
    } catch (e) {
      if (!(e instanceof api.ApiError && e.status === 401)) toast(describe(e), "error");
    }
  })();
  try {
    await connecting;
  } finally {
    connecting = null;
  }
}

export function start(root: HTMLElement): void {
  api.setAuth({
    key: () => state.key,
    unauthorized: () => {
      void promptKey(state.key ? t("key_refused") : t("key_needed"));
    },
  });
  fill(root, top, nav, main);
  window.addEventListener("hashchange", draw);
  onLang(draw);
  on("users", drawTop);
  on("admin", drawNav);
  on("user", draw);
  on("key", draw);
  on("data", () => currentPage().mount(main));
  draw();
  void connect();
}

start(document.getElementById("app")!);
