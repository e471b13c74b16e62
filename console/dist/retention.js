const DAY_MS = 86_400_000;
const HALF_LIFE_DAYS = {
    message: 30, event: 60, commitment: 30, goal: 90, opinion: 120, preference: 180,
    decision: 180, fact: 365, summary: 365, skill: 365, knowledge: 0, profile: 0,
};
const DEFAULT_HALF_LIFE = 180;
const MAX_REINFORCEMENT = 4;
const CRITICAL_IMPORTANCE = 0.9;
const CRITICAL_FLOOR = 0.5;
export const ARCHIVE_BELOW = 0.05;
export function isCritical(m) {
    return (m.importance ?? 0) >= CRITICAL_IMPORTANCE || (m.tags ?? []).includes("critical");
}
function ms(iso) {
    const t = iso ? Date.parse(iso) : NaN;
    return Number.isNaN(t) ? 0 : t;
}
function lastUsed(m) {
    return Math.max(ms(m.created_at), ms(m.updated_at), ms(m.last_accessed));
}
function halfLifeDays(m) {
    const base = HALF_LIFE_DAYS[m.type ?? ""] ?? DEFAULT_HALF_LIFE;
    if (base <= 0)
        return 0;
    const uses = Math.max(0, m.access_count ?? 0);
    return base * Math.min(Math.max(1 + Math.log1p(uses), 1), MAX_REINFORCEMENT);
}
function strength(m) {
    return 0.5 + 0.5 * Math.min(Math.max(m.importance ?? 0.5, 0), 1);
}
export function retention(m, now = Date.now()) {
    const s = strength(m);
    const hl = halfLifeDays(m);
    let r = s;
    if (hl > 0)
        r = s * Math.pow(0.5, Math.max(0, now - lastUsed(m)) / DAY_MS / hl);
    if (isCritical(m))
        r = Math.max(r, Math.min(CRITICAL_FLOOR, s));
    return Math.min(Math.max(r, 0), 1);
}
export function fadesAt(m) {
    if (isCritical(m))
        return null;
    const s = strength(m);
    if (s < ARCHIVE_BELOW)
        return new Date(lastUsed(m));
    const hl = halfLifeDays(m);
    if (hl <= 0)
        return null;
    return new Date(lastUsed(m) + hl * Math.log2(s / ARCHIVE_BELOW) * DAY_MS);
}
