#!/usr/bin/env python3
"""Validate the writepath-frozen-10 blind test set (en.jsonl, zh.jsonl).

Python 3 standard library only. Usage:
    python3 gen/validate.py            # validates the files next to gen/
    python3 gen/validate.py DIR        # validates DIR/en.jsonl and DIR/zh.jsonl

Exit status 0 when every check passes, 1 otherwise.
"""
import json
import os
import re
import sys
from collections import Counter, defaultdict
from datetime import date, datetime

LANGS = ("en", "zh")

CATEGORY_COUNTS = {
    "new_fact": 16,
    "change": 18,
    "correction": 12,
    "paraphrase_duplicate": 10,
    "third_person": 12,
    "multi_clause": 10,
    "chitchat": 12,
    "relative_date": 9,
    "plan": 6,
    "reported_speech": 3,
    "pii": 2,
}
CASES_PER_LANG = sum(CATEGORY_COUNTS.values())  # 110

SLOTS = ("location", "job", "employer", "partner", "family", "pet", "diet", "budget",
         "amount", "schedule", "device", "health", "school", "language", "plan",
         "hobby", "vehicle")

CASE_KEYS_REQUIRED = {"id", "lang", "category", "messages", "expect"}
CASE_KEYS_ALLOWED = CASE_KEYS_REQUIRED | {"slot", "added_after_failure"}
EXPECT_KEYS = {"active", "superseded", "absent", "count", "dates", "nothing", "turns", "queries"}
MATCHER_KEYS = {"all", "any", "none", "type", "min_importance"}
MEMORY_TYPES = {"fact", "preference", "goal", "event", "skill", "opinion", "decision", "commitment"}
MESSAGE_ROLES = {"user", "assistant"}

ID_RE = re.compile(r"^(en|zh)-(" + "|".join(sorted(CATEGORY_COUNTS, key=len, reverse=True))
                   + r")-b10([a-z0-9]+)-(\d{2})$")
AT_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$")
DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
HOUR_WINDOW = {"en": (9, 21), "zh": (0, 15)}

# Present-tense check for change/correction queries (heuristic).
EN_PAST_RE = re.compile(r"\b(was|were|did|used to|previously|originally|formerly|back then|before|had)\b")
EN_PRESENT_RE = re.compile(r"(\b(is|am|are|do|does|now|currently|current|these days|still)\b|'s\b|'re\b|'m\b)")
ZH_PAST_MARKERS = ("以前", "之前", "原来", "曾经", "过去", "当初", "原先", "那时", "从前")


class Report:
    def __init__(self):
        self.errors = []

    def err(self, where, msg):
        self.errors.append(f"{where}: {msg}")


def is_str_list(v):
    return isinstance(v, list) and len(v) > 0 and all(isinstance(s, str) and s.strip() for s in v)


def check_matcher(rep, where, m, user_text_lower, extra_keys=()):
    """Validate one matcher dict; return nothing, record errors."""
    if not isinstance(m, dict):
        rep.err(where, "matcher is not an object")
        return
    unknown = set(m) - MATCHER_KEYS - set(extra_keys)
    if unknown:
        rep.err(where, f"unknown matcher keys {sorted(unknown)}")
    if "all" not in m and "any" not in m:
        rep.err(where, "matcher needs 'all' or 'any'")
    for key in ("all", "any", "none"):
        if key in m:
            if not is_str_list(m[key]):
                rep.err(where, f"'{key}' must be a non-empty list of non-empty strings")
                continue
            for s in m[key]:
                if s.lower() not in user_text_lower:
                    rep.err(where, f"{key} string {s!r} does not occur in the user's text")
    if "type" in m:
        if not is_str_list(m["type"]) or not set(m["type"]) <= MEMORY_TYPES:
            rep.err(where, f"'type' must be a list drawn from {sorted(MEMORY_TYPES)}")
    if "min_importance" in m:
        v = m["min_importance"]
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
            rep.err(where, "'min_importance' must be a number in [0, 1]")


def query_is_present_tense(q, lang):
    ql = q.lower().replace("\u2019", "'")
    if lang == "en":
        return not EN_PAST_RE.search(ql) and bool(EN_PRESENT_RE.search(ql))
    return not any(mk in q for mk in ZH_PAST_MARKERS)


