"""Shared helpers for building the blind-4 cases (standard library only)."""
import json


class Builder:
    def __init__(self, lang):
        self.lang = lang
        self.cases = []
        self._seq = {}

    def _id(self, cat, topic):
        n = self._seq.get(cat, 0) + 1
        self._seq[cat] = n
        return "%s-%s-b4%s-%02d" % (self.lang, cat, topic, n)

    def add(self, cat, topic, msgs, expect, slot=None):
        case = {"id": self._id(cat, topic), "lang": self.lang, "category": cat}
        if slot is not None:
            case["slot"] = slot
        case["messages"] = [{"text": t, "at": a} for (t, a) in msgs]
        case["expect"] = expect
        self.cases.append(case)
        return case

    # ---- category shortcuts -------------------------------------------
    def new_fact(self, topic, text, at, key, q, qtop=None):
        key = mt(key)
        self.add("new_fact", topic, [(text, at)],
                 {"active": [key], "queries": [{"q": q, "top": mt(qtop) if qtop else key}]})

    def change(self, topic, slot, msgs, new, old, q, absent_old=False):
        new, old = mt(new), mt(old)
        exp = {"active": [new], "superseded": [old]}
        if absent_old:
            a = dict(old)
            a["none"] = list(new.get("all", []) or new.get("any", []))
            exp["absent"] = [a]
        exp["queries"] = [{"q": q, "top": new}]
        self.add("change", topic, msgs, exp, slot=slot)

    def correction(self, topic, msgs, new, old, q):
        new, old = mt(new), mt(old)
        self.add("correction", topic, msgs,
                 {"active": [new], "superseded": [old], "queries": [{"q": q, "top": new}]})

    def paraphrase(self, topic, msgs, terms, q):
        m = {"any": list(terms)}
        self.add("paraphrase_duplicate", topic, msgs,
                 {"active": [m], "count": [dict(m, n=1)], "queries": [{"q": q, "top": m}]})

    def third(self, topic, text, at, attr, who, q):
        attr = mt(attr)
        act = dict(attr)
        if "any" in attr:          # attribute given as alternatives -> person goes into all
            act["all"] = list(who[:1])
        else:
            act["any"] = list(who)
        ab = dict(attr)
        ab["none"] = list(who)
        self.add("third_person", topic, [(text, at)],
                 {"active": [act], "absent": [ab], "queries": [{"q": q, "top": attr}]})

    def multi(self, topic, text, at, keys):
        self.add("multi_clause", topic, [(text, at)], {"active": [mt(k) for k in keys]})

    def chitchat(self, topic, msgs):
        self.add("chitchat", topic, msgs, {"nothing": True})

    def reldate(self, topic, text, at, key, day):
        self.add("relative_date", topic, [(text, at)],
                 {"active": [{"all": [key]}], "dates": [{"all": [key], "valid_from": day}]})

    def plan(self, topic, msgs, plan_key, q, now_key=None, qtop=None):
        act = [mt(plan_key)]
        if now_key:
            act.append(mt(now_key))
        top = mt(qtop) if qtop else (mt(now_key) if now_key else mt(plan_key))
        self.add("plan", topic, msgs, {"active": act, "queries": [{"q": q, "top": top}]})

    def reported(self, topic, text, at, key, q):
        self.add("reported_speech", topic, [(text, at)],
                 {"active": [mt(key)], "queries": [{"q": q, "top": mt(key)}]})

    def pii(self, topic, text, at, key, q):
        self.add("pii", topic, [(text, at)],
                 {"active": [mt(key)], "queries": [{"q": q, "top": mt(key)}]})

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            for c in self.cases:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")


def mt(x):
    """Matcher shorthand: str -> all:[str]; list -> all:list; dict -> as is."""
    if isinstance(x, dict):
        return dict(x)
    if isinstance(x, str):
        return {"all": [x]}
    return {"all": list(x)}


def anyof(*terms):
    return {"any": list(terms)}
