"""Validator for the blind-4 set (standard library only).

Usage: python3 gen/validate.py [en.jsonl zh.jsonl]

Checks: valid JSON per line, required fields, unique ids with the b4 prefix,
per-category counts, change-slot coverage, ISO-8601 UTC `at` strictly increasing
within a case, every matcher string occurring in what the user typed, and every
`valid_from` in `dates` recomputed here from the source message by FORMAT.md's rules.
"""
import datetime as dt
import json
import os
import re
import sys

CATEGORY_COUNTS = {
    "new_fact": 16, "change": 18, "correction": 12, "paraphrase_duplicate": 10,
    "third_person": 12, "multi_clause": 10, "chitchat": 12, "relative_date": 9,
    "plan": 6, "reported_speech": 3, "pii": 2,
}
SLOTS = ["location", "job", "employer", "partner", "family", "pet", "diet", "budget",
         "amount", "schedule", "device", "health", "school", "language", "plan"]
EXPECT_KEYS = {"active", "superseded", "absent", "count", "dates", "nothing", "turns", "queries"}
MATCHER_KEYS = {"all", "any", "none", "type", "min_importance"}
TYPES = {"fact", "preference", "goal", "event", "skill", "opinion", "decision", "commitment"}
AT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
WRITING_DAY = dt.date(2026, 12, 6)

# ------------------------------------------------------------------ date rules
EN_WD = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
EN_MONTHS = {}
for i, names in enumerate([("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
                           ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
                           ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
                           ("december", "dec")], start=1):
    for n in names:
        EN_MONTHS[n] = i
EN_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a": 1, "an": 1}
ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
ZH_DIG = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
          "八": 8, "九": 9}


def monday(d):
    return d - dt.timedelta(days=d.weekday())


def first_of_month_shift(d, k):
    m = d.month - 1 + k
    return dt.date(d.year + m // 12, m % 12 + 1, 1)


def on_or_after(d, wd):
    return d + dt.timedelta(days=(wd - d.weekday()) % 7)


def en_int(s):
    s = s.lower()
    return int(s) if s.isdigit() else EN_NUM[s]


def zh_int(s):
    if s.isdigit():
        return int(s)
    if s == "十":
        return 10
    if "十" in s:
        a, b = s.split("十", 1)
        return (ZH_DIG[a] if a else 1) * 10 + (ZH_DIG[b] if b else 0)
    return ZH_DIG[s]


def _en_rules(d):
    wd = "|".join(EN_WD)
    mon = "|".join(sorted(EN_MONTHS, key=len, reverse=True))
    num = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a|an)"
    return [
        (r"\byesterday\b", lambda m: d - dt.timedelta(days=1)),
        (r"\btomorrow\b", lambda m: d + dt.timedelta(days=1)),
        (r"\blast week\b", lambda m: monday(d) - dt.timedelta(days=7)),
        (r"\bnext week\b", lambda m: monday(d) + dt.timedelta(days=7)),
        (r"\bthis week\b", lambda m: monday(d)),
        (r"\blast (%s)\b" % wd, lambda m: monday(d) - dt.timedelta(days=7 - EN_WD.index(m.group(1)))),
        (r"\bnext (%s)\b" % wd, lambda m: monday(d) + dt.timedelta(days=7 + EN_WD.index(m.group(1)))),
        (r"\b(?:on|this) (%s)\b" % wd, lambda m: on_or_after(d, EN_WD.index(m.group(1)))),
        (r"\blast month\b", lambda m: first_of_month_shift(d, -1)),
        (r"\bnext month\b", lambda m: first_of_month_shift(d, 1)),
        (r"\blast year\b", lambda m: dt.date(d.year - 1, 1, 1)),
        (r"\bnext year\b", lambda m: dt.date(d.year + 1, 1, 1)),
        (r"\b%s days? ago\b" % num, lambda m: d - dt.timedelta(days=en_int(m.group(1)))),
        (r"\b%s weeks? ago\b" % num, lambda m: d - dt.timedelta(days=7 * en_int(m.group(1)))),
        (r"\b%s months? ago\b" % num, lambda m: first_of_month_shift(d, -en_int(m.group(1)))),
        (r"\bin %s days?\b" % num, lambda m: d + dt.timedelta(days=en_int(m.group(1)))),
        (r"\bin %s weeks?\b" % num, lambda m: d + dt.timedelta(days=7 * en_int(m.group(1)))),
        (r"\b(%s)\.? (\d{1,2})(?:st|nd|rd|th)?\b" % mon,
         lambda m: dt.date(d.year, EN_MONTHS[m.group(1)], int(m.group(2)))),
        (r"\bin (%s)\b" % mon, lambda m: dt.date(d.year, EN_MONTHS[m.group(1)], 1)),
    ]


