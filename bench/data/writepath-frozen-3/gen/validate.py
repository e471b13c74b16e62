#!/usr/bin/env python3
"""Validate ../en.jsonl and ../zh.jsonl (standard library only).

Checks: JSON per line, required fields, id pattern with the b3 prefix, unique ids,
per-category counts, change-slot coverage, `at` timestamps (ISO-8601 UTC, strictly
increasing within a case), matcher shape, that matcher strings come from what the
user typed, and that every `dates[].valid_from` equals the date that FORMAT.md's
relative-time rules give for the message it comes from (computed here
independently of the generator).
"""
import datetime as dt
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COUNTS = {"new_fact": 16, "change": 18, "correction": 12, "paraphrase_duplicate": 10,
          "third_person": 12, "multi_clause": 10, "chitchat": 12, "relative_date": 9,
          "plan": 6, "reported_speech": 3, "pii": 2}
SLOTS = ["location", "job", "employer", "partner", "family", "pet", "diet", "budget",
         "amount", "schedule", "device", "health", "school", "language", "plan"]
TYPES = {"fact", "preference", "goal", "event", "skill", "opinion", "decision", "commitment"}
ID_RE = re.compile(r"^(en|zh)-(%s)-b3[a-z0-9]+-\d{2}$" % "|".join(COUNTS))
AT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")

# ---------------------------------------------------------------- date rules
EN_WD = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
         "saturday": 5, "sunday": 6}
EN_MONTH = {m: i + 1 for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december"])}
EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
ZH_DIG = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
          "七": 7, "八": 8, "九": 9}


def zh_num(s):
    if s.isdigit():
        return int(s)
    if s == "十":
        return 10
    if "十" in s:
        a, _, b = s.partition("十")
        return (ZH_DIG[a] if a else 1) * 10 + (ZH_DIG[b] if b else 0)
    return ZH_DIG[s]


def en_num(s):
    return int(s) if s.isdigit() else EN_NUM[s]


def monday(d):
    return d - dt.timedelta(days=d.weekday())


def first_of_month(y, m):
    while m < 1:
        m += 12
        y -= 1
    while m > 12:
        m -= 12
        y += 1
    return dt.date(y, m, 1)


def weekday_in_week(week_monday, wd):
    return week_monday + dt.timedelta(days=wd)


def on_or_after(d, wd):
    return d + dt.timedelta(days=(wd - d.weekday()) % 7)


def _en_rules():
    wd = "|".join(EN_WD)
    mon = "|".join(EN_MONTH)
    num = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    R = []
    R.append((r"\byesterday\b", lambda m, d: d - dt.timedelta(days=1)))
    R.append((r"\btomorrow\b", lambda m, d: d + dt.timedelta(days=1)))
    R.append((r"\blast (%s)\b" % wd, lambda m, d: weekday_in_week(monday(d) - dt.timedelta(days=7), EN_WD[m.group(1)])))
    R.append((r"\bnext (%s)\b" % wd, lambda m, d: weekday_in_week(monday(d) + dt.timedelta(days=7), EN_WD[m.group(1)])))
    R.append((r"\b(?:this |on )?(%s)\b" % wd, lambda m, d: on_or_after(d, EN_WD[m.group(1)])))
    R.append((r"\blast week\b", lambda m, d: monday(d) - dt.timedelta(days=7)))
    R.append((r"\bnext week\b", lambda m, d: monday(d) + dt.timedelta(days=7)))
    R.append((r"\bthis week\b", lambda m, d: monday(d)))
    R.append((r"\blast month\b", lambda m, d: first_of_month(d.year, d.month - 1)))
    R.append((r"\bnext month\b", lambda m, d: first_of_month(d.year, d.month + 1)))
    R.append((r"\blast year\b", lambda m, d: dt.date(d.year - 1, 1, 1)))
    R.append((r"\bnext year\b", lambda m, d: dt.date(d.year + 1, 1, 1)))
    R.append((r"\b%s days? ago\b" % num, lambda m, d: d - dt.timedelta(days=en_num(m.group(1)))))
    R.append((r"\bin %s days?\b" % num, lambda m, d: d + dt.timedelta(days=en_num(m.group(1)))))
    R.append((r"\b%s weeks? ago\b" % num, lambda m, d: d - dt.timedelta(days=7 * en_num(m.group(1)))))
    R.append((r"\b%s months? ago\b" % num, lambda m, d: first_of_month(d.year, d.month - en_num(m.group(1)))))
    R.append((r"\b(%s) (\d{1,2})(?:st|nd|rd|th)?\b" % mon, lambda m, d: dt.date(d.year, EN_MONTH[m.group(1)], int(m.group(2)))))
    R.append((r"\bin (%s)\b" % mon, lambda m, d: dt.date(d.year, EN_MONTH[m.group(1)], 1)))
    return [(re.compile(p, re.I), f) for p, f in R]


