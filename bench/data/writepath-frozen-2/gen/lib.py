import datetime as dt, json

def M(text, at):
    return {"text": text, "at": at}

def A(*all_, any=None, none=None):
    m = {}
    if all_: m["all"] = list(all_)
    if any: m["any"] = list(any)
    if none: m["none"] = list(none)
    return m

def Q(q, top, k=None, turn_ok=False):
    d = {"q": q, "top": top}
    if k: d["k"] = k
    if turn_ok: d["turn_ok"] = True
    return d

def D(matcher, valid_from):
    d = dict(matcher); d["valid_from"] = valid_from; return d

def N(matcher, n):
    d = dict(matcher); d["n"] = n; return d

def C(id, cat, msgs, slot=None, active=None, superseded=None, absent=None, count=None,
      dates=None, queries=None, nothing=False):
    lang = id.split("-")[0]
    c = {"id": id, "lang": lang, "category": cat}
    if slot: c["slot"] = slot
    c["messages"] = [M(t, a) for t, a in msgs]
    e = {}
    if nothing: e["nothing"] = True
    if active: e["active"] = active
    if superseded: e["superseded"] = superseded
    if absent: e["absent"] = absent
    if count: e["count"] = count
    if dates: e["dates"] = dates
    if queries: e["queries"] = queries
    c["expect"] = e
    return c

WD = {"mon":0,"tue":1,"wed":2,"thu":3,"fri":4,"sat":5,"sun":6}

def rel(at, kind, n=None, wd=None, month=None, day=None):
    """Resolve a relative time per FORMAT.md rules, from UTC day of `at`."""
    d = dt.datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(dt.timezone.utc).date()
    one = dt.timedelta(days=1)
    monday = d - dt.timedelta(days=d.weekday())
    if kind == "yesterday": r = d - one
    elif kind == "tomorrow": r = d + one
    elif kind == "day_before_yesterday": r = d - 2*one
    elif kind == "day_after_tomorrow": r = d + 2*one
    elif kind == "days_ago": r = d - n*one
    elif kind == "in_days": r = d + n*one
    elif kind == "weeks_ago": r = d - 7*n*one
    elif kind == "last_week": r = monday - 7*one
    elif kind == "next_week": r = monday + 7*one
    elif kind == "this_week": r = monday
    elif kind == "last_weekday": r = monday - 7*one + WD[wd]*one
    elif kind == "next_weekday": r = monday + 7*one + WD[wd]*one
    elif kind == "on_weekday":
        r = d
        while r.weekday() != WD[wd]: r += one
    elif kind == "last_month":
        r = (d.replace(day=1) - one).replace(day=1)
    elif kind == "next_month":
        r = (d.replace(day=28) + 4*one).replace(day=1)
    elif kind == "months_ago":
        y, m = d.year, d.month - n
        while m <= 0: m += 12; y -= 1
        r = dt.date(y, m, 1)
    elif kind == "last_year": r = dt.date(d.year-1, 1, 1)
    elif kind == "next_year": r = dt.date(d.year+1, 1, 1)
    elif kind == "in_month": r = dt.date(d.year, month, 1)
    elif kind == "date": r = dt.date(d.year, month, day)
    else: raise ValueError(kind)
    return r.isoformat()

def weekday(at):
    d = dt.datetime.fromisoformat(at.replace("Z", "+00:00")).date()
    return d.strftime("%A")

def write(path, cases):
    with open(path, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