def _zh_rules(d):
    n = r"(\d+|[一二两三四五六七八九十]+)"
    w = r"(?:周|星期|礼拜)"
    return [
        (r"大后天", lambda m: d + dt.timedelta(days=3)),
        (r"后天", lambda m: d + dt.timedelta(days=2)),
        (r"前天", lambda m: d - dt.timedelta(days=2)),
        (r"昨天", lambda m: d - dt.timedelta(days=1)),
        (r"明天", lambda m: d + dt.timedelta(days=1)),
        (r"上个?%s([一二三四五六日天])" % w, lambda m: monday(d) - dt.timedelta(days=7 - ZH_WD[m.group(1)])),
        (r"下个?%s([一二三四五六日天])" % w, lambda m: monday(d) + dt.timedelta(days=7 + ZH_WD[m.group(1)])),
        (r"(?:这|本)个?%s([一二三四五六日天])" % w, lambda m: on_or_after(d, ZH_WD[m.group(1)])),
        (r"%s([一二三四五六日天])" % w, lambda m: on_or_after(d, ZH_WD[m.group(1)])),
        (r"上个?%s" % w, lambda m: monday(d) - dt.timedelta(days=7)),
        (r"下个?%s" % w, lambda m: monday(d) + dt.timedelta(days=7)),
        (r"(?:这|本)个?%s" % w, lambda m: monday(d)),
        (r"上个?月", lambda m: first_of_month_shift(d, -1)),
        (r"下个?月", lambda m: first_of_month_shift(d, 1)),
        (r"去年", lambda m: dt.date(d.year - 1, 1, 1)),
        (r"明年", lambda m: dt.date(d.year + 1, 1, 1)),
        (r"%s天前" % n, lambda m: d - dt.timedelta(days=zh_int(m.group(1)))),
        (r"%s天后" % n, lambda m: d + dt.timedelta(days=zh_int(m.group(1)))),
        (r"%s个?(?:周|星期|礼拜)前" % n, lambda m: d - dt.timedelta(days=7 * zh_int(m.group(1)))),
        (r"%s个?(?:周|星期|礼拜)后" % n, lambda m: d + dt.timedelta(days=7 * zh_int(m.group(1)))),
        (r"%s个月前" % n, lambda m: first_of_month_shift(d, -zh_int(m.group(1)))),
        (r"%s月%s[号日]" % (n, n), lambda m: dt.date(d.year, zh_int(m.group(1)), zh_int(m.group(2)))),
        (r"%s月(?!份?[号日])" % n, lambda m: dt.date(d.year, zh_int(m.group(1)), 1)),
    ]


def resolve(text, at_day):
    """Return (date, [matched phrases]). No time phrase -> the day the message was said."""
    low = text.lower()
    found = []
    for rules in (_en_rules(at_day), _zh_rules(at_day)):
        for pat, fn in rules:
            for m in re.finditer(pat, low):
                try:
                    found.append((m.start(), m.end(), fn(m), m.group(0)))
                except (ValueError, KeyError):
                    pass
    found.sort(key=lambda x: (-(x[1] - x[0]), x[0]))
    chosen = []
    for s, e, day, phrase in found:
        if all(e <= cs or s >= ce for cs, ce, _, _ in chosen):
            chosen.append((s, e, day, phrase))
    if not chosen:
        return at_day, []
    days = {c[2] for c in chosen}
    if len(days) > 1:
        return None, [c[3] for c in chosen]
    return days.pop(), [c[3] for c in chosen]


