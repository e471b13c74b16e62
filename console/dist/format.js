function pad(n) {
    return n < 10 ? `0${n}` : String(n);
}
function parse(iso) {
    if (!iso)
        return null;
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? null : d;
}
export function day(iso) {
    const d = parse(iso);
    return d ? `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` : "";
}
export function dateTime(iso) {
    const d = parse(iso);
    return d ? `${day(iso)} ${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}
export function time(iso) {
    const d = parse(iso);
    return d ? `${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}
export function num(x, digits = 2) {
    return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–";
}
export function fromDateInput(value) {
    if (!value)
        return undefined;
    const d = new Date(`${value}T00:00:00`);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
export function fromDateTimeInput(value) {
    if (!value)
        return undefined;
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
export function toDateTimeInput(iso) {
    const d = parse(iso);
    return d ? `${day(iso)}T${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}
export function shortId(id) {
    return id ? `…${id.slice(-8)}` : "";
}