def _zh_rules():
    n = r"([0-9]+|[零一二两三四五六七八九十]+)"
    wk = r"(?:周|星期|礼拜)"
    wdc = r"([一二三四五六日天])"
    R = []
    R.append((r"大后天", lambda m, d: d + dt.timedelta(days=3)))
    R.append((r"大前天", lambda m, d: d - dt.timedelta(days=3)))
    R.append((r"前天", lambda m, d: d - dt.timedelta(days=2)))
    R.append((r"后天", lambda m, d: d + dt.timedelta(days=2)))
    R.append((r"昨天", lambda m, d: d - dt.timedelta(days=1)))
    R.append((r"明天", lambda m, d: d + dt.timedelta(days=1)))
    R.append((r"上个?%s%s" % (wk, wdc), lambda m, d: weekday_in_week(monday(d) - dt.timedelta(days=7), ZH_WD[m.group(1)])))
    R.append((r"下个?%s%s" % (wk, wdc), lambda m, d: weekday_in_week(monday(d) + dt.timedelta(days=7), ZH_WD[m.group(1)])))
    R.append((r"(?:这|本)?%s%s" % (wk, wdc), lambda m, d: on_or_after(d, ZH_WD[m.group(1)])))
    R.append((r"上个?%s" % wk, lambda m, d: monday(d) - dt.timedelta(days=7)))
    R.append((r"下个?%s" % wk, lambda m, d: monday(d) + dt.timedelta(days=7)))
    R.append((r"(?:这|本)%s" % wk, lambda m, d: monday(d)))
    R.append((r"上个?月", lambda m, d: first_of_month(d.year, d.month - 1)))
    R.append((r"下个?月", lambda m, d: first_of_month(d.year, d.month + 1)))
    R.append((r"去年", lambda m, d: dt.date(d.year - 1, 1, 1)))
    R.append((r"明年", lambda m, d: dt.date(d.year + 1, 1, 1)))
    R.append((n + r"天(?:以)?前", lambda m, d: d - dt.timedelta(days=zh_num(m.group(1)))))
    R.append((n + r"天(?:以)?后", lambda m, d: d + dt.timedelta(days=zh_num(m.group(1)))))
    R.append((n + r"(?:个)?(?:周|星期|礼拜)(?:以)?前", lambda m, d: d - dt.timedelta(days=7 * zh_num(m.group(1)))))
    R.append((n + r"个月(?:以)?前", lambda m, d: first_of_month(d.year, d.month - zh_num(m.group(1)))))
    R.append((n + r"月" + n + r"[号日]", lambda m, d: dt.date(d.year, zh_num(m.group(1)), zh_num(m.group(2)))))
    R.append((n + r"月(?!份?[0-9零一二两三四五六七八九十])", lambda m, d: dt.date(d.year, zh_num(m.group(1)), 1)))
    return [(re.compile(p), f) for p, f in R]


RULES = {"en": _en_rules(), "zh": _zh_rules()}


def resolve(text, at_day, lang):
    """All (expression, date) pairs found in text; earlier rules win on overlaps."""
    taken = []
    found = []
    for rx, fn in RULES[lang]:
        for m in rx.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            try:
                day = fn(m, at_day)
            except (KeyError, ValueError):
                continue
            taken.append((s, e))
            found.append((m.group(0), day))
    return found


# ---------------------------------------------------------------- checks
def matcher_errors(mt, where, text, need_source=True):
    errs = []
    if not isinstance(mt, dict):
        return ["%s: matcher is not an object" % where]
    if not (mt.get("all") or mt.get("any")):
        errs.append("%s: matcher needs all or any" % where)
    for k in ("all", "any", "none"):
        if k in mt and not (isinstance(mt[k], list) and all(isinstance(s, str) and s for s in mt[k])):
            errs.append("%s: %s must be a list of non-empty strings" % (where, k))
    if "type" in mt and not set(mt["type"]) <= TYPES:
        errs.append("%s: bad type %r" % (where, mt["type"]))
    if need_source:
        low = text.lower()
        for s in mt.get("all", []):
            if s.lower() not in low:
                errs.append("%s: all-string %r not in the user's text" % (where, s))
        if mt.get("any") and not any(s.lower() in low for s in mt["any"]):
            errs.append("%s: none of the any-strings %r is in the user's text" % (where, mt["any"]))
    return errs