# ------------------------------------------------------------------ checks
def parse_at(s):
    return dt.datetime.strptime(s.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.timezone.utc)


def validate(paths):
    errors = []
    ids = set()
    summary = {}

    def err(cid, msg):
        errors.append("%s: %s" % (cid, msg))

    for path in paths:
        lang = os.path.basename(path).split(".")[0]
        counts = {c: 0 for c in CATEGORY_COUNTS}
        slots = set()
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for ln, line in enumerate(lines, 1):
            where = "%s:%d" % (os.path.basename(path), ln)
            try:
                c = json.loads(line)
            except ValueError as e:
                err(where, "invalid JSON (%s)" % e)
                continue
            if not isinstance(c, dict):
                err(where, "line is not an object")
                continue
            for k in ("id", "lang", "category", "messages", "expect"):
                if k not in c:
                    err(where, "missing field %s" % k)
            if any(k not in c for k in ("id", "lang", "category", "messages", "expect")):
                continue
            extra = set(c) - {"id", "lang", "category", "slot", "messages", "expect", "added_after_failure"}
            if extra:
                err(c["id"], "unknown fields %s" % sorted(extra))
            cid, cat = c["id"], c["category"]
            if c["lang"] != lang:
                err(cid, "lang %r does not match file %s" % (c["lang"], path))
            if cat not in CATEGORY_COUNTS:
                err(cid, "unknown category %r" % cat)
                continue
            counts[cat] += 1
            m = re.match(r"^(en|zh)-([a-z_]+)-b4([a-z0-9]+)-(\d{2})$", cid)
            if not m:
                err(cid, "id does not match <lang>-<category>-b4<topic>-NN")
            elif m.group(1) != c["lang"] or m.group(2) != cat:
                err(cid, "id lang/category disagree with fields")
            if cid in ids:
                err(cid, "duplicate id")
            ids.add(cid)
            if c.get("added_after_failure", False) is not False:
                err(cid, "added_after_failure must be absent/false in a blind set")
            # slot
            if cat == "change":
                if c.get("slot") not in SLOTS:
                    err(cid, "change case needs a valid slot")
                else:
                    slots.add(c["slot"])
            elif "slot" in c:
                err(cid, "slot only allowed on change cases")
            # messages
            msgs = c["messages"]
            if not isinstance(msgs, list) or not msgs:
                err(cid, "messages must be a non-empty list")
                continue
            prev = None
            user_text = []
            for i, msg in enumerate(msgs):
                if not isinstance(msg, dict) or not isinstance(msg.get("text"), str) or not msg["text"].strip():
                    err(cid, "message %d needs non-empty text" % i)
                    continue
                if set(msg) - {"text", "at", "role"}:
                    err(cid, "message %d has unknown keys" % i)
                role = msg.get("role", "user")
                if role not in ("user", "assistant"):
                    err(cid, "message %d bad role" % i)
                at = msg.get("at")
                if not isinstance(at, str) or not AT_RE.match(at):
                    err(cid, "message %d `at` not ISO-8601 UTC: %r" % (i, at))
                    continue
                try:
                    t = parse_at(at)
                except ValueError:
                    err(cid, "message %d `at` not a real time" % i)
                    continue
                if t.year != 2026 or t.date() > WRITING_DAY:
                    err(cid, "message %d `at` outside 2026 up to the writing day" % i)
                if prev is not None and t <= prev:
                    err(cid, "`at` not strictly increasing at message %d" % i)
                prev = t
                if role == "user":
                    user_text.append(msg["text"])
            typed = "\n".join(user_text).lower()
            if lang == "zh" and not re.search(r"[\u4e00-\u9fff]", typed):
                err(cid, "zh case without Chinese text")
            if lang == "en" and re.search(r"[\u4e00-\u9fff]", typed):
                err(cid, "en case with Chinese text")

            exp = c["expect"]
            if not isinstance(exp, dict) or not exp:
                err(cid, "expect must be a non-empty object")
                continue
            if set(exp) - EXPECT_KEYS:
                err(cid, "unknown expect keys %s" % sorted(set(exp) - EXPECT_KEYS))

            def check_matcher(mt, label, require=True):
                if not isinstance(mt, dict):
                    err(cid, "%s: matcher must be an object" % label)
                    return
                bad = set(mt) - MATCHER_KEYS - ({"n"} if label.startswith("count") else set()) \
                    - ({"valid_from"} if label.startswith("dates") else set())
                if bad:
                    err(cid, "%s: unknown matcher keys %s" % (label, sorted(bad)))
                if require and not (mt.get("all") or mt.get("any")):
                    err(cid, "%s: matcher needs all or any" % label)
                for key in ("all", "any", "none"):
                    if key in mt:
                        if not isinstance(mt[key], list) or not all(isinstance(s, str) and s.strip() for s in mt[key]):
                            err(cid, "%s.%s must be a list of non-empty strings" % (label, key))
                            continue
                        for s in mt[key]:
                            if s.lower() not in typed:
                                err(cid, "%s.%s string %r not in what the user typed" % (label, key, s))
                if "type" in mt and (not isinstance(mt["type"], list) or set(mt["type"]) - TYPES):
                    err(cid, "%s: bad type list" % label)

            for key in ("active", "superseded", "absent"):
                if key in exp:
                    if not isinstance(exp[key], list) or not exp[key]:
                        err(cid, "%s must be a non-empty list" % key)
                        continue
                    for j, mt in enumerate(exp[key]):
                        check_matcher(mt, "%s[%d]" % (key, j))
            for j, mt in enumerate(exp.get("count", [])):
                check_matcher(mt, "count[%d]" % j)
                if not isinstance(mt.get("n"), int) or mt["n"] < 0:
                    err(cid, "count[%d] needs integer n" % j)
            for j, q in enumerate(exp.get("queries", [])):
                if not isinstance(q, dict) or not isinstance(q.get("q"), str) or not q["q"].strip():
                    err(cid, "queries[%d] needs q" % j)
                    continue
                if set(q) - {"q", "top", "k", "turn_ok"}:
                    err(cid, "queries[%d] unknown keys" % j)
                check_matcher(q.get("top"), "queries[%d].top" % j)
                if "k" in q and (not isinstance(q["k"], int) or q["k"] < 1):
                    err(cid, "queries[%d] bad k" % j)
            for j, dm in enumerate(exp.get("dates", [])):
                check_matcher(dm, "dates[%d]" % j)
                vf = dm.get("valid_from") if isinstance(dm, dict) else None
                if not isinstance(vf, str) or not DAY_RE.match(vf):
                    err(cid, "dates[%d] valid_from must be YYYY-MM-DD" % j)
                    continue
                keys = [s.lower() for s in dm.get("all", [])]
                src = [mm for mm in msgs if mm.get("role", "user") == "user"
                       and all(k in mm["text"].lower() for k in keys)]
                if not src:
                    err(cid, "dates[%d]: no user message contains %r" % (j, keys))
                    continue
                source = src[-1]
                day, phrases = resolve(source["text"], parse_at(source["at"]).date())
                if day is None:
                    err(cid, "dates[%d]: ambiguous time phrases %r" % (j, phrases))
                elif day.isoformat() != vf:
                    err(cid, "dates[%d]: valid_from %s but rules give %s (from %r)" % (j, vf, day, phrases))
            if "turns" in exp and (not isinstance(exp["turns"], int) or exp["turns"] < 0):
                err(cid, "turns must be a non-negative integer")

            # category-specific
            if cat == "chitchat":
                if exp != {"nothing": True}:
                    err(cid, "chitchat expect must be exactly {\"nothing\": true}")
            elif "nothing" in exp:
                err(cid, "nothing only allowed on chitchat")
            if cat in ("change", "correction"):
                for key in ("active", "superseded", "queries"):
                    if not exp.get(key):
                        err(cid, "%s case needs %s" % (cat, key))
                if len(msgs) < 2:
                    err(cid, "%s case needs at least two messages" % cat)
            if cat == "relative_date" and not exp.get("dates"):
                err(cid, "relative_date case needs dates")
            if cat == "relative_date":
                for dm in exp.get("dates", []):
                    keys = [s.lower() for s in dm.get("all", [])]
                    src = [mm for mm in msgs if all(k in mm["text"].lower() for k in keys)]
                    if src and not resolve(src[-1]["text"], parse_at(src[-1]["at"]).date())[1]:
                        err(cid, "relative_date source message has no time phrase")
            if cat == "paraphrase_duplicate":
                if len(msgs) < 2 or not any(cm.get("n") == 1 for cm in exp.get("count", [])):
                    err(cid, "paraphrase case needs 2+ messages and a count n=1")
            if cat == "multi_clause" and len(exp.get("active", [])) < 2:
                err(cid, "multi_clause needs 2+ active matchers")
            if cat not in ("chitchat",) and not exp.get("active"):
                err(cid, "needs active matchers")

        for cat, n in CATEGORY_COUNTS.items():
            if counts[cat] != n:
                err(path, "category %s has %d cases, want %d" % (cat, counts[cat], n))
        missing = [s for s in SLOTS if s not in slots]
        if missing:
            err(path, "change slots not covered: %s" % missing)
        summary[lang] = (sum(counts.values()), counts)
    return errors, summary


