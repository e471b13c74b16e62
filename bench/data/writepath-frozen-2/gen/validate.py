import json, re, datetime as dt, collections, sys
CATS = {"new_fact":16,"change":18,"correction":12,"paraphrase_duplicate":10,"third_person":12,
        "multi_clause":10,"chitchat":12,"relative_date":9,"plan":6,"reported_speech":3,"pii":2}
SLOTS = {"location","job","employer","partner","family","pet","diet","budget","amount","schedule",
         "device","health","school","language","plan"}
MKEYS = {"all","any","none","type","min_importance"}
def chk_matcher(m, ctx, extra=()):
    assert isinstance(m, dict), ctx
    assert set(m) <= MKEYS | set(extra), (ctx, m)
    assert m.get("all") or m.get("any"), ctx
    for k in ("all","any","none"):
        if k in m:
            assert isinstance(m[k], list) and all(isinstance(x,str) and x for x in m[k]), ctx
ids = set(); summary = {}
for lang in ("en","zh"):
    cnt = collections.Counter(); slots = collections.Counter()
    for ln, line in enumerate(open(f"/tmp/blind2/{lang}.jsonl", encoding="utf-8"), 1):
        c = json.loads(line); ctx = f"{lang}:{ln}:{c.get('id')}"
        assert set(c) <= {"id","lang","category","slot","messages","expect","added_after_failure"}, ctx
        assert c["id"] not in ids, ctx; ids.add(c["id"])
        parts = c["id"].split("-")
        assert len(parts) == 4 and parts[0] == lang and parts[1] == c["category"], ctx
        assert parts[2].startswith("b2") and re.fullmatch(r"[a-z0-9]+", parts[2]), ctx
        assert re.fullmatch(r"\d\d", parts[3]), ctx
        assert c["lang"] == lang and c["category"] in CATS, ctx
        cnt[c["category"]] += 1
        if c["category"] == "change":
            assert c.get("slot") in SLOTS, ctx; slots[c["slot"]] += 1
        else:
            assert "slot" not in c, ctx
        prev = None
        assert c["messages"], ctx
        for m in c["messages"]:
            assert set(m) <= {"text","at","role"} and m["text"].strip(), ctx
            assert re.fullmatch(r"2026-\d\d-\d\dT\d\d:\d\d:\d\dZ", m["at"]), ctx
            t = dt.datetime.fromisoformat(m["at"].replace("Z","+00:00"))
            assert t < dt.datetime(2026,12,6,tzinfo=dt.timezone.utc), ctx
            assert prev is None or t > prev, ctx; prev = t
        e = c["expect"]
        assert set(e) <= {"active","superseded","absent","count","dates","nothing","turns","queries"}, ctx
        alltext = " ".join(m["text"] for m in c["messages"]).lower()
        def lit(m):
            for k in ("all",):
                for s in m.get(k, []):
                    assert s.lower() in alltext, (ctx, "not literal", s)
            if "any" in m:
                assert any(s.lower() in alltext for s in m["any"]), (ctx, "no literal any", m["any"])
        if c["category"] == "chitchat":
            assert e == {"nothing": True}, ctx
        else:
            assert "nothing" not in e, ctx
            assert e.get("active") or e.get("count"), ctx
        for k in ("active","superseded","absent"):
            for m in e.get(k, []):
                chk_matcher(m, ctx)
                if k != "absent": lit(m)
        for m in e.get("count", []):
            chk_matcher(m, ctx, ("n",)); assert isinstance(m["n"], int); lit(m)
        for m in e.get("dates", []):
            chk_matcher(m, ctx, ("valid_from",)); lit(m)
            dt.date.fromisoformat(m["valid_from"])
        for q in e.get("queries", []):
            assert set(q) <= {"q","top","k","turn_ok"} and q["q"].strip(), ctx
            chk_matcher(q["top"], ctx); lit(q["top"])
        if c["category"] == "change": assert e.get("superseded") and e.get("active"), ctx
        if c["category"] == "paraphrase_duplicate": assert e.get("count") and len(c["messages"]) >= 2, ctx
        if c["category"] == "relative_date": assert e.get("dates"), ctx
        if c["category"] == "multi_clause": assert len(e["active"]) >= 2 and len(c["messages"]) == 1, ctx
        if c["category"] == "correction": assert e.get("absent"), ctx
    assert dict(cnt) == CATS, (lang, cnt)
    assert set(slots) == SLOTS, (lang, SLOTS - set(slots))
    summary[lang] = (cnt, slots)
    print(lang, sum(cnt.values()), dict(cnt)); print("  slots", dict(slots))
print("OK", len(ids))