def check_case(c, lang):
    errs = []
    cid = c.get("id", "?")
    for k in ("id", "lang", "category", "messages", "expect"):
        if k not in c:
            errs.append("%s: missing %s" % (cid, k))
    if errs:
        return errs
    m = ID_RE.match(cid)
    if not m:
        errs.append("%s: id does not match <lang>-<category>-b3<topic>-NN" % cid)
    elif m.group(1) != c["lang"] or m.group(2) != c["category"]:
        errs.append("%s: id disagrees with lang/category" % cid)
    if c["lang"] != lang:
        errs.append("%s: lang %s in %s file" % (cid, c["lang"], lang))
    if c["category"] not in COUNTS:
        errs.append("%s: unknown category" % cid)
    if c["category"] == "change":
        if c.get("slot") not in SLOTS:
            errs.append("%s: change case needs a valid slot" % cid)
    elif "slot" in c:
        errs.append("%s: slot only belongs on change cases" % cid)

    msgs = c["messages"]
    if not isinstance(msgs, list) or not msgs:
        return errs + ["%s: messages must be a non-empty list" % cid]
    prev = None
    for i, mm in enumerate(msgs):
        if not isinstance(mm.get("text"), str) or not mm["text"].strip():
            errs.append("%s: message %d has no text" % (cid, i))
        at = mm.get("at", "")
        if not AT_RE.match(at):
            errs.append("%s: message %d at %r is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SSZ)" % (cid, i, at))
            continue
        try:
            t = dt.datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            errs.append("%s: message %d at %r is not a real time" % (cid, i, at))
            continue
        if t.year != 2026:
            errs.append("%s: message %d not in 2026" % (cid, i))
        if prev is not None and t <= prev:
            errs.append("%s: at not increasing at message %d" % (cid, i))
        prev = t
        if mm.get("role", "user") not in ("user", "assistant"):
            errs.append("%s: bad role" % cid)
    text = "\n".join(mm.get("text", "") for mm in msgs if mm.get("role", "user") == "user")

    ex = c["expect"]
    known = {"active", "superseded", "absent", "count", "dates", "nothing", "turns", "queries"}
    if set(ex) - known:
        errs.append("%s: unknown expect keys %s" % (cid, sorted(set(ex) - known)))
    cat = c["category"]
    if cat == "chitchat":
        if ex.get("nothing") is not True:
            errs.append("%s: chitchat needs nothing: true" % cid)
        if set(ex) - {"nothing"}:
            errs.append("%s: chitchat should expect nothing else" % cid)
    elif not (ex.get("active") or ex.get("count")):
        errs.append("%s: non-chitchat case needs active or count" % cid)
    if cat in ("change", "correction"):
        if not ex.get("superseded"):
            errs.append("%s: %s needs superseded" % (cid, cat))
        if not ex.get("queries"):
            errs.append("%s: %s needs a query about the present" % (cid, cat))
    if cat == "paraphrase_duplicate" and not ex.get("count"):
        errs.append("%s: paraphrase_duplicate needs count" % cid)
    if cat == "relative_date" and not ex.get("dates"):
        errs.append("%s: relative_date needs dates" % cid)

    for k in ("active", "superseded"):
        for j, mt in enumerate(ex.get(k, [])):
            errs += matcher_errors(mt, "%s %s[%d]" % (cid, k, j), text)
    for j, mt in enumerate(ex.get("absent", [])):
        errs += matcher_errors(mt, "%s absent[%d]" % (cid, j), text, need_source=False)
    for j, mt in enumerate(ex.get("count", [])):
        errs += matcher_errors(mt, "%s count[%d]" % (cid, j), text)
        if not isinstance(mt.get("n"), int) or mt["n"] < 0:
            errs.append("%s count[%d]: needs integer n" % (cid, j))
    for j, qq in enumerate(ex.get("queries", [])):
        if not isinstance(qq.get("q"), str) or not qq["q"].strip():
            errs.append("%s queries[%d]: needs q" % (cid, j))
        errs += matcher_errors(qq.get("top"), "%s queries[%d].top" % (cid, j), text)
        if "k" in qq and (not isinstance(qq["k"], int) or qq["k"] < 1):
            errs.append("%s queries[%d]: bad k" % (cid, j))
    if cat in ("change", "correction"):
        # the top of the first query must carry the new value (shares a string with active)
        act = {s.lower() for mt in ex.get("active", []) for s in mt.get("all", []) + mt.get("any", [])}
        top = ex["queries"][0]["top"] if ex.get("queries") else {}
        tops = {s.lower() for s in top.get("all", []) + top.get("any", [])}
        if not any(a in t or t in a for a in act for t in tops):
            errs.append("%s: query top shares no string with the new value" % cid)

    # dates: recompute valid_from from the source message
    for j, d in enumerate(ex.get("dates", [])):
        where = "%s dates[%d]" % (cid, j)
        errs += matcher_errors(d, where, text)
        vf = d.get("valid_from")
        try:
            dt.date.fromisoformat(vf)
        except (TypeError, ValueError):
            errs.append("%s: valid_from %r is not YYYY-MM-DD" % (where, vf))
            continue
        cands = []
        for mm in msgs:
            day = dt.datetime.strptime(mm["at"], "%Y-%m-%dT%H:%M:%SZ").date()
            hits = resolve(mm["text"], day, c["lang"])
            if hits:
                cands.append((mm, hits))
        if not cands:
            errs.append("%s: no message holds a relative/absolute time expression" % where)
            continue
        keys = [s.lower() for s in d.get("all", []) + d.get("any", [])]
        if len(cands) > 1:
            narrowed = [x for x in cands if any(k in x[0]["text"].lower() for k in keys)]
            cands = narrowed or cands
        if len(cands) != 1:
            errs.append("%s: cannot tell which message the date comes from" % where)
            continue
        mm, hits = cands[0]
        days = sorted({h[1].isoformat() for h in hits})
        if len(days) != 1:
            errs.append("%s: source message is ambiguous, resolves to %s (%s)" % (where, days, hits))
        elif days[0] != vf:
            errs.append("%s: valid_from %s but %r said at %s resolves to %s"
                        % (where, vf, hits[0][0], mm["at"], days[0]))
    return errs