def check_case(rep, case, file_lang, where):
    if not isinstance(case, dict):
        rep.err(where, "line is not a JSON object")
        return None
    missing = CASE_KEYS_REQUIRED - set(case)
    if missing:
        rep.err(where, f"missing fields {sorted(missing)}")
        return None
    unknown = set(case) - CASE_KEYS_ALLOWED
    if unknown:
        rep.err(where, f"unknown fields {sorted(unknown)}")
    cid = case["id"]
    where = f"{where} [{cid}]"
    lang, cat = case["lang"], case["category"]

    if lang not in LANGS:
        rep.err(where, f"bad lang {lang!r}")
    if lang != file_lang:
        rep.err(where, f"lang {lang!r} in {file_lang}.jsonl")
    if cat not in CATEGORY_COUNTS:
        rep.err(where, f"bad category {cat!r}")

    # id
    m = ID_RE.match(cid) if isinstance(cid, str) else None
    if not m:
        rep.err(where, "id does not match <lang>-<category>-b10<topic>-NN")
    else:
        if m.group(1) != lang:
            rep.err(where, f"id language {m.group(1)!r} != lang {lang!r}")
        if m.group(2) != cat:
            rep.err(where, f"id category {m.group(2)!r} != category {cat!r}")

    # slot
    if cat == "change":
        if case.get("slot") not in SLOTS:
            rep.err(where, f"change case needs slot in {SLOTS}, got {case.get('slot')!r}")
    elif "slot" in case:
        rep.err(where, "slot is only for change cases")

    if "added_after_failure" in case:
        rep.err(where, "added_after_failure must not appear in this blind set")

    # messages
    msgs = case["messages"]
    user_texts = []
    if not isinstance(msgs, list) or not msgs:
        rep.err(where, "messages must be a non-empty list")
        msgs = []
    prev = None
    for i, msg in enumerate(msgs):
        mw = f"{where} messages[{i}]"
        if not isinstance(msg, dict) or set(msg) - {"text", "at", "role"} or "text" not in msg or "at" not in msg:
            rep.err(mw, "message needs exactly text, at (and optional role)")
            continue
        if not isinstance(msg["text"], str) or not msg["text"].strip():
            rep.err(mw, "empty text")
        role = msg.get("role", "user")
        if role not in MESSAGE_ROLES:
            rep.err(mw, f"bad role {role!r}")
        if role == "user" and isinstance(msg["text"], str):
            user_texts.append(msg["text"])
        at = msg["at"]
        if not isinstance(at, str) or not AT_RE.match(at):
            rep.err(mw, f"'at' not ISO-8601 UTC (…Z): {at!r}")
            continue
        try:
            t = datetime.fromisoformat(at.replace("Z", "+00:00"))
        except ValueError:
            rep.err(mw, f"'at' not a valid time: {at!r}")
            continue
        if t.year != 2026:
            rep.err(mw, f"'at' not in 2026: {at}")
        # Local day must equal the UTC day: English users are taken to be in the Americas or
        # Europe (UTC-8 .. UTC+2), Chinese users in UTC+8.
        lo, hi = HOUR_WINDOW.get(lang, (0, 23))
        if not lo <= t.hour <= hi:
            rep.err(mw, f"'at' hour {t.hour:02d}Z outside {lo:02d}-{hi:02d}Z for {lang} (local day != UTC day)")
        if prev is not None and t <= prev:
            rep.err(mw, "'at' not strictly increasing")
        prev = t
    user_text_lower = "\n".join(user_texts).lower()
    if lang == "zh" and not CJK_RE.search(user_text_lower):
        rep.err(where, "zh case without Chinese text")
    if lang == "en" and CJK_RE.search(user_text_lower):
        rep.err(where, "en case contains Chinese text")

    # expect
    exp = case["expect"]
    if not isinstance(exp, dict) or not exp:
        rep.err(where, "expect must be a non-empty object")
        return case
    unknown = set(exp) - EXPECT_KEYS
    if unknown:
        rep.err(where, f"unknown expect keys {sorted(unknown)}")

    for key in ("active", "superseded", "absent"):
        if key in exp:
            if not isinstance(exp[key], list) or not exp[key]:
                rep.err(where, f"expect.{key} must be a non-empty list")
                continue
            for j, mt in enumerate(exp[key]):
                check_matcher(rep, f"{where} expect.{key}[{j}]", mt, user_text_lower)
    if "count" in exp:
        if not isinstance(exp["count"], list) or not exp["count"]:
            rep.err(where, "expect.count must be a non-empty list")
        else:
            for j, mt in enumerate(exp["count"]):
                cw = f"{where} expect.count[{j}]"
                check_matcher(rep, cw, mt, user_text_lower, extra_keys=("n",))
                n = mt.get("n") if isinstance(mt, dict) else None
                if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                    rep.err(cw, "count needs integer n >= 0")
    if "dates" in exp:
        if not isinstance(exp["dates"], list) or not exp["dates"]:
            rep.err(where, "expect.dates must be a non-empty list")
        else:
            for j, mt in enumerate(exp["dates"]):
                dw = f"{where} expect.dates[{j}]"
                check_matcher(rep, dw, mt, user_text_lower, extra_keys=("valid_from",))
                vf = mt.get("valid_from") if isinstance(mt, dict) else None
                try:
                    ok = isinstance(vf, str) and DAY_RE.match(vf) and date.fromisoformat(vf)
                except ValueError:
                    ok = False
                if not ok:
                    rep.err(dw, f"valid_from must be YYYY-MM-DD, got {vf!r}")
    if "nothing" in exp and exp["nothing"] is not True:
        rep.err(where, "expect.nothing must be true when present")
    if "turns" in exp and (not isinstance(exp["turns"], int) or isinstance(exp["turns"], bool) or exp["turns"] < 0):
        rep.err(where, "expect.turns must be an integer >= 0")
    queries = exp.get("queries")
    if queries is not None:
        if not isinstance(queries, list) or not queries:
            rep.err(where, "expect.queries must be a non-empty list")
            queries = []
        for j, qd in enumerate(queries):
            qw = f"{where} expect.queries[{j}]"
            if not isinstance(qd, dict) or set(qd) - {"q", "top", "k", "turn_ok"}:
                rep.err(qw, "query needs q, top (and optional k, turn_ok)")
                continue
            if not isinstance(qd.get("q"), str) or not qd["q"].strip():
                rep.err(qw, "empty q")
            if "top" not in qd:
                rep.err(qw, "missing top")
            else:
                check_matcher(rep, f"{qw}.top", qd["top"], user_text_lower)
            if "k" in qd and (not isinstance(qd["k"], int) or isinstance(qd["k"], bool) or qd["k"] < 1):
                rep.err(qw, "k must be an integer >= 1")
            if "turn_ok" in qd and not isinstance(qd["turn_ok"], bool):
                rep.err(qw, "turn_ok must be a boolean")

    # category-specific rules
    if cat == "chitchat":
        if exp != {"nothing": True}:
            rep.err(where, "chitchat case must expect exactly {\"nothing\": true}")
    elif exp.get("nothing"):
        rep.err(where, "only chitchat cases may expect nothing")
    elif not any(k in exp for k in ("active", "count", "dates")):
        rep.err(where, "non-chitchat case must expect something stored")

    if cat in ("change", "correction"):
        if not exp.get("active"):
            rep.err(where, f"{cat} case needs active expectations")
        if not exp.get("superseded"):
            rep.err(where, f"{cat} case needs superseded expectations")
        if not queries:
            rep.err(where, f"{cat} case needs a query")
        for j, qd in enumerate(queries or []):
            if isinstance(qd, dict) and isinstance(qd.get("q"), str) and not query_is_present_tense(qd["q"], lang):
                rep.err(f"{where} expect.queries[{j}]", f"query is not present tense: {qd['q']!r}")

    if cat == "paraphrase_duplicate":
        counts = exp.get("count")
        if not counts or not all(isinstance(c, dict) and c.get("n") == 1 for c in counts):
            rep.err(where, "paraphrase case needs count entries with n == 1")
        if len(user_texts) < 2:
            rep.err(where, "paraphrase case needs at least two user messages")

    if cat == "relative_date" and not exp.get("dates"):
        rep.err(where, "relative_date case needs expect.dates")

    if cat == "multi_clause" and len(exp.get("active", [])) < 2:
        rep.err(where, "multi_clause case needs at least two active matchers")

    return case


