// How times and numbers read on screen. Times are shown in the browser's time zone; the API
// speaks UTC ISO-8601.

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function parse(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** 2026-03-02 (local day), or "" for none. */
export function day(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` : "";
}

/** 2026-03-02 09:00 (local), or "" for none. */
export function dateTime(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? `${day(iso)} ${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}

/** 09:00 (local). */
export function time(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? `${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}

/** A score or share: 0.842 → "0.84". */
export function num(x: number | undefined | null, digits = 2): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–";
}

/** An ISO time from a <input type="date"> value (start of that local day), or undefined. */
export function fromDateInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(`${value}T00:00:00`);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** An ISO time from a <input type="datetime-local"> value, or undefined. */
export function fromDateTimeInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The value a <input type="datetime-local"> shows for an ISO time. */
export function toDateTimeInput(iso: string | null | undefined): string {
  const d = parse(iso);
  return d ? `${day(iso)}T${pad(d.getHours())}:${pad(d.getMinutes())}` : "";
}

/** A short id for tables: the last 8 characters of a UUIDv7 differ between items. */
export function shortId(id: string | undefined): string {
  return id ? `…${id.slice(-8)}` : "";
}
