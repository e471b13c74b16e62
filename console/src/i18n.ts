// Interface language: English or Chinese, switchable at any time; the choice is kept in
// localStorage (it is not sensitive, and it should outlive the tab, unlike the key). The first
// visit follows the browser's language. Strings live one file per language (strings_en.ts,
// strings_zh.ts); zh must have every key en has, or the build fails.
import { en, type Strings } from "./strings_en.js";
import { zh } from "./strings_zh.js";

export type Lang = "en" | "zh";
export type Key = keyof Strings;

const LANG = "engram.console.lang";
const tables: Record<Lang, Strings> = { en, zh };
const listeners = new Set<() => void>();

function initial(): Lang {
  try {
    const saved = localStorage.getItem(LANG);
    if (saved === "en" || saved === "zh") return saved;
  } catch {
    // storage disabled: fall through to the browser's language
  }
  return (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en";
}

let current: Lang = initial();

export function lang(): Lang {
  return current;
}

export function setLang(next: Lang): void {
  if (next === current) return;
  current = next;
  try {
    localStorage.setItem(LANG, next);
  } catch {
    // see initial()
  }
  document.documentElement.lang = next === "zh" ? "zh-CN" : "en";
  for (const fn of listeners) fn();
}

export function onLang(fn: () => void): void {
  listeners.add(fn);
}

/** The string for `key` in the current language, with {name} placeholders filled in. */
export function t(key: Key, vars?: Record<string, string | number>): string {
  let s: string = tables[current][key] ?? en[key];
  if (vars) {
    for (const [name, value] of Object.entries(vars)) s = s.split(`{${name}}`).join(String(value));
  }
  return s;
}

/**
 * A label for an API enum value (a type, tier, status, event, profile section, action), or the
 * value itself when the table has none: a value added to the API later still shows.
 */
export function label(group: string, value: string | undefined): string {
  if (!value) return "";
  const key = `${group}_${value}` as Key;
  return key in en ? t(key) : value;
}

document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
