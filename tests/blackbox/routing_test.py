#!/usr/bin/env python3
"""Two `engram serve` replicas on one PostgreSQL (scripts/pg_server.sh) behind nginx run with
the shipped deploy/nginx/engram.conf (only its addresses replaced, and its debugging header
X-Engram-Upstream switched on): each user's requests land on one replica and users spread over
both; each replica loads search indexes only for its own users; a write through one replica is
found on the other; a replica killed under a write load hands its users to the other, with
502s only while nginx notices, and every acknowledged write is read back afterwards.

    python3 tests/blackbox/routing_test.py --engram build/engram
"""

import grp
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time

import server_harness as h
from postgres_test import PostgresServer
from server_harness import ServerTestCase

TEMPLATE = os.path.join(h.ROOT, "deploy", "nginx", "engram.conf")
TENANT = "acme"


def find_nginx():
    found = shutil.which("nginx", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    if not found:
        raise AssertionError("no nginx (scripts/install-deps.sh installs it)")
    return found


def routed_config(template, replicas, port):
    """The shipped config with its replicas, its port and the X-Engram-Upstream header of the
    test's; fails if the file no longer has what this replaces (the test would drift from it)."""
    upstream = re.search(r"^upstream engram \{\n(.*?)^\}", template, re.M | re.S)
    if not upstream:
        raise AssertionError("no `upstream engram {` block in " + TEMPLATE)
    lines = re.findall(r"^    server \S+( [^;]*)?;\n", upstream.group(1), re.M)
    if len(lines) < 2:
        raise AssertionError("the upstream block lists fewer than two replicas")
    params = lines[0] or ""
    servers = "".join("    server 127.0.0.1:%d%s;\n" % (p, params) for p in replicas)
    block = re.sub(r"^    server \S+(?: [^;]*)?;\n", "", upstream.group(1), flags=re.M)
    block = block.replace("    keepalive ", servers + "    keepalive ", 1)
    out = template[:upstream.start(1)] + block + template[upstream.end(1):]
    out, listens = re.subn(r"^    listen \S+;", "    listen 127.0.0.1:%d;" % port, out,
                           flags=re.M)
    debug = "# add_header X-Engram-Upstream $upstream_addr always;"
    if listens != 1 or debug not in out:
        raise AssertionError("the config's `listen` or its X-Engram-Upstream line changed")
    return out.replace(debug, debug[2:])


class Nginx:
    """nginx in the foreground as the current user, everything it writes under `workdir`."""

    def __init__(self, workdir, replicas):
        self.dir = os.path.join(workdir, "nginx")
        os.makedirs(os.path.join(self.dir, "temp"))
        self.port = h.free_port()
        with open(TEMPLATE) as f:
            routed = routed_config(f.read(), replicas, self.port)
        with open(os.path.join(self.dir, "engram.conf"), "w") as f:
            f.write(routed)
        # As root the workers would run as nobody, who cannot enter the test's directory.
        user = ""
        if os.geteuid() == 0:
            user = "user %s %s;" % (pwd.getpwuid(os.geteuid()).pw_name,
                                    grp.getgrgid(os.getegid()).gr_name)
        d = self.dir
        with open(os.path.join(d, "nginx.conf"), "w") as f:
            f.write("""%(user)s
worker_processes 1;
error_log %(d)s/error.log notice;
pid %(d)s/nginx.pid;
events { worker_connections 1024; }
http {
    log_format routed '$request_method $request_uri $status upstream=$upstream_addr '
                      'upstream_status=$upstream_status user=$http_x_engram_user';
    access_log %(d)s/access.log routed;
    client_body_temp_path %(d)s/temp/body;
    proxy_temp_path %(d)s/temp/proxy;
    fastcgi_temp_path %(d)s/temp/fastcgi;
    uwsgi_temp_path %(d)s/temp/uwsgi;
    scgi_temp_path %(d)s/temp/scgi;
    include %(d)s/engram.conf;
}
""" % {"user": user, "d": d})
        self.proc = subprocess.Popen(
            [find_nginx(), "-p", d, "-e", d + "/error.log", "-c", d + "/nginx.conf",
             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                raise AssertionError("nginx exited: %s %s" % (self.proc.stderr.read().decode(),
                                                              self.log("error.log")))
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError("nginx does not listen: " + self.log("error.log"))
                time.sleep(0.05)

    def log(self, name):
        try:
            with open(os.path.join(self.dir, name)) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stderr.close()


def answered_by(r):
    """The replica (its port) that answered: the last of X-Engram-Upstream's addresses (nginx
    lists each one it tried)."""
    upstream = r.header("X-Engram-Upstream")
    if not upstream:
        raise AssertionError("no X-Engram-Upstream: %r" % r)
    return int(upstream.split(",")[-1].strip().rsplit(":", 1)[1])


class RoutingTest(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.pg = PostgresServer()  # starting one takes seconds: a database per test on it
        cls.databases = 0

    @classmethod
    def tearDownClass(cls):
        cls.pg.close()

    def setUp(self):
        super().setUp()
        self.nginx = None
        RoutingTest.databases += 1
        name = "routing_%d" % self.databases
        subprocess.run(["psql", "-q", self.pg.url, "-c", "CREATE DATABASE " + name],
                       check=True, capture_output=True, timeout=60)
        self.db = self.pg.url.rsplit("/", 1)[0] + "/" + name
        try:
            self.start_all()
        except BaseException:
            self.tearDown()
            raise

    def start_all(self):
        # With a key in the database the replicas refuse requests without one: the key passing
        # through nginx is part of what is tested.
        self.key = h.create_key(self.db, TENANT)["secret"]
        self.a = self.start_server(name="a")
        self.b = self.start_server(name="b")
        self.nginx = Nginx(self.dir, [self.a.port, self.b.port])
        self.proxy = h.Client(self.nginx.port, key=self.key)

    def tearDown(self):
        # nginx first: its idle connections to the replicas would hold up their shutdown.
        if self.nginx:
            self.proxy.close()
            self.nginx.stop()
        super().tearDown()

    def for_user(self, client, method, path, user, body=None, params=None, header=True):
        """A request made for `user`, with the header Engram's clients send; returns the reply
        and the replica that answered."""
        headers = {"X-Engram-User": user} if header else {}
        r = client.request(method, path, body=body, params=params, headers=headers)
        return r, answered_by(r)

    def add(self, client, user, text):
        r, port = self.for_user(client, "POST", "/v1/memories", user,
                                body={"user_id": user, "content": text})
        self.assertEqual(r.status, 201, r)
        return r.json()["results"][0]["id"], port

    def search_ids(self, client, user, query, header=True):
        r = client.request("POST", "/v1/search", body={"user_id": user, "query": query},
                           headers={"X-Engram-User": user} if header else {})
        self.assertEqual(r.status, 200, r)
        return [x["id"] for x in r.json()["results"]]

    def loaded_scopes(self, server):
        """engram_index_loaded_scopes; the server computes its gauges at the first scrape
        (then at most every 5 s), so each test scrapes each replica once."""
        text = server.client().request("GET", "/metrics").text()
        return int(re.search(r"^engram_index_loaded_scopes (\d+)$", text, re.M).group(1))

    def test_each_user_stays_on_one_replica_which_alone_loads_their_index(self):
        users = ["user-%02d" % i for i in range(40)]
        home, written = {}, {}
        for u in users:
            written[u], home[u] = self.add(self.proxy, u, "%s keeps bees in Lisbon" % u)
        for u in users:
            r, port = self.for_user(self.proxy, "POST", "/v1/search", u,
                                    body={"user_id": u, "query": "bees"})
            self.assertEqual(r.status, 200, r)
            self.assertEqual(port, home[u], u)
            self.assertEqual([x["id"] for x in r.json()["results"]], [written[u]])
            r, port = self.for_user(self.proxy, "GET", "/v1/memories", u,
                                    params={"user_id": u})
            self.assertEqual((r.status, port), (200, home[u]), r)
            # Without the header nginx falls back to the query string's user_id.
            r, port = self.for_user(self.proxy, "GET", "/v1/memories/" + written[u], u,
                                    params={"user_id": u}, header=False)
            self.assertEqual((r.status, port), (200, home[u]), r)
        on = {s.port: sorted(u for u in users if home[u] == s.port) for s in (self.a, self.b)}
        self.assertGreaterEqual(min(len(v) for v in on.values()), 5, on)
        # Requests naming no user spread over the replicas rather than all going to one.
        anyone = {self.for_user(self.proxy, "GET", "/healthz", "", header=False)[1]
                  for _ in range(30)}
        self.assertEqual(anyone, {self.a.port, self.b.port})
        # The key passed through: without it each replica refuses.
        self.assertEqual(self.proxy.request("GET", "/v1/memories", params={"user_id": "x"},
                                            key=False).status, 401)

        # Two more searches of each user: spread over both replicas, most users' indexes would
        # now be loaded on both. Routed, each replica holds the indexes of its own users, all
        # of them and no others (another replica's writes of other users cost it none).
        for _ in range(2):
            for u in users:
                r, port = self.for_user(self.proxy, "POST", "/v1/search", u,
                                        body={"user_id": u, "query": "bees"})
                self.assertEqual((r.status, port), (200, home[u]), r)
        for s in (self.a, self.b):
            loaded = self.loaded_scopes(s)
            self.assertEqual(loaded, len(on[s.port]), on)

        # Any replica serves any user: each user's memory is found on the other replica too.
        for u in users:
            other = self.b if home[u] == self.a.port else self.a
            self.assertEqual(self.search_ids(other.client(key=self.key), u, "bees"),
                             [written[u]], u)
        # A write that reaches a user's replica from elsewhere (a replica written directly) is
        # found through the proxy, whose replica has that user's index loaded, within a second.
        for u in (on[self.a.port][0], on[self.b.port][0]):
            other = self.b if home[u] == self.a.port else self.a
            mid = self.ok(other.client(key=self.key), "POST", "/v1/memories",
                          {"user_id": u, "content": "%s makes honey" % u},
                          expect=201)["results"][0]["id"]
            deadline = time.monotonic() + 1.0
            while mid not in self.search_ids(self.proxy, u, "honey"):
                self.assertLess(time.monotonic(), deadline, "not found through the proxy: " + u)
                time.sleep(0.02)

    def test_a_killed_replicas_users_move_to_the_other_losing_no_acknowledged_write(self):
        users = ["load-%02d" % i for i in range(16)]
        home = {}
        for u in users:
            _, home[u] = self.add(self.proxy, u, "%s keeps bees" % u)
            self.assertNotEqual(self.search_ids(self.proxy, u, "bees"), [])
        victim, survivor = (self.a, self.b) if home[users[0]] == self.a.port else (self.b, self.a)
        moved = [u for u in users if home[u] == victim.port]
        stayed = [u for u in users if home[u] == survivor.port]
        self.assertTrue(moved and stayed, home)

        with RoutedLoad(self.nginx.port, self.key, users) as load:
            time.sleep(1.5)
            killed_at = time.monotonic()
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(10)
            victim.proc.stdout.close()
            victim._stderr.close()
            victim.proc = None  # killed on purpose: tearDown does not stop it
            time.sleep(2.5)
        window_end = killed_at + 1.0  # by then nginx has marked the replica failed

        self.assertEqual(load.unexpected, [])
        failed = [(round(t - killed_at, 3), what, status) for t, what, status in load.failures]
        self.assertTrue(all(status in (502, 503) and what == "POST"
                            for _, what, status in failed), failed)  # GETs moved over unharmed
        # Only requests on their way when the replica died, or sent just after.
        self.assertTrue(all(-1.0 < t < window_end - killed_at for t, _, _ in failed), failed)
        self.assertGreater(load.ok_after(killed_at, survivor.port, moved), 10, "moved users")
        self.assertGreater(load.ok_after(killed_at, survivor.port, stayed), 10, "other users")
        # After the window every reply came from the survivor.
        late = [(u, p) for t, u, p in load.answered if t > window_end and p != survivor.port]
        self.assertEqual(late, [])

        # Every acknowledged write is there, through the proxy and on the survivor directly.
        direct = survivor.client(key=self.key)
        self.assertGreater(len(load.acked), 50)
        for mid, u in load.acked:
            r, port = self.for_user(self.proxy, "GET", "/v1/memories/" + mid, u,
                                    params={"user_id": u})
            self.assertEqual((r.status, port), (200, survivor.port), r)
            self.assertEqual(direct.request("GET", "/v1/memories/" + mid,
                                            params={"user_id": u}).status, 200, mid)
        for u in moved:
            mine = {mid for mid, owner in load.acked if owner == u}
            found = set(self.search_ids(self.proxy, u, "said under load"))
            self.assertTrue(found & mine, u)


class RoutedLoad(h.LoadThreads):
    """Threads writing memories (and listing them) through the proxy for `users`, the header
    set, until stopped. A write answered 502 or 503 is sent again, as an application would;
    records every reply with its time and the replica that answered."""

    def __init__(self, port, key, users, threads=4):
        super().__init__(threads)
        self.port = port
        self.key = key
        self.users = users
        self.acked = []       # (id, user)
        self.answered = []    # (time, user, replica port) of each 2xx
        self.failures = []    # (time sent, method, status) of each 502/503
        self.unexpected = []  # anything else: other statuses, a dropped connection

    def run(self, n):
        client = h.Client(self.port, key=self.key, timeout=15)
        i = 0
        while not self.stop_flag.is_set():
            user = self.users[(n + i * 3) % len(self.users)]
            i += 1
            if i % 4 == 0:
                self.send(client, user, "GET", "/v1/memories", None, {"user_id": user})
                continue
            body = {"user_id": user, "content": "fact %d-%d said under load" % (n, i)}
            while not self.stop_flag.is_set():
                if self.send(client, user, "POST", "/v1/memories", body, None):
                    break
                time.sleep(0.02)
        client.close()

    def send(self, client, user, method, path, body, params):
        """One request; True when it succeeded."""
        sent = time.monotonic()
        try:
            r = client.request(method, path, body=body, params=params,
                               headers={"X-Engram-User": user})
        except OSError as e:  # nginx keeps its client's connection whatever the replicas do
            client.close()
            with self.lock:
                self.unexpected.append((method, repr(e)))
            return False
        with self.lock:
            if r.status in (200, 201):
                self.answered.append((sent, user, answered_by(r)))
                if method == "POST":
                    self.acked.append((r.json()["results"][0]["id"], user))
                return True
            if r.status in (502, 503):
                self.failures.append((sent, method, r.status))
            else:
                self.unexpected.append(r)
        return False

    def ok_after(self, t, port, users):
        with self.lock:
            return sum(1 for s, u, p in self.answered if s > t and p == port and u in users)


if __name__ == "__main__":
    h.main()
