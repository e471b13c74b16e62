import { en } from "./strings_en.js";
import { zh } from "./strings_zh.js";
const LANG = "engram.console.lang";
const tables = { en, zh };
const listeners = new Set();
function initial() {
    try {
        const saved = localStorage.getItem(LANG);
        if (saved === "en" || saved === "zh")
            return saved;
    }
    catch {
    }
    return (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en";
}
let current = initial();
export function lang() {
    return current;
}
export function setLang(next) {
    if (next === current)
        return;
    current = next;
    try {
        localStorage.setItem(LANG, next);
    }
    catch {
    }
    document.documentElement.lang = next === "zh" ? "zh-CN" : "en";
    for (const fn of listeners)
        fn();
}
export function onLang(fn) {
    listeners.add(fn);
}
export function t(key, vars) {
    let s = tables[current][key] ?? en[key];
    if (vars) {
        for (const [name, value] of Object.entries(vars))
            s = s.split(`{${name}}`).join(String(value));
    }
    return s;
}
export function label(group, value) {
    if (!value)
        return "";
    const key = `${group}_${value}`;
    return key in en ? t(key) : value;
}
document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
