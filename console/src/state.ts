// What the console knows across pages: the API key, the selected user, the users of the key's
// tenant, and whether the key may administer. The key lives in sessionStorage (this tab only,
// gone when it closes) and never in localStorage; the language is the one setting kept for good
// (i18n.ts).
import type { UserSummary } from "engram-client";

const KEY = "engram.console.key";
const USER = "engram.console.user";

export type Topic = "key" | "user" | "users" | "admin" | "data";

const listeners = new Map<Topic, Set<() => void>>();

export function on(topic: Topic, fn: () => void): void {
  if (!listeners.has(topic)) listeners.set(topic, new Set());
  listeners.get(topic)!.add(fn);
}

function emit(topic: Topic): void {
  for (const fn of listeners.get(topic) ?? []) fn();
}

function stored(name: string): string {
  try {
    return sessionStorage.getItem(name) ?? "";
  } catch {
    return ""; // storage disabled: the console still works, it just forgets on reload
  }
}

function store(name: string, value: string): void {
  try {
    if (value) sessionStorage.setItem(name, value);
    else sessionStorage.removeItem(name);
  } catch {
    // see stored()
  }
}

export const state = {
  key: stored(KEY),
  user: stored(USER),
  users: [] as UserSummary[],
  /** null: not known yet; the Admin page finds out (true: the server took an admin call). */
  admin: null as boolean | null,
};

/**
 * A new key is another tenant, possibly: everything read with the old one is dropped (the user,
 * the users, admin rights) so nothing of one tenant stays on screen under another's key.
 */
export function setKey(key: string): void {
  state.key = key.trim();
  store(KEY, state.key);
  state.users = [];
  state.admin = null;
  setUser("");
  emit("key");
}

export function setUser(user: string): void {
  if (user === state.user) return;
  state.user = user;
  store(USER, user);
  emit("user");
}

export function setUsers(users: UserSummary[]): void {
  state.users = users;
  emit("users");
}

export function setAdmin(admin: boolean): void {
  state.admin = admin;
  emit("admin");
}

/**
 * Identifies what a page's cached data was read under: a page drops its cache when the key or
 * the user changed since (the same user id in another tenant is another person).
 */
export function scopeToken(): string {
  return `${state.key}\n${state.user}`;
}

/** A memory was changed or deleted: pages showing memories read them again. */
export function dataChanged(): void {
  emit("data");
}