def main(argv):
    base = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rep = Report()
    seen_ids = {}
    summary = {}
    for lang in LANGS:
        path = os.path.join(base, f"{lang}.jsonl")
        if not os.path.exists(path):
            rep.err(path, "missing file")
            continue
        cat_counts = Counter()
        slot_counts = Counter()
        numbers = defaultdict(list)
        n_cases = 0
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for ln, line in enumerate(lines, 1):
            where = f"{lang}.jsonl:{ln}"
            if not line.strip():
                rep.err(where, "blank line")
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as e:
                rep.err(where, f"invalid JSON: {e}")
                continue
            case = check_case(rep, case, lang, where)
            if case is None:
                continue
            n_cases += 1
            cid = case["id"]
            if cid in seen_ids:
                rep.err(where, f"duplicate id {cid} (first at {seen_ids[cid]})")
            else:
                seen_ids[cid] = where
            cat_counts[case["category"]] += 1
            if case["category"] == "change" and "slot" in case:
                slot_counts[case["slot"]] += 1
            m = ID_RE.match(str(cid))
            if m:
                numbers[m.group(2)].append(int(m.group(4)))
        if n_cases != CASES_PER_LANG:
            rep.err(f"{lang}.jsonl", f"{n_cases} cases, expected {CASES_PER_LANG}")
        for cat, want in CATEGORY_COUNTS.items():
            if cat_counts[cat] != want:
                rep.err(f"{lang}.jsonl", f"category {cat}: {cat_counts[cat]} cases, expected {want}")
            nums = sorted(numbers.get(cat, []))
            if nums != list(range(1, len(nums) + 1)):
                rep.err(f"{lang}.jsonl", f"category {cat}: NN not 01..{len(nums):02d} without gaps: {nums}")
        for slot in SLOTS:
            if slot_counts[slot] < 1:
                rep.err(f"{lang}.jsonl", f"no change case for slot {slot}")
        summary[lang] = (n_cases, cat_counts, slot_counts)

    for lang, (n, cats, slots) in summary.items():
        print(f"{lang}: {n} cases; " + ", ".join(f"{c}={cats[c]}" for c in CATEGORY_COUNTS))
        print(f"{lang}: change slots " + ", ".join(f"{s}={slots[s]}" for s in SLOTS))
    if rep.errors:
        print(f"FAIL: {len(rep.errors)} error(s)")
        for e in rep.errors:
            print("  " + e)
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
