#!/usr/bin/env python3
"""Randomized soak test of `engram serve`'s HTTP API, black-box, standard library only.

Why: single requests pass while a sequence breaks the server for good — a session close once
left the database locked, and every later write answered 503 "database is locked" forever.
Only long random sequences over every route, from several clients at once, find that kind
of bug. This test runs them:

- Phases: a fresh database (soak, then read everything back), a restart on it (soak at once,
  with no warm-up, then read back all that both phases wrote) and a last reopen (read back).
- Client threads send random requests over every /v1 route (adds with infer true and false,
  sync and async, batches, list, get, patch, soft and hard deletes, erasing a user, history,
  users, sessions and their turns, closes, job polling, search, context, profile, recall,
  export, maintenance and its log, the admin routes that apply without keys, health routes)
  plus deliberately wrong requests. Each thread has users of its own and shares others, so
  writes, closes and erasures race.
- Every reply is judged: 2xx, or the 4xx the request deserves given what the clients wrote
  (404 for what was erased, 409 for a closed session or a repeated message id, 400 for bad
  input); never a 5xx. Anything else fails the test with the request, the reply and the seed.
  One undocumented answer is tolerated, and counted in the summary: 404 to an append whose
  user an erase-all was erasing at that moment. Each add's results must be the user's.
- A model keeps every acknowledged write with the ticks of a global clock taken before its
  request was sent and after its reply came, and so does every erasure. That says, for each
  write and each later read, whether it must be there, must be gone, or may be either (an
  erasure that overlapped it). At the end of each phase every acknowledged memory is read
  back by id with its content, every session's turns and state through GET and the export,
  jobs through /v1/jobs, the users through /v1/users; what was hard-deleted must be gone.

The seed (--seed, default random) fixes each thread's sequence of requests (not how the
threads interleave); it is printed at the start and in every failure. --seconds is the total
soak time over the two soak phases; --summary-json writes the figures (scripts/soak.sh
prints them). CloseThenWriteTest is the deterministic sequence of the bug above.

Usage: soak_test.py --engram PATH [--crash-writer PATH] [--seed N] [--seconds S]
                    [--threads N] [--summary-json PATH] [unittest options]
"""

import argparse
import collections
import http.client
import itertools
import json
import random
import sys
import threading
import time
import traceback

import server_harness as h
from server_harness import ServerTestCase

SEED = None           # --seed
SECONDS = 50.0        # --seconds: soak time of the two soak phases together
THREADS = 5           # --threads
SUMMARY_JSON = None   # --summary-json

# Background maintenance every 2 s and a session summary every 5 turns: more writers race.
SERVER_ARGS = ["--maintain-interval", "2", "--summarize-every", "5", "--job-workers", "2"]
SHARED_USERS = ["shared-0", "shared-1", "shared-2"]
PRIVATE_PER_THREAD = 2
MAX_FAILURES_SHOWN = 10
JOB_WAIT_S = 60.0
GONE_SAMPLE = 1000  # erased memories read again after each later phase

PRESENT, GONE, MAYBE = "present", "gone", "maybe"

_ticks = itertools.count(1)


def tick():
    """The global logical clock: ever increasing, shared by the threads."""
    return next(_ticks)


def clip(value, size=600):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= size else text[:size] + "…"


# ------------------------------------------------------------------------------------------
# text the clients say
# ------------------------------------------------------------------------------------------

CITIES = ["Paris", "Berlin", "Lisbon", "Tokyo", "Oslo"]
FOODS = ["peanuts", "shellfish", "pollen", "gluten"]
THINGS = ["jazz", "hiking", "green tea", "chess", "rock music"]
NAMES = ["Anna", "Kevin", "Mei", "Omar"]
COMPANIES = ["Initech", "Globex", "Acme"]
CN = ["我喜欢喝绿茶", "我住在上海", "我下周五要去成都出差", "我对花粉过敏", "好的，谢谢"]
INFER_TEMPLATES = [
    "I live in {city}", "I moved to {city} last month", "I am allergic to {food}",
    "I work at {company}", "I like {thing}", "I don't like {thing} anymore",
    "My sister is called {name}", "I have a meeting with {name} on Friday",
    "I want to learn {thing}", "Remember that my passport number ends in {n}",
    "thanks!", "hello", "ok", "{cn}",
]
QUERIES = ["where do I live", "allergy", "what do I like", "work", "sister", "tea", "旅行",
           "meeting Friday", "passport", "music"]


def infer_text(rng):
    return rng.choice(INFER_TEMPLATES).format(
        city=rng.choice(CITIES), food=rng.choice(FOODS), thing=rng.choice(THINGS),
        name=rng.choice(NAMES), company=rng.choice(COMPANIES), n=rng.randint(10, 99),
        cn=rng.choice(CN))


def plain_text(rng, nonce):
    return "%s (note %s)" % (infer_text(rng), nonce)


# ------------------------------------------------------------------------------------------
# the model of what was acknowledged
# ------------------------------------------------------------------------------------------

class Destroy:
    """An erasure of a user's data: 'all' (DELETE /v1/memories) or 'purge' (a hard delete).
    ds is taken before it is sent, da after its reply is recorded (None while in flight)."""

    def __init__(self, kind, user):
        self.kind, self.user = kind, user
        self.ds, self.da = tick(), None
        self.turns_unknown = False  # a purge took session turns the model cannot name
        self.what = ""              # for failure messages

    def __repr__(self):
        return "%s of %s [%s, %s] %s" % (self.kind, self.user, self.ds, self.da, self.what)


class MemoryRec:
    """An acknowledged memory: its write's window [ws, wa], every content a reply showed."""

    def __init__(self, mid, user, owner, ws, wa, memory):
        self.id, self.user, self.owner, self.ws, self.wa = mid, user, owner, ws, wa
        self.contents = {memory["content"]}
        self.last = memory["content"]  # as of the owner's last acknowledged change
        self.exact = True              # False once the write path may have rewritten it
        self.summary = memory.get("type") == "summary"  # rewritten as its session goes on
        self.found_gone = False        # a phase's verification found it erased, as it must
        self.origin = ""               # how the model learnt of it, for messages
        self.deleted = False           # soft-deleted by its owner
        src = memory.get("source") or {}
        sid = src.get("session_id") or ""
        self.source_turns = [(sid, m) for m in src.get("message_ids") or []] if sid else []


class TurnRec:
    def __init__(self, role, content, ws):
        self.role, self.content, self.ws, self.wa = role, content, ws, None


class SessionRec:
    def __init__(self, user, sid):
        self.user, self.sid = user, sid
        self.first_sent = None  # tick before the first append was sent
        self.appends = []       # (ws, wa) of each acknowledged append
        self.closes = []        # [ds, da] of each close; da None while in flight
        self.turns = {}         # message id -> TurnRec (wa None while in flight)


class JobRec:
    def __init__(self, jid, user, owner, ws, wa):
        self.id, self.user, self.owner, self.ws, self.wa = jid, user, owner, ws, wa
        self.state = "queued"
        self.erased = False


