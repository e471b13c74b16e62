"""Small helpers shared by the case files (standard library only)."""


def A(*s, **kw):
    d = {"all": list(s)}
    d.update(kw)
    return d


def ANY(*s, **kw):
    d = {"any": list(s)}
    d.update(kw)
    return d


def Q(q, top, **kw):
    d = {"q": q, "top": top}
    d.update(kw)
    return d


def M(at, text):
    """at is 'YYYY-MM-DD HH:MM' (UTC)."""
    return {"text": text, "at": at.replace(" ", "T") + ":00Z"}


class Book:
    """Collects cases for one language and numbers ids per category+topic."""

    def __init__(self, lang):
        self.lang = lang
        self.cases = []
        self._n = {}

    def add(self, category, topic, messages, slot=None, **expect):
        key = (category, topic)
        self._n[key] = self._n.get(key, 0) + 1
        cid = "%s-%s-b3%s-%02d" % (self.lang, category, topic, self._n[key])
        case = {"id": cid, "lang": self.lang, "category": category}
        if slot is not None:
            case["slot"] = slot
        case["messages"] = messages
        case["expect"] = expect
        self.cases.append(case)
        return case