def selftest():
    """A few fixed points of the date rules, so the resolver itself is checked."""
    D = dt.date
    cases = [
        ("yesterday", D(2026, 3, 11), D(2026, 3, 10)),
        ("last friday", D(2026, 5, 6), D(2026, 5, 1)),
        ("next friday", D(2026, 6, 9), D(2026, 6, 19)),
        ("on saturday", D(2026, 4, 25), D(2026, 4, 25)),
        ("three months ago", D(2026, 9, 10), D(2026, 6, 1)),
        ("last week", D(2026, 1, 4), D(2025, 12, 22)),
        ("in may", D(2026, 9, 14), D(2026, 5, 1)),
        ("大后天", D(2026, 4, 7), D(2026, 4, 10)),
        ("上周日", D(2026, 5, 13), D(2026, 5, 10)),
        ("两周前", D(2026, 8, 19), D(2026, 8, 5)),
        ("十二月三号", D(2026, 1, 1), D(2026, 12, 3)),
        ("上个月", D(2026, 1, 15), D(2025, 12, 1)),
        ("周五", D(2026, 5, 15), D(2026, 5, 15)),
    ]
    bad = []
    for text, at, want in cases:
        got, _ = resolve(text, at)
        if got != want:
            bad.append("selftest %r @%s: got %s want %s" % (text, at, got, want))
    return bad


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sys.argv[1:] or [os.path.join(here, "en.jsonl"), os.path.join(here, "zh.jsonl")]
    errors = selftest()
    e2, summary = validate(paths)
    errors += e2
    for e in errors:
        print("ERROR", e)
    for lang, (total, counts) in sorted(summary.items()):
        print("%s: %d cases  %s" % (lang, total, " ".join("%s=%d" % kv for kv in counts.items())))
    if errors:
        print("FAIL: %d error(s)" % len(errors))
        sys.exit(1)
    print("OK: %d cases in %d files, all checks passed" % (sum(t for t, _ in summary.values()), len(paths)))


if __name__ == "__main__":
    main()