def main():
    all_errs = []
    seen = set()
    report = {}
    for lang in ("en", "zh"):
        path = os.path.join(ROOT, "%s.jsonl" % lang)
        counts = {k: 0 for k in COUNTS}
        slots = {}
        n = 0
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                if not line.strip():
                    all_errs.append("%s:%d: blank line" % (path, ln))
                    continue
                try:
                    c = json.loads(line)
                except json.JSONDecodeError as e:
                    all_errs.append("%s:%d: invalid JSON: %s" % (path, ln, e))
                    continue
                n += 1
                all_errs += check_case(c, lang)
                cid = c.get("id")
                if cid in seen:
                    all_errs.append("%s: duplicate id" % cid)
                seen.add(cid)
                if c.get("category") in counts:
                    counts[c["category"]] += 1
                if c.get("category") == "change":
                    slots[c.get("slot")] = slots.get(c.get("slot"), 0) + 1
        for k, want in COUNTS.items():
            if counts[k] != want:
                all_errs.append("%s: %s has %d cases, want %d" % (lang, k, counts[k], want))
        if n != sum(COUNTS.values()):
            all_errs.append("%s: %d cases, want %d" % (lang, n, sum(COUNTS.values())))
        missing = [s for s in SLOTS if not slots.get(s)]
        if missing:
            all_errs.append("%s: change slots not covered: %s" % (lang, missing))
        report[lang] = (n, counts, slots)

    for lang, (n, counts, slots) in report.items():
        print("%s: %d cases  %s" % (lang, n, " ".join("%s=%d" % kv for kv in counts.items())))
        print("    change slots: %s" % " ".join("%s=%d" % (s, slots.get(s, 0)) for s in SLOTS))
    if all_errs:
        print("FAIL: %d problem(s)" % len(all_errs))
        for e in all_errs:
            print("  - " + e)
        return 1
    print("OK: all checks passed (%d ids unique, b3 prefix, dates recomputed)" % len(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