class Stats:
    """Tallies of requests by route and status."""

    def __init__(self):
        self.lock = threading.Lock()
        self.routes = collections.Counter()
        self.statuses = collections.Counter()
        self.route_statuses = collections.Counter()  # (route, status)
        self.checked = 0  # acknowledged writes read back
        self.lost = 0     # acknowledged writes missing or wrong when read back
        self.notes = collections.Counter()  # tolerated oddities, for the summary

    def note(self, what):
        with self.lock:
            self.notes[what] += 1

    def count(self, route, status):
        with self.lock:
            self.routes[route] += 1
            self.statuses[status] += 1
            self.route_statuses[route, status] += 1

    def requests(self):
        with self.lock:
            return sum(self.routes.values())

    def classes(self):
        out = collections.Counter()
        for status, n in self.statuses.items():
            out["%dxx" % (status // 100)] += n
        return dict(out)


class World:
    """Everything the clients wrote and erased, shared by the threads of every phase."""

    def __init__(self, seed, threads):
        self.seed = seed
        self.threads = threads
        self.lock = threading.RLock()
        self.memories = {}                            # id -> MemoryRec
        self.purged = {}                              # memory id -> Destroy that erased it
        self.purged_turns = {}                        # (user, session, msg id) -> Destroy
        self.destroys = collections.defaultdict(list)  # user -> [Destroy]
        self.sessions = {}                            # (user, session id) -> SessionRec
        self.jobs = {}                                # id -> JobRec
        self.owned = [[] for _ in range(threads)]     # MemoryRecs a thread may change
        self.pending = [[] for _ in range(threads)]   # JobRecs a thread polls
        self.gen = collections.Counter()              # user -> current session generation
        self.unseen_results = set()                   # users with a job result never read
        self.users = set(SHARED_USERS) | {self.private_user(i, j) for i in range(threads)
                                          for j in range(PRIVATE_PER_THREAD)}
        self.stats = Stats()
        self.failures = []
        self.stop = threading.Event()
        self.phase = 0

    @staticmethod
    def private_user(i, j):
        return "t%d-p%d" % (i, j)

    def fail(self, text):
        with self.lock:
            self.failures.append("[seed %d, phase %d] %s" % (self.seed, self.phase, text))
        self.stop.set()

    # --- erasures ---

    def begin_destroy(self, kind, user):
        with self.lock:
            d = Destroy(kind, user)
            self.destroys[user].append(d)
            return d

    def finish_destroy(self, d, purged_ids=(), session_turns=0, source_turns=True):
        """Records what a destroy erased, then its ack tick (in that order, under the lock,
        so a finished purge's list is complete for whoever reads it). A hard delete takes
        the session turns its memories came from unless told source_turns=false."""
        with self.lock:
            pairs = set()
            for mid in purged_ids:
                self.purged.setdefault(mid, d)
                rec = self.memories.get(mid)
                if rec is not None and source_turns and not rec.summary:
                    pairs.update(rec.source_turns)
            for sid, msg in pairs:
                self.purged_turns.setdefault((d.user, sid, msg), d)
            d.turns_unknown = session_turns > len(pairs)
            d.what += " purged %s, %d session turns" % (list(purged_ids), session_turns)
            d.da = tick()

    def erasure(self, user, ws, wa, s, a):
        """What the user's erase-alls do to a write made in [ws, wa], as seen by a request
        sent at s and answered at a: GONE if one began after the write was acknowledged and
        ended before the request, MAYBE if one may have overlapped it, else PRESENT."""
        state = PRESENT
        for d in self.destroys[user]:
            if d.kind != "all" or d.ds > a or (d.da is not None and d.da < ws):
                continue
            if wa is not None and d.ds > wa and d.da is not None and d.da < s:
                return GONE
            state = MAYBE
        return state

    def purge_in_flight(self, user, a):
        return any(d.kind == "purge" and d.da is None and d.ds < a for d in self.destroys[user])

    def memory_state(self, rec, s, a):
        with self.lock:
            p = self.purged.get(rec.id)
            if p is not None and p.da < s:
                return GONE
            state = self.erasure(rec.user, rec.ws, rec.wa, s, a)
            if state == GONE:
                return GONE
            if state == MAYBE or p is not None or self.purge_in_flight(rec.user, a):
                return MAYBE
            return PRESENT

    def destroyed_since(self, user, ws, a, kinds=("all", "purge")):
        """Whether an erasure of the user (of kinds) sent before a may postdate ws."""
        return any(d.kind in kinds and d.ds < a and (d.da is None or d.da > ws)
                   for d in self.destroys[user])

    def content_ok(self, rec, memory):
        with self.lock:
            if memory.get("id") != rec.id or memory.get("user_id") != rec.user:
                return False
            if rec.deleted and memory.get("status") != "deleted":
                return False
            if rec.user in self.unseen_results or rec.summary:
                return True
            if memory.get("content") not in rec.contents:
                return False
            return not rec.exact or memory["content"] == rec.last

    # --- writes ---

    def record_results(self, results, user, owner, ws, wa, origin):
        """Takes the memories of an add's results (ADD, UPDATE, SUPERSEDE, NOOP) into the
        model; a thread owns what its request added. origin: the route, for messages.
        Returns False if a result is another user's."""
        with self.lock:
            for res in results:
                if res["memory"].get("user_id") != user:
                    return False
                self._record_one(res["id"], res["memory"], res.get("event"), user, owner, ws,
                                 wa, origin)
                replaced = res.get("replaced")
                if replaced:
                    self._record_one(replaced["id"], replaced, "REPLACED", user, None, 0, wa,
                                     origin)
            return True

    def _record_one(self, mid, memory, event, user, owner, ws, wa, origin):
        rec = self.memories.get(mid)
        if rec is None:
            added = event in ("ADD", "SUPERSEDE")
            rec = MemoryRec(mid, user, owner if added else None, ws if added else 0, wa, memory)
            rec.origin = "%s %s by %s [%s, %s]" % (origin, event, owner, rec.ws, wa)
            self.memories[mid] = rec
            if rec.owner is not None:
                self.owned[owner].append(rec)
            return
        if memory["content"] not in rec.contents:
            rec.contents.add(memory["content"])
            rec.exact = False

    def patched(self, rec, content):
        with self.lock:
            if content is not None:
                rec.contents.add(content)
                rec.last = content

    # --- sessions ---

    def session(self, user, sid):
        with self.lock:
            key = (user, sid)
            if key not in self.sessions:
                self.sessions[key] = SessionRec(user, sid)
            return self.sessions[key]

    def current_session(self, user):
        with self.lock:
            return self.session(user, "%s-s%d" % (user, self.gen[user]))

    def next_session(self, user, sess):
        """Moves the user's conversation on from sess (closed), unless another did."""
        with self.lock:
            if sess.sid == "%s-s%d" % (user, self.gen[user]):
                self.gen[user] += 1

    def closed_before(self, sess, s, a):
        """A close acknowledged before s that no erase-all sent before a may have undone."""
        for ds, da in sess.closes:
            if da is not None and da < s and not any(
                    d.kind == "all" and d.ds < a and (d.da is None or d.da > ds)
                    for d in self.destroys[sess.user]):
                return True
        return False

    def session_may_be_gone(self, sess, s, a):
        """No append acknowledged before s, or an erase-all may have taken each."""
        return all(self.erasure(sess.user, ws, wa, s, a) != PRESENT
                   for ws, wa in sess.appends if wa < s)

    def close_sent_before(self, sess, a):
        return any(ds < a for ds, _ in sess.closes)

    def turn_state(self, sess, msg, turn, s, a):
        p = self.purged_turns.get((sess.user, sess.sid, msg))
        if p is not None and p.da < s:
            return GONE
        state = self.erasure(sess.user, turn.ws, turn.wa, s, a)
        if state == GONE:
            return GONE
        unknown = any(d.kind == "purge" and d.ds < a and (d.da is None or d.turns_unknown)
                      and (d.da is None or d.da > turn.ws) for d in self.destroys[sess.user])
        return MAYBE if state == MAYBE or p is not None or unknown else PRESENT

    def session_final(self, sess):
        """(must exist, must be closed) after the soak, or None when an erase-all overlapped
        one of its appends or closes (then only its turns are checked)."""
        alls = [d for d in self.destroys[sess.user] if d.kind == "all"]
        events = list(sess.appends) + [tuple(c) for c in sess.closes if c[1] is not None]
        for d in alls:
            if any(not (d.da < x0 or d.ds > x1) for x0, x1 in events):
                return None
        last = max(alls, key=lambda d: d.ds) if alls else None

        def after(x):
            return last is None or x > last.da
        exists = any(after(ws) for ws, _ in sess.appends)
        closed = any(after(ds) for ds, da in sess.closes if da is not None)
        return exists, closed


# ------------------------------------------------------------------------------------------
# requests and their checks
# ------------------------------------------------------------------------------------------

class Caller:
    """A keep-alive client whose every reply is counted and checked: never a 5xx, every 4xx
    a JSON error body; `judge` failures carry the request, the reply and the seed."""

    def __init__(self, world, server, name):
        self.world = world
        self.name = name
        self.client = h.Client(server.port, timeout=60, store_as_given=False)
        server.clients.append(self.client)

    def call(self, method, route, path=None, body=None, params=None):
        """One request; the reply gets .sent/.acked ticks and .sent_body. Returns None (and
        fails) on a 5xx or a malformed error reply."""
        s = tick()
        try:
            r = self.client.request(method, path or route, body=body, params=params)
        except (OSError, http.client.HTTPException) as e:
            self.world.fail("%s: %s %s %s: no reply: %r" % (
                self.name, method, h.url_path(path or route, params), clip(body or ""), e))
            return None
        r.sent, r.acked, r.sent_body = s, tick(), body
        self.world.stats.count("%s %s" % (method, route), r.status)
        if r.status >= 500 or (r.status >= 400 and not self.error_body_ok(r)):
            self.judge(r, False, "never a 5xx; a 4xx has the JSON error body")
            return None
        return r

    @staticmethod
    def error_body_ok(r):
        try:
            body = r.json()
            return set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        except (ValueError, TypeError):
            return False

    def judge(self, r, ok, expected):
        if not ok:
            self.world.fail("%s: %s %s -> %d, expected %s\n  request body: %s\n  reply: %s" % (
                self.name, r.method, r.path, r.status, expected, clip(r.sent_body or ""),
                clip(r.body.decode("utf-8", "replace"))))
        return ok

    def expect(self, r, *statuses):
        return r is not None and self.judge(r, r.status in statuses,
                                            " or ".join(map(str, statuses)))

    def diagnose(self, rec):
        """What the model and the user's maintenance log know of a memory, for a failure."""
        r = self.call("GET", "/v1/maintenance/log",
                      params={"user_id": rec.user, "limit": "100000"})
        log = [e for e in r.json()["results"] if e.get("id") == rec.id] if (
            r is not None and r.status == 200) else "unreadable"
        job = ""
        if rec.origin.startswith("/v1/jobs/"):
            r = self.call("GET", "/v1/jobs/{id}", rec.origin.split()[0])
            job = "; the job now: %s" % (clip(r.text(), 1500) if r is not None else "?")
        with self.world.lock:
            return "written by %s; erasures of %s: %r; maintenance log: %s%s" % (
                rec.origin, rec.user, self.world.destroys[rec.user], clip(log, 2000), job)

    def record(self, r, results, user, owner, ws):
        """The results of the add answered by r into the model: all of them the user's."""
        ok = self.world.record_results(results, user, owner, ws, r.acked, r.path)
        return self.judge(r, ok, "every memory in the results %s's" % user)

    def judge_export(self, r, user):
        """The export's memories are the user's and none it should not hold; its sessions
        and turns are ones the clients sent, with what they said."""
        lines = [json.loads(x) for x in r.text().splitlines() if x.strip()]
        if not self.judge(r, lines and lines[0].get("kind") == "engram-export", "a header"):
            return None
        with self.world.lock:
            for line in lines[1:]:
                if line["kind"] == "memory":
                    m = line["memory"]
                    p = self.world.purged.get(m["id"])
                    if not self.judge(r, m["user_id"] == user and (p is None or p.da > r.sent),
                                      "the user's memories, none hard-deleted (%s)" % m["id"]):
                        return None
                elif line["kind"] == "session":
                    if not self.judge_session_turns(r, user, line["session_id"], [
                            (t["message_id"], t["role"], t["content"]) for t in line["turns"]]):
                        return None
        return lines

    def judge_session_turns(self, r, user, sid, turns):
        """Each turn served is one a client sent (in flight or acknowledged), with its words,
        and not one a finished hard delete erased."""
        with self.world.lock:
            sess = self.world.sessions.get((user, sid))
            if not self.judge(r, sess is not None and sess.first_sent is not None
                              and sess.first_sent < r.acked, "no session %r" % sid):
                return False
            for msg, role, content in turns:
                t = sess.turns.get(msg)
                if not self.judge(r, t is not None and (t.role, t.content) == (role, content),
                                  "turn %r of %r (%s: %r) as sent: %s" % (
                                      msg, sid, role, content, "%s: %r" % (t.role, t.content)
                                      if t else "never sent, or its append was refused")):
                    return False
                if not self.judge(r, self.world.turn_state(sess, msg, t, r.sent, r.acked)
                                  != GONE, self.why_gone(user, sid, msg)):
                    return False
        return True

    def why_gone(self, user, sid, msg):
        p = self.world.purged_turns.get((user, sid, msg))
        if p is None:
            return "turn %r of %r gone: its user was erased" % (msg, sid)
        return ("turn %r of %r gone: a hard delete erased its kept turn or a memory from it "
                "(%r); README: the kept turns' session turns go too, and working memory and "
                "/v1/context stop serving them at once" % (msg, sid, p))


class Worker(Caller):
    """One client thread: random requests for a bounded time."""

    def __init__(self, world, server, idx, phase, deadline):
        super().__init__(world, server, "thread %d" % idx)
        self.idx = idx
        self.rng = random.Random("%d/%d/%d" % (world.seed, phase, idx))
        self.deadline = deadline
        self.private = [world.private_user(idx, j) for j in range(PRIVATE_PER_THREAD)]
        self.nonce = itertools.count()
        self.prefix = "p%d-t%d" % (phase, idx)
        self.ops = [getattr(self, "op_" + name) for name, _ in OP_WEIGHTS]
        self.weights = list(itertools.accumulate(w for _, w in OP_WEIGHTS))

    def run(self):
        try:
            while time.monotonic() < self.deadline and not self.world.stop.is_set():
                self.rng.choices(self.ops, cum_weights=self.weights)[0]()
        except Exception:  # a bug in the test or a reply of the wrong shape: report it all
            self.world.fail("%s: exception:\n%s" % (self.name, traceback.format_exc()))

    # --- choices ---

    def uid(self):
        return "%s-%d" % (self.prefix, next(self.nonce))

    def pick_user(self, shared_share=0.4):
        if self.rng.random() < shared_share:
            return self.rng.choice(SHARED_USERS)
        return self.rng.choice(self.private)

    def pick_owned(self):
        owned = self.world.owned[self.idx]
        with self.world.lock:
            if len(owned) > 4000:
                del owned[:2000]
            return self.rng.choice(owned) if owned else None

    def disown(self, rec):
        with self.world.lock:
            owned = self.world.owned[self.idx]
            if rec in owned:
                owned.remove(rec)

    def messages(self, n, infer):
        roles = ["user"] * 3 + ["assistant"]
        return [{"role": self.rng.choice(roles),
                 "content": infer_text(self.rng) if infer else plain_text(self.rng, self.uid())}
                for _ in range(n)]

    # --- adds ---

    def op_add_plain(self):
        user = self.pick_user()
        body = {"user_id": user, "infer": False}
        if self.rng.random() < 0.7:
            body["content"] = plain_text(self.rng, self.uid())
            body["type"] = self.rng.choice(["fact", "preference", "event", "goal"])
        else:
            body["messages"] = self.messages(self.rng.randint(1, 3), infer=False)
        if self.rng.random() < 0.3:
            body["tags"] = [self.rng.choice(["home", "work", "critical"])]
        r = self.call("POST", "/v1/memories", body=body)
        if self.expect(r, 201):
            results = r.json()["results"]
            n = 1 if "content" in body else len(body["messages"])
            if self.judge(r, len(results) == n, "one result per content or message"):
                self.record(r, results, user, self.idx, r.sent)

    def op_add_infer(self):
        user = self.pick_user()
        body = {"user_id": user}
        if self.rng.random() < 0.6:
            body["content"] = infer_text(self.rng)
        else:
            body["messages"] = self.messages(self.rng.randint(1, 3), infer=True)
        if self.rng.random() < 0.5:
            body["infer"] = True
        self.judge_infer_add(self.call("POST", "/v1/memories", body=body), user)

    def judge_infer_add(self, r, user):
        if self.expect(r, 200, 201):
            results = r.json()["results"]
            if self.judge(r, bool(results) == (r.status == 201),
                          "201 when something was stored, 200 when nothing was"):
                self.record(r, results, user, self.idx, r.sent)

    def op_add_async(self):
        user = self.pick_user()
        if self.rng.random() < 0.6:
            route = "/v1/memories"
            body = {"user_id": user, "async": True, "content": infer_text(self.rng)}
        else:
            route = "/v1/memories/batch"
            body = {"user_id": user, "async": True, "memories": [
                {"content": infer_text(self.rng)} for _ in range(self.rng.randint(1, 3))]}
        r = self.call("POST", route, body=body)
        if self.expect(r, 202):
            reply = r.json()
            if self.judge(r, reply.get("state") == "queued" and reply.get("job_id"),
                          "{job_id, state: queued}"):
                with self.world.lock:
                    job = JobRec(reply["job_id"], user, self.idx, r.sent, r.acked)
                    self.world.jobs[job.id] = job
                    self.world.pending[self.idx].append(job)

    def op_batch_plain(self):
        user = self.pick_user()
        items = [{"content": plain_text(self.rng, self.uid()),
                  "importance": round(self.rng.random(), 2)}
                 for _ in range(self.rng.randint(1, 6))]
        r = self.call("POST", "/v1/memories/batch",
                      body={"user_id": user, "infer": False, "memories": items})
        if self.expect(r, 201):
            results = r.json()["results"]
            ok = [x["memory"]["content"] for x in results] == [x["content"] for x in items]
            if self.judge(r, ok, "the batch's memories in order"):
                self.record(r, results, user, self.idx, r.sent)

    def op_batch_infer(self):
        user = self.pick_user()
        items = [{"content": infer_text(self.rng)} for _ in range(self.rng.randint(1, 3))]
        r = self.call("POST", "/v1/memories/batch", body={"user_id": user, "memories": items})
        self.judge_infer_add(r, user)

    # --- one memory (only the thread that added it changes it) ---

    def op_get(self):
        rec = self.pick_owned()
        if rec is None:
            return self.op_list()
        r = self.call("GET", "/v1/memories/{id}", "/v1/memories/" + rec.id,
                      params={"user_id": rec.user})
        self.judge_memory_reply(r, rec, lambda body: self.world.content_ok(rec, body))

    def judge_memory_reply(self, r, rec, body_ok, conflict_ok=False):
        """200 unless the memory may be erased (then 404 too); 404 only then."""
        if r is None:
            return False
        state = self.world.memory_state(rec, r.sent, r.acked)
        if r.status == 404:
            if state != PRESENT:
                self.disown(rec)
                return True
            with self.world.stats.lock:
                self.world.stats.lost += 1
            return self.judge(r, False, "200: memory %s was not erased; %s" % (
                rec.id, self.diagnose(rec)))
        if r.status == 409 and conflict_ok:
            return self.judge(r, state != GONE, "404: memory erased")
        if r.status == 200:
            return self.judge(r, state != GONE and body_ok(r.json()),
                              "404 (erased)" if state == GONE else "the memory as written")
        return self.judge(r, False, "200 or 404 (memory %s)" % state)

    def op_patch(self):
        rec = self.pick_owned()
        if rec is None:
            return self.op_add_plain()
        change = self.rng.choice(["content", "importance", "tags"])
        content = plain_text(self.rng, self.uid()) if change == "content" else None
        body = {"content": content} if content else (
            {"importance": round(self.rng.random(), 2)} if change == "importance"
            else {"tags": ["soak", self.rng.choice(THINGS)]})
        if self.rng.random() < 0.3:
            body["reason"] = "soak"
        with self.world.lock:
            deleted = rec.deleted
            if content is not None:
                rec.contents.add(content)  # may land even if the reply is lost
        r = self.call("PATCH", "/v1/memories/{id}", "/v1/memories/" + rec.id, body=body,
                      params={"user_id": rec.user})
        ok = self.judge_memory_reply(
            r, rec, lambda m: not deleted and (content is None or m["content"] == content),
            conflict_ok=deleted)
        if ok and r.status == 200:
            self.world.patched(rec, content)

    def op_soft_delete(self):
        rec = self.pick_owned()
        if rec is None:
            return self.op_add_plain()
        r = self.call("DELETE", "/v1/memories/{id}", "/v1/memories/" + rec.id,
                      params={"user_id": rec.user})
        if self.judge_memory_reply(r, rec, lambda b: b.get("deleted") is True
                                   and b.get("hard") is False) and r.status == 200:
            with self.world.lock:
                rec.deleted = True

    def op_hard_delete(self):
        rec = self.pick_owned()
        if rec is None:
            return self.op_add_plain()
        params = {"user_id": rec.user, "hard": "true"}
        if self.rng.random() < 0.3:
            params["source_turns"] = "false"
        d = self.world.begin_destroy("purge", rec.user)
        d.what = rec.id
        r = self.call("DELETE", "/v1/memories/{id}", "/v1/memories/" + rec.id, params=params)
        purged, turns = (), 0
        if r is not None and r.status == 200:
            body = r.json()
            purged, turns = body.get("purged") or [], body.get("session_turns", 0)
        self.world.finish_destroy(d, purged, turns, "source_turns" not in params)
        self.judge_memory_reply(r, rec, lambda b: b.get("hard") is True and rec.id in purged)
        self.disown(rec)

    def op_history(self):
        rec = self.pick_owned()
        if rec is None:
            return self.op_users()
        r = self.call("GET", "/v1/memories/{id}/history", "/v1/memories/%s/history" % rec.id,
                      params={"user_id": rec.user})
        self.judge_memory_reply(r, rec, lambda b: bool(b["results"]) and all(
            e["item_id"] == rec.id for e in b["results"]))

    def op_delete_all(self):
        user = self.pick_user(shared_share=0.15)
        d = self.world.begin_destroy("all", user)
        r = self.call("DELETE", "/v1/memories", params={"user_id": user})
        self.world.finish_destroy(d)
        if self.expect(r, 200) and self.judge(r, r.json().get("user_id") == user,
                                              "{deleted, user_id}"):
            with self.world.lock:  # most of them: the rest checks that they answer 404
                self.world.owned[self.idx][:] = [
                    x for x in self.world.owned[self.idx]
                    if x.user != user or self.rng.random() < 0.2]

    # --- listings and reads ---

    def op_list(self):
        user = self.pick_user()
        params = {"user_id": user, "limit": str(self.rng.choice([1, 5, 20, 100]))}
        if self.rng.random() < 0.4:
            params["status"] = self.rng.choice(["all", "active", "deleted", "superseded"])
        if self.rng.random() < 0.2:
            params["type"] = self.rng.choice(["fact", "message", "preference"])
        for _ in range(self.rng.randint(1, 3)):
            r = self.call("GET", "/v1/memories", params=params)
            if not self.expect(r, 200):
                return
            page = r.json()
            if not self.judge(r, all(m["user_id"] == user for m in page["results"]),
                              "only the user's memories"):
                return
            if not page["next_cursor"]:
                return
            params["cursor"] = page["next_cursor"]

    def op_users(self):
        params = {"limit": str(self.rng.choice([2, 10, 100]))}
        r = self.call("GET", "/v1/users", params=params)
        if self.expect(r, 200):
            got = {u["user_id"] for u in r.json()["results"]}
            with self.world.lock:
                unknown = got - self.world.users
            self.judge(r, not unknown, "only users the clients named")

    def op_search(self):
        user = self.pick_user()
        body = {"user_id": user, "query": self.rng.choice(QUERIES),
                "k": self.rng.randint(1, 20)}
        if self.rng.random() < 0.3:
            body["explain"] = True
        if self.rng.random() < 0.2:
            body["filters"] = {"statuses": "all"}
        r = self.call("POST", "/v1/search", body=body)
        if self.expect(r, 200):
            self.judge(r, all(x["memory"]["user_id"] == user for x in r.json()["results"]),
                       "only the user's memories")

    def op_context(self):
        user = self.pick_user()
        body = {"user_id": user, "query": self.rng.choice(QUERIES),
                "token_budget": self.rng.choice([64, 300, 2000])}
        if self.rng.random() < 0.5:
            body["session_id"] = self.world.current_session(user).sid
        if self.rng.random() < 0.3:
            body["profile"] = True
        self.expect(self.call("POST", "/v1/context", body=body), 200)

    def op_profile(self):
        self.expect(self.call("GET", "/v1/profile", params={"user_id": self.pick_user()}), 200)

    def op_recall(self):
        body = {"user_id": self.pick_user(), "messages": [
            {"role": "user", "content": self.rng.choice(
                ["I'm going hiking tomorrow", "book a table for Friday", "我明天要去爬山"])}]}
        self.expect(self.call("POST", "/v1/recall", body=body), 200)

    def op_export(self):
        user = self.pick_user(shared_share=0.2)
        r = self.call("GET", "/v1/export", params={"user_id": user})
        if self.expect(r, 200):
            self.judge_export(r, user)

    def op_maintenance(self):
        body = {"dry_run": self.rng.random() < 0.5, "limit": 20}
        if self.rng.random() < 0.7:
            body["user_id"] = self.pick_user()
        if self.rng.random() < 0.2:
            body["full"] = True
        self.expect(self.call("POST", "/v1/maintenance", body=body), 200)

    def op_maintenance_log(self):
        params = {"user_id": self.pick_user(), "limit": "50"}
        self.expect(self.call("GET", "/v1/maintenance/log", params=params), 200)

    def op_admin(self):
        """The admin routes that apply on a keyless server (creating a key would end
        keyless mode, and erasing tenant 'default' every user, so neither is done)."""
        choice = self.rng.randrange(4)
        if choice == 0:
            self.expect(self.call("GET", "/v1/admin/keys"), 200)
        elif choice == 1:
            self.expect(self.call("GET", "/v1/admin/audit", params={"limit": "20"}), 200)
        elif choice == 2:
            self.expect(self.call("DELETE", "/v1/admin/keys/{id}",
                                  "/v1/admin/keys/key_soak%d" % self.rng.randrange(100)), 404)
        else:
            self.expect(self.call("DELETE", "/v1/admin/tenants/{id}",
                                  "/v1/admin/tenants/soak-void"), 200)

    def op_health(self):
        route = self.rng.choice(["/healthz", "/readyz", "/metrics", "/openapi.json"])
        self.expect(self.call("GET", route), 200)

    # --- sessions ---

    def pick_session(self):
        user = self.pick_user(shared_share=0.5)
        return user, self.world.current_session(user)

    def op_append(self, user=None, sess=None, after_close=False):
        if sess is None:
            user, sess = self.pick_session()
        shared = user in SHARED_USERS
        msgs = self.messages(self.rng.randint(1, 3), infer=self.rng.random() < 0.7)
        for m in msgs:
            if shared or self.rng.random() < 0.7:  # a shared session's ids are known up front
                m["id"] = "m-" + self.uid()
        duplicate = False
        with self.world.lock:
            now = tick()
            acked = [k for k, t in sess.turns.items() if t.wa is not None
                     and self.world.turn_state(sess, k, t, now, now) == PRESENT]
            if not shared and acked and not after_close and self.rng.random() < 0.04:
                msgs[-1]["id"] = self.rng.choice(acked)
                duplicate = True
            s0 = tick()
            if sess.first_sent is None:
                sess.first_sent = s0
            fresh = [m["id"] for m in msgs if "id" in m and m["id"] not in sess.turns]
            for m in msgs:
                if "id" in m and m["id"] in fresh:
                    sess.turns[m["id"]] = TurnRec(m["role"], m["content"], s0)
        body = {"user_id": user, "messages": msgs, "infer": self.rng.random() < 0.7}
        r = self.call("POST", "/v1/sessions/{id}/messages",
                      "/v1/sessions/%s/messages" % sess.sid, body=body)
        self.judge_append(r, user, sess, msgs, fresh, duplicate)

    def judge_append(self, r, user, sess, msgs, fresh, duplicate):
        """201; 409 if a close was sent or a message id repeats; 404 if an erase-all of the
        user overlapped (undocumented, tolerated and counted). Nothing is stored on a 4xx."""
        w = self.world
        if r is None:
            return
        with w.lock:
            racing = w.destroyed_since(user, r.sent, r.acked, ("all",))
            if not self.judge(r, r.status in (201, 409) or (r.status == 404 and racing),
                              "201 or 409 (404 only racing an erase-all)"):
                return
            if r.status != 201:
                for k in fresh:
                    sess.turns.pop(k, None)
            if r.status == 404:
                w.stats.note("404 on append racing an erase-all of its user")
                return
            if r.status == 409:
                ok = duplicate or w.close_sent_before(sess, r.acked)
                if not duplicate:
                    w.next_session(user, sess)
                self.judge(r, ok, "201: no close of %r was sent, no message id repeats" % sess.sid)
                return
            if not self.judge(r, not duplicate, "409: a message id repeats"):
                return
            if not self.judge(r, not w.closed_before(sess, r.sent, r.acked),
                              "409: session %r was closed before" % sess.sid):
                return
            body = r.json()
            turns = body["turns"]
            if not self.judge(r, [(t["role"], t["content"]) for t in turns] ==
                              [(m["role"], m["content"]) for m in msgs], "the turns as sent"):
                return
            for t in turns:
                rec = sess.turns.setdefault(t["id"], TurnRec(t["role"], t["content"], r.sent))
                rec.wa = r.acked
            sess.appends.append((r.sent, r.acked))
            self.record(r, body.get("results") or [], user, self.idx, r.sent)

    def op_close(self):
        user, sess = self.pick_session()
        with self.world.lock:
            c = [tick(), None]
            sess.closes.append(c)
        r = self.call("POST", "/v1/sessions/{id}/close", "/v1/sessions/%s/close" % sess.sid,
                      body={"user_id": user})
        if r is None or not self.judge(r, r.status in (200, 404), "200 or 404"):
            return
        w = self.world
        with w.lock:
            if r.status == 404:
                sess.closes.remove(c)
                self.judge(r, w.session_may_be_gone(sess, r.sent, r.acked),
                           "200: session %r has acknowledged turns" % sess.sid)
                return
            c[1] = r.acked
            ok = sess.first_sent is not None and sess.first_sent < r.acked
            if not self.judge(r, ok and r.json().get("closed") is True,
                              "404 (no turn sent) or {closed: true}"):
                return
            w.next_session(user, sess)
        if user not in SHARED_USERS and self.rng.random() < 0.3:
            self.op_append(user, sess, after_close=True)  # must be 409

    def op_session_get(self):
        user, sess = self.pick_session()
        if self.rng.random() < 0.3:  # an older one
            with self.world.lock:
                older = [x for (u, _), x in self.world.sessions.items() if u == user]
            sess = self.rng.choice(older)
        r = self.call("GET", "/v1/sessions/{id}", "/v1/sessions/" + sess.sid,
                      params={"user_id": user})
        if r is None or not self.judge(r, r.status in (200, 404), "200 or 404"):
            return
        w = self.world
        with w.lock:
            if r.status == 404:
                self.judge(r, w.session_may_be_gone(sess, r.sent, r.acked),
                           "200: session %r has acknowledged turns" % sess.sid)
                return
            body = r.json()
            closed = body["closed_at"] is not None
            if closed:
                ok = w.close_sent_before(sess, r.acked)
            else:
                ok = not w.closed_before(sess, r.sent, r.acked)
            if not self.judge(r, ok, "closed_at %s" % ("null" if closed else "set")):
                return
        turns = [(t["id"], t["role"], t["content"]) for t in body["working"]["turns"]]
        self.judge_session_turns(r, user, sess.sid, turns)

    def op_sessions_list(self):
        user = self.pick_user(shared_share=0.5)
        r = self.call("GET", "/v1/sessions", params={"user_id": user, "limit": "50"})
        if self.expect(r, 200):
            with self.world.lock:
                ok = all((user, x["session_id"]) in self.world.sessions
                         for x in r.json()["results"])
            self.judge(r, ok, "only sessions the clients started")

    # --- jobs ---

    def op_poll_job(self):
        with self.world.lock:
            mine = self.world.pending[self.idx]
            mine[:] = [j for j in mine if j.state in ("queued", "running")]
            job = self.rng.choice(mine) if mine else None
        if job is None:
            return self.op_add_async()
        poll_job(self, job, self.idx)

    # --- wrong requests: each deserves its 4xx ---

    def op_invalid(self):
        user = self.pick_user()
        cases = [
            ("POST", "/v1/memories", None, {"content": "x", "infer": False}, None, 400),
            ("POST", "/v1/memories", None, {"user_id": user, "content": "x", "txt": 1}, None,
             400),
            ("POST", "/v1/memories", None, {"user_id": user, "content": "x", "infer": False,
                                            "async": True}, None, 400),
            ("GET", "/v1/memories/{id}", "/v1/memories/nosuch-" + self.uid(), None,
             {"user_id": user}, 404),
            ("GET", "/v1/memories/{id}", "/v1/memories/bad%21id", None, {"user_id": user}, 400),
            ("PATCH", "/v1/memories/{id}", "/v1/memories/nosuch-" + self.uid(), {},
             {"user_id": user}, 400),
            ("GET", "/v1/jobs/{id}", "/v1/jobs/job_nosuch-" + self.uid(), None,
             {"user_id": user}, 404),
            ("GET", "/v1/sessions/{id}", "/v1/sessions/never-" + self.uid(), None,
             {"user_id": user}, 404),
            ("POST", "/v1/sessions/{id}/close", "/v1/sessions/never-%s/close" % self.uid(),
             {"user_id": user}, None, 404),
            ("POST", "/v1/sessions/{id}/messages", "/v1/sessions/never-%s/messages" % self.uid(),
             {"user_id": user, "messages": []}, None, 400),
            ("PUT", "/v1/memories", None, {}, None, 405),
            ("POST", "/v1/search", None, {"user_id": user, "query": "x", "k": 0}, None, 400),
            ("POST", "/v1/context", None, {"user_id": user, "query": "x", "token_budget": 5},
             None, 400),
            ("GET", "/v1/memories", None, None, {"user_id": user, "cursor": "garbage"}, 400),
            ("GET", "/v1/memories", None, None, {}, 400),
            ("DELETE", "/v1/memories", None, None, {}, 400),
            ("POST", "/v1/memories/batch", None, {"user_id": user, "memories": []}, None, 400),
            ("POST", "/v1/memories/batch", None, {"user_id": user, "infer": False, "memories": [
                {"content": "x"}, {"content": ""}]}, None, 400),
            ("GET", "/v1/nope", None, None, None, 404),
        ]
        method, route, path, body, params, status = self.rng.choice(cases)
        self.expect(self.call(method, route, path, body=body, params=params), status)


def poll_job(caller, job, owner):
    """GET /v1/jobs/{id}: its state, its result's memories into the model when done; 404
    only if an erasure may have taken it; failed is a failure unless one may have."""
    w = caller.world
    r = caller.call("GET", "/v1/jobs/{id}", "/v1/jobs/" + job.id, params={"user_id": job.user})
    if r is None or not caller.judge(r, r.status in (200, 404), "200 or 404"):
        return None
    with w.lock:
        erased = w.destroyed_since(job.user, job.ws, r.acked)
        if r.status == 404:
            if caller.judge(r, erased, "200: job %s was not erased" % job.id):
                job.erased = True
                if job.state != "done":
                    w.unseen_results.add(job.user)
                job.state = "erased"
            return r
        body = r.json()
        state = body.get("state")
        if not caller.judge(r, state in ("queued", "running", "done", "failed"), "a job state"):
            return r
        if state == "failed":
            caller.judge(r, erased, "the job done (failed: %s)" % body.get("error"))
        if state == "done" and job.state != "done":
            caller.record(r, body["result"]["results"], job.user, owner, job.ws)
        if job.state not in ("done", "failed"):
            job.state = state
    return r


# The op_ methods of Worker with their weights.
OP_WEIGHTS = [
    ("add_plain", 10), ("add_infer", 8), ("add_async", 3), ("batch_plain", 4),
    ("batch_infer", 2), ("list", 6), ("get", 8), ("patch", 5), ("soft_delete", 3),
    ("hard_delete", 2), ("history", 3), ("delete_all", 0.15), ("users", 2), ("append", 12),
    ("session_get", 4), ("close", 2.5), ("sessions_list", 2), ("poll_job", 5),
    ("search", 8), ("context", 4), ("profile", 2), ("recall", 2), ("export", 0.7),
    ("maintenance", 0.7), ("maintenance_log", 1), ("admin", 1), ("health", 1.5),
    ("invalid", 3),
]


# ------------------------------------------------------------------------------------------
# reading everything back
# ------------------------------------------------------------------------------------------

class Verifier(Caller):
    """After a phase (nothing in flight): every acknowledged write is read back."""

    def __init__(self, world, server):
        super().__init__(world, server, "verify")
        self.server = server

    def run(self):
        steps = [self.wait_for_jobs, self.check_memories, self.check_purged,
                 self.check_sessions, self.check_users, self.check_jobs]
        for step in steps:
            if self.world.stop.is_set():
                return
            step()

    def lost(self, text):
        with self.world.stats.lock:
            self.world.stats.lost += 1
        self.world.fail("lost write: " + text)

    def checked(self, n=1):
        with self.world.stats.lock:
            self.world.stats.checked += n

    def wait_for_jobs(self):
        deadline = time.monotonic() + JOB_WAIT_S
        while not self.world.stop.is_set():
            with self.world.lock:
                pending = [j for j in self.world.jobs.values() if j.state in ("queued", "running")]
            if not pending:
                return
            if time.monotonic() > deadline:
                return self.world.fail("jobs still pending after %ds: %s" % (
                    JOB_WAIT_S, [j.id for j in pending[:5]]))
            for job in pending:
                poll_job(self, job, job.owner)
            time.sleep(0.1)

    def check_memories(self):
        """GET /v1/memories/{id} for every memory, on parallel connections; of those an
        earlier phase already found erased, a sample (they stay erased after a restart)."""
        with self.world.lock:
            recs = [x for x in self.world.memories.values() if not x.found_gone]
            gone = [x for x in self.world.memories.values() if x.found_gone]
        rng = random.Random("%d/verify/%d" % (self.world.seed, self.world.phase))
        recs += rng.sample(gone, min(len(gone), GONE_SAMPLE))
        parts = [recs[i::THREADS] for i in range(THREADS)]
        callers = [self] + [Caller(self.world, self.server, "verify-%d" % i)
                            for i in range(1, THREADS)]
        threads = [threading.Thread(target=self.check_some, args=(c, part))
                   for c, part in zip(callers, parts)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def check_some(self, caller, recs):
        try:
            for rec in recs:
                if self.world.stop.is_set():
                    return
                self.check_memory(caller, rec)
        except Exception:
            self.world.fail("verify: exception:\n" + traceback.format_exc())

    def check_memory(self, caller, rec):
        r = caller.call("GET", "/v1/memories/{id}", "/v1/memories/" + rec.id,
                        params={"user_id": rec.user})
        if r is None:
            return
        state = self.world.memory_state(rec, r.sent, r.acked)
        self.checked()
        if state == PRESENT and r.status == 404:
            return self.lost("memory %s of %s (%r) is gone: %r; %s" % (
                rec.id, rec.user, rec.last, r, caller.diagnose(rec)))
        if state == GONE and r.status != 404:
            return caller.judge(r, False, "404: memory %s was erased" % rec.id)
        rec.found_gone = state == GONE
        if r.status == 200 and not self.world.content_ok(rec, r.json()):
            return self.lost("memory %s: expected content %r%s, got %s" % (
                rec.id, rec.last, " (deleted)" if rec.deleted else "", clip(r.text())))
        caller.judge(r, r.status in (200, 404), "200 or 404")

    def check_purged(self):
        """What a hard delete erased is gone, including what the model never held."""
        with self.world.lock:
            ids = [(mid, d.user) for mid, d in self.world.purged.items()
                   if mid not in self.world.memories]
        for mid, user in ids:
            self.checked()
            self.expect(self.call("GET", "/v1/memories/{id}", "/v1/memories/" + mid,
                                  params={"user_id": user}), 404)

    def check_sessions(self):
        """Each user's export and each session's GET against the model."""
        for user in sorted(self.world.users):
            r = self.call("GET", "/v1/export", params={"user_id": user})
            if not self.expect(r, 200):
                return
            lines = self.judge_export(r, user)
            if lines is None:
                return
            exported = {x["session_id"]: {t["message_id"]: t for t in x["turns"]}
                        for x in lines if x["kind"] == "session"}
            with self.world.lock:
                sessions = [s for (u, _), s in self.world.sessions.items() if u == user]
            for sess in sessions:
                self.check_session(sess, exported)

    def check_session(self, sess, exported):
        w = self.world
        with w.lock:
            final = w.session_final(sess)
        r = self.call("GET", "/v1/sessions/{id}", "/v1/sessions/" + sess.sid,
                      params={"user_id": sess.user})
        if r is None or not self.judge(r, r.status in (200, 404), "200 or 404"):
            return
        if final is not None:
            exists, closed = final
            if exists and (r.status == 404 or sess.sid not in exported):
                return self.lost("session %r of %s is gone" % (sess.sid, sess.user))
            if not self.judge(r, exists or r.status == 404, "404: session erased"):
                return
            if r.status == 200 and not self.judge(
                    r, (r.json()["closed_at"] is not None) == closed,
                    "closed_at %s" % ("set" if closed else "null")):
                return
        turns = exported.get(sess.sid, {})
        if r.status == 200 and not self.judge(r, r.json()["turn_count"] == len(turns),
                                              "turn_count %d as exported" % len(turns)):
            return
        self.check_turns(sess, turns, r)

    def check_turns(self, sess, turns, r):
        w = self.world
        with w.lock:
            for msg, t in sess.turns.items():
                if t.wa is None:
                    continue
                state = w.turn_state(sess, msg, t, r.sent, r.acked)
                self.checked()
                got = turns.get(msg)
                if state == PRESENT and got is None:
                    return self.lost("turn %r of session %r (%s): %r" % (
                        msg, sess.sid, sess.user, t.content))
                if state == GONE and got is not None:
                    return self.world.fail("turn %r of session %r was erased, still exported"
                                           % (msg, sess.sid))
                if got is not None and (got["role"], got["content"]) != (t.role, t.content):
                    return self.lost("turn %r of session %r: %r, exported %r" % (
                        msg, sess.sid, t.content, got["content"]))

    def check_users(self):
        """Every user with a memory that must exist is listed; no one else."""
        seen, cursor = set(), None
        for _ in range(100):
            params = {"limit": "1000"}
            if cursor:
                params["cursor"] = cursor
            r = self.call("GET", "/v1/users", params=params)
            if not self.expect(r, 200):
                return
            seen |= {u["user_id"] for u in r.json()["results"]}
            cursor = r.json()["next_cursor"]
            if not cursor:
                break
        with self.world.lock:
            must = {rec.user for rec in self.world.memories.values() if not rec.deleted
                    and self.world.memory_state(rec, r.sent, r.acked) == PRESENT}
            unknown = seen - self.world.users
        self.judge(r, must <= seen and not unknown,
                   "users listed: missing %s, unknown %s" % (sorted(must - seen), sorted(unknown)))

    def check_jobs(self):
        """A finished job stays readable (done) unless an erasure took it."""
        with self.world.lock:
            done = [j for j in self.world.jobs.values() if j.state == "done"]
        for job in done:
            r = poll_job(self, job, job.owner)
            if r is not None and r.status == 200:
                self.judge(r, r.json()["state"] == "done", "done stays done")


# ------------------------------------------------------------------------------------------
# the tests
# ------------------------------------------------------------------------------------------

class SoakTest(ServerTestCase):
    """Fresh database: soak, verify; restart: soak at once, verify; reopen: verify."""

    def test_soak_fresh_then_restart(self):
        seed = SEED if SEED is not None else random.SystemRandom().randrange(2 ** 31)
        print("\nsoak: seed %d, %.0f s, %d threads" % (seed, SECONDS, THREADS),
              file=sys.stderr, flush=True)
        world = World(seed, THREADS)
        started = time.monotonic()
        phases = []
        try:
            for phase, soak_s in ((1, SECONDS / 2), (2, SECONDS / 2), (3, 0)):
                phases.append(self.run_phase(world, phase, soak_s))
                if world.failures:
                    break
        finally:
            write_summary(world, time.monotonic() - started, phases)
        if world.failures:
            self.fail("soak failed (seed %d): %d failure(s); the first:\n%s" % (
                seed, len(world.failures), "\n".join(world.failures[:MAX_FAILURES_SHOWN])))

    def run_phase(self, world, phase, soak_s):
        world.phase = phase
        n0, t0 = world.stats.requests(), time.monotonic()
        server = self.start_server(*SERVER_ARGS, name="phase%d" % phase)
        if soak_s > 0:
            soak(world, server, phase, soak_s)
        n1, t1 = world.stats.requests(), time.monotonic()
        if not world.failures:
            Verifier(world, server).run()
        n2, t2 = world.stats.requests(), time.monotonic()
        code = server.stop()
        if code != 0:
            world.fail("server exit status %d; stderr:\n%s" % (code, server.stderr()[-2000:]))
        return {"phase": phase, "soak_requests": n1 - n0, "soak_s": round(t1 - t0, 1),
                "verify_requests": n2 - n1, "verify_s": round(t2 - t1, 1)}


def soak(world, server, phase, seconds):
    """THREADS workers from the moment the server listens, for `seconds`."""
    deadline = time.monotonic() + seconds
    workers = [Worker(world, server, i, phase, deadline) for i in range(THREADS)]
    threads = [threading.Thread(target=w.run, name="soak-%d" % i)
               for i, w in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def write_summary(world, duration, phases):
    s = world.stats
    summary = {
        "seed": world.seed, "duration_s": round(duration, 1), "soak_seconds": SECONDS,
        "threads": THREADS, "requests": s.requests(),
        "routes": dict(sorted(s.routes.items())), "status_classes": s.classes(),
        "route_statuses": {"%s %d" % k: v for k, v in sorted(s.route_statuses.items())},
        "statuses": {str(k): v for k, v in sorted(s.statuses.items())},
        "acked_writes_checked": s.checked, "lost_writes": s.lost,
        "tolerated": dict(s.notes), "failures": len(world.failures),
        "first_failures": world.failures[:MAX_FAILURES_SHOWN],
        "phases": phases,
    }
    if SUMMARY_JSON:
        with open(SUMMARY_JSON, "w") as f:
            json.dump(summary, f, indent=1, ensure_ascii=False)
    print("soak: %d requests in %.1f s (%s), %d acknowledged writes checked, %d lost, seed %d"
          % (summary["requests"], duration, summary["status_classes"], s.checked, s.lost,
             world.seed), file=sys.stderr, flush=True)


class CloseThenWriteTest(ServerTestCase):
    """The bug's sequence: after a session close (and a background audit flush) every write
    answered 503 "database is locked"."""

    def test_write_after_session_close(self):
        server = self.start_server()
        c = h.Client(server.port, store_as_given=False)
        server.clients.append(c)
        self.call(c, "POST", "/v1/sessions/a/messages", {
            "user_id": "u", "messages": [{"role": "user", "content": "I like jazz"}]},
            expect=201)
        self.call(c, "POST", "/v1/sessions/a/close", {"user_id": "u"}, expect=200)
        time.sleep(0.6)  # the audit log is flushed every 200 ms
        m = self.ok(c, "POST", "/v1/memories",
                    {"user_id": "probe", "content": "probe", "infer": False}, expect=201)
        self.assertEqual(m["results"][0]["memory"]["content"], "probe")
        self.call(c, "GET", "/readyz", expect=200)
        got = self.ok(c, "GET", "/v1/memories/" + m["results"][0]["id"],
                      params={"user_id": "probe"})
        self.assertEqual(got["content"], "probe")


class SecondProcessTest(ServerTestCase):
    """Another process writing the database while the server runs (`engram keys create`, as the
    README shows): the server's connections used to lose their lock on the file whenever it
    opened a connection (its key check read page 1 through a descriptor of its own and closed
    it), so the other process, finding itself alone at exit, checkpointed and deleted the WAL
    the server was writing: the server's next writes failed with "disk I/O error" and what it
    had acknowledged meanwhile could vanish at the next start."""

    def test_writes_after_another_process_wrote_succeed_and_survive_a_restart(self):
        server = self.start_server()
        key = h.create_key(server.db, "t-second")["secret"]  # another process writes, exits
        time.sleep(1.1)  # keyless mode ends within a second of the first key
        c = h.Client(server.port, key=key, store_as_given=False)
        server.clients.append(c)
        said = {}
        for text in ["I'm allergic to shellfish", "I live in Bergen", "My sister is called Ada"]:
            m = self.ok(c, "POST", "/v1/memories", {"user_id": "u", "content": text},
                        expect=201)
            said[text] = [r["id"] for r in m["results"]]
            h.run_engram(server.db, "--json", "keys", "list")  # another process reads, exits
        self.assertEqual(server.stop(), 0, server.stderr())
        self.assertNotIn("disk I/O", server.stderr())
        again = self.start_server(name="again")
        c2 = h.Client(again.port, key=key)
        again.clients.append(c2)
        for text, ids in said.items():
            for id_ in ids:
                self.ok(c2, "GET", "/v1/memories/" + id_, params={"user_id": "u"})


class WriteHealthTest(ServerTestCase):
    """While another process holds the database's write lock past the busy timeout, writes
    answer 503 naming the cause, /readyz fails saying writes fail and /metrics shows it; once
    the lock is released, /readyz recovers by itself (it tries a write) and writes succeed."""

    def test_readyz_follows_write_health(self):
        import sqlite3
        server = self.start_server("--busy-timeout-ms", "200")
        c = h.Client(server.port)
        server.clients.append(c)
        self.ok(c, "POST", "/v1/memories", {"user_id": "u", "content": "before"}, expect=201)
        self.ok(c, "GET", "/readyz", expect=200)
        holder = sqlite3.connect(server.db, isolation_level=None, timeout=5)
        holder.execute("BEGIN IMMEDIATE")
        try:
            r = c.request("POST", "/v1/memories", body={"user_id": "u", "content": "blocked"})
            self.assert_error_body(r, 503, "unavailable", mentions="locked")
            ready = c.request("GET", "/readyz")
            self.assert_error_body(ready, 503, "unavailable", mentions="writes are failing")
            metrics = c.request("GET", "/metrics").body.decode()
            self.assertIn("engram_storage_writes_ok 0", metrics)
            self.assertIn('engram_storage_errors_total{code="busy"}', metrics)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        self.ok(c, "GET", "/readyz", expect=200)
        self.ok(c, "POST", "/v1/memories", {"user_id": "u", "content": "after"}, expect=201)
        self.assertIn("engram_storage_writes_ok 1", c.request("GET", "/metrics").body.decode())
        self.assertIn("writes failing", server.stderr())
        self.assertIn("writes work again", server.stderr())

    # The 503s above are the point of the test.
    ROUTES_ANSWERING_5XX = ("POST /v1/memories", "GET /readyz")


def main():
    global SEED, SECONDS, THREADS, SUMMARY_JSON
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--seconds", type=float, default=SECONDS)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--summary-json")
    args, rest = parser.parse_known_args()
    SEED, SECONDS, THREADS, SUMMARY_JSON = args.seed, args.seconds, args.threads, \
        args.summary_json
    sys.argv = [sys.argv[0]] + rest
    h.main()


if __name__ == "__main__":
    main()
