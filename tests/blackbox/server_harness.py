"""Shared by the `engram serve` black-box tests: runs the real server on an ephemeral loopback
port and talks HTTP/1.1 to it with the standard library only.

Not a test itself: server_test.py and server_load_test.py import it.
"""

import argparse
import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

ENGRAM = None
CRASH_WRITER = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    """A loopback port free now (for servers the harness does not start itself)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env():
    """The environment without ENGRAM_ settings."""
    return {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
                or k == "ENGRAM_CHECK_STORAGE"}  # the suite's storage checks stay on


def read_until_closed(sock, size=65536):
    """What `sock` receives until the peer closes it, its timeout passes or it fails: all
    that arrived by then."""
    out = b""
    try:
        while True:
            chunk = sock.recv(size)
            if not chunk:
                return out
            out += chunk
    except OSError:  # socket.timeout and ssl.SSLError among them
        return out


def run_engram(db, *args, tenant=None, timeout=60):
    """Runs a one-shot `engram` command (keys create, list, ...) on db."""
    cmd = [ENGRAM, "--db", db]
    if tenant is not None:
        cmd += ["--tenant", tenant]
    cmd += list(args)
    return subprocess.run(cmd, capture_output=True, env=clean_env(), timeout=timeout)


def create_key(db, tenant, admin=False, name=""):
    """Creates a key with the CLI; returns its JSON ({"id", "secret", ...})."""
    args = ["--json", "keys", "create"] + (["--admin"] if admin else [])
    if name:
        args += ["--name", name]
    r = run_engram(db, *args, tenant=tenant)
    if r.returncode != 0:
        raise AssertionError("keys create failed: %r" % r.stderr)
    return json.loads(r.stdout)


class Response:
    def __init__(self, method, path, status, headers, body):
        self.method = method
        self.path = path
        self.status = status
        self.headers = headers  # lower-cased names
        self.body = body

    def header(self, name):
        return self.headers.get(name.lower())

    def text(self):
        return self.body.decode("utf-8")

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "%s %s -> %d %s" % (self.method, self.path, self.status, self.body[:600])


def url_path(path, params=None):
    """path plus a query string; params is a dict or a list of pairs (a key may repeat)."""
    if not params:
        return path
    items = params.items() if isinstance(params, dict) else params
    return path + "?" + urllib.parse.urlencode(list(items))


class Client:
    """One keep-alive connection (http.client reconnects if the server closed it)."""

    # The server closes connections idle for its keep-alive timeout (5 s by default); a
    # connection idle for this long is reopened before use rather than found closed.
    IDLE_S = 4.0

    # POST /v1/memories(/batch) runs extraction unless told otherwise (infer defaults to true).
    # Most suites test storage, search and the protocol with exact contents, so this client
    # sends infer=false when a body does not say; write-path tests set it to False.
    STORE_AS_GIVEN_PATHS = ("/v1/memories", "/v1/memories/batch")

    def __init__(self, port, key=None, timeout=30, store_as_given=True, tls_ca=None):
        """tls_ca: the PEM certificate to trust; the connection is then HTTPS."""
        self.port = port
        self.key = key
        self.store_as_given = store_as_given
        if tls_ca:
            context = ssl.create_default_context(cafile=tls_ca)
            self.conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout,
                                                    context=context)
        else:
            self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.last_used = time.monotonic()

    def close(self):
        self.conn.close()

    def request(self, method, path, body=None, params=None, key=None, headers=None, raw=None):
        """body: a JSON value to send; raw: bytes sent as they are. key=False sends no key."""
        hdrs = dict(headers or {})
        key = self.key if key is None else key
        if key:
            hdrs.setdefault("Authorization", "Bearer " + key)
        data = raw
        if (self.store_as_given and method == "POST" and path in self.STORE_AS_GIVEN_PATHS
                and isinstance(body, dict) and "infer" not in body):
            body = dict(body, infer=False)
        if body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        full = url_path(path, params)
        if time.monotonic() - self.last_used > self.IDLE_S:
            self.conn.close()
        self.conn.request(method, full, body=data, headers=hdrs)
        resp = self.conn.getresponse()
        payload = resp.read()
        headers_lc = {k.lower(): v for k, v in resp.getheaders()}
        if resp.will_close:
            self.conn.close()
        self.last_used = time.monotonic()
        return Response(method, full, resp.status, headers_lc, payload)


class Server:
    """`engram --db DB serve --port 0` with the access log in a file; stderr to a file."""

    def __init__(self, workdir, db, args=(), name="server", access_log=True, env=None):
        self.workdir = workdir
        self.env = env if env is not None else clean_env()
        self.db = db
        self.args = list(args)
        self.access_log = os.path.join(workdir, name + "-access.log") if access_log else ""
        self.stderr_path = os.path.join(workdir, name + "-stderr.log")
        self.proc = None
        self.port = None
        self.url = None
        self.clients = []

    def start(self, timeout=20):
        cmd = [ENGRAM, "--db", self.db, "serve", "--port", "0",
               "--access-log", self.access_log] + self.args
        self._stderr = open(self.stderr_path, "ab")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._stderr,
                                     env=self.env)
        first = []
        reader = threading.Thread(target=lambda: first.append(self.proc.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        if not first or not first[0]:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("server printed no URL; stderr: %s" % self.stderr())
        self.url = first[0].decode().strip()
        parsed = urllib.parse.urlparse(self.url)
        if parsed.scheme not in ("http", "https") or not parsed.port:
            raise AssertionError("first stdout line is not a URL: %r" % self.url)
        self.port = parsed.port
        # Anything else on stdout would be a bug (the access log goes to its file); drain it
        # so the server can never block on a full pipe, and keep it for the assertions.
        self.stdout_rest = []
        self._drain = threading.Thread(target=self._drain_stdout, daemon=True)
        self._drain.start()
        return self

    def _drain_stdout(self):
        for line in self.proc.stdout:
            self.stdout_rest.append(line)

    def client(self, key=None, timeout=30, tls_ca=None):
        c = Client(self.port, key=key, timeout=timeout, tls_ca=tls_ca)
        self.clients.append(c)
        return c

    def stop(self, sig=signal.SIGTERM, timeout=30, close_clients=True):
        """Sends sig and waits; returns the exit status (negative: killed by a signal).

        Closes this server's clients first: cpp-httplib 0.11.4 lets an idle keep-alive
        connection delay shutdown until its keep-alive timeout (5 s) runs out."""
        if self.proc is None:
            return None
        if close_clients:
            for c in self.clients:
                c.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("server did not exit within %ds of signal %d" % (timeout, sig))
        self._drain.join(5)
        self.proc.stdout.close()
        self._stderr.close()
        self.proc = None
        return code

    def stderr(self):
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def log_records(self):
        if not self.access_log or not os.path.exists(self.access_log):
            return []
        with open(self.access_log, "rb") as f:
            data = f.read()
        if not data.endswith(b"\n"):  # a server killed mid-line: the last line is partial
            data = data[:data.rfind(b"\n") + 1]
        return [json.loads(line) for line in data.splitlines() if line.strip()]

    def log_bytes(self):
        with open(self.access_log, "rb") as f:
            return f.read()


_PG_DATABASES = __import__("itertools").count(1)


class ThrowawayService:
    """A server of the test's own started by one of scripts/*_server.sh (`start DIR` prints its
    URL; `stop DIR` stops it, and a later start reuses the port), its files in a temporary
    directory. Tests may stop and start it again."""

    def __init__(self, script, prefix):
        self.script = os.path.join(ROOT, "scripts", script)
        self.tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.dir = os.path.join(self.tmp.name, "data")
        self.url = self.start()

    def start(self):
        return subprocess.run([self.script, "start", self.dir], check=True, capture_output=True,
                              text=True, timeout=120).stdout.strip()

    def stop(self):
        subprocess.run([self.script, "stop", self.dir], check=True, capture_output=True,
                       timeout=120)

    def close(self):
        try:
            self.stop()
        finally:
            self.tmp.cleanup()


class LoadThreads:
    """A load run by `threads` threads calling self.run(n) until stop_flag is set: start them
    with `with`, which stops and joins them at its end."""

    def __init__(self, threads):
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(threads)]

    def run(self, n):
        raise NotImplementedError

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop_flag.set()
        for t in self.threads:
            t.join(30)


class ServerTestCase(unittest.TestCase):
    """A temporary directory per test; helpers that start servers and check replies.

    Every reply seen through `call` is checked: never a 5xx, and every 4xx is the JSON error
    body. tearDown stops the servers still running and checks their access logs for 5xx.
    """

    # Routes whose 5xx a test provokes on purpose (the chat proxy's 502 for a failing upstream).
    ROUTES_ANSWERING_5XX = ()

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="engram-serve-")
        self.dir = self._tmp.name
        self.db = os.path.join(self.dir, "engram.db")
        self.servers = []
        self.pg_database = None
        if os.environ.get("ENGRAM_BLACKBOX_PG_URL"):
            # The suite on PostgreSQL (scripts/pg_blackbox_test.sh): the test's database is a
            # fresh one on that server; databases a test names by file stay files.
            # The server connects as an ordinary role owning its database, as deployed: a
            # superuser would bypass row-level security (docs/deploy.md, "Sharding by tenant").
            self.pg_database = "engram_bb_%d_%d" % (os.getpid(), next(_PG_DATABASES))
            admin = os.environ["ENGRAM_BLACKBOX_PG_URL"]
            subprocess.run(["psql", "-q", admin, "-c",
                            "DO $$ BEGIN CREATE ROLE engram_app LOGIN NOSUPERUSER NOBYPASSRLS; "
                            "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; "
                            "END $$"], check=True, capture_output=True, timeout=60)
            subprocess.run(["psql", "-q", admin, "-c",
                            "CREATE DATABASE %s OWNER engram_app" % self.pg_database],
                           check=True, capture_output=True, timeout=60)
            base = re.sub(r"://[^@/]*@", "://", admin.rsplit("/", 1)[0], count=1)
            self.db = base.replace("://", "://engram_app@", 1) + "/" + self.pg_database

    def tearDown(self):
        try:
            for s in self.servers:
                if s.proc is not None:
                    self.assertEqual(s.stop(), 0, "server exit status; stderr:\n" + s.stderr())
                for rec in s.log_records():
                    if rec["route"] in self.ROUTES_ANSWERING_5XX:
                        continue
                    self.assertLess(rec["status"], 500, "5xx in the access log: %r" % rec)
        finally:
            self._tmp.cleanup()
            if self.pg_database:
                subprocess.run(["psql", "-q", os.environ["ENGRAM_BLACKBOX_PG_URL"], "-c",
                                "DROP DATABASE IF EXISTS %s WITH (FORCE)" % self.pg_database],
                               capture_output=True, timeout=60)

    def start_server(self, *args, db=None, name=None, access_log=True, env=None):
        s = Server(self.dir, db or self.db, args, name=name or "server%d" % len(self.servers),
                   access_log=access_log, env=env).start()
        self.servers.append(s)
        return s

    def assert_error_body(self, r, status, code=None, mentions=None):
        self.assertEqual(r.status, status, r)
        self.assertTrue((r.header("content-type") or "").startswith("application/json"), r)
        try:
            body = r.json()
        except ValueError:
            self.fail("error reply is not JSON: %r" % r)
        self.assertEqual(set(body), {"error"}, r)
        self.assertEqual(set(body["error"]), {"code", "message"}, r)
        self.assertIsInstance(body["error"]["code"], str)
        self.assertIsInstance(body["error"]["message"], str)
        self.assertNotEqual(body["error"]["message"], "", r)
        if code is not None:
            self.assertEqual(body["error"]["code"], code, r)
        if mentions is not None:
            self.assertIn(mentions, body["error"]["message"], r)
        return body["error"]["message"]

    def call(self, client, method, path, body=None, expect=None, **kw):
        """One request; asserts no 5xx, a JSON error body on 4xx, and `expect` if given."""
        r = client.request(method, path, body=body, **kw)
        self.assertLess(r.status, 500, r)
        if r.status >= 400:
            self.assert_error_body(r, r.status)
        if expect is not None:
            self.assertEqual(r.status, expect, r)
        return r

    def ok(self, client, method, path, body=None, expect=200, **kw):
        return self.call(client, method, path, body=body, expect=expect, **kw).json()

    def fails(self, client, method, path, body=None, status=400, code=None, mentions=None,
              **kw):
        r = client.request(method, path, body=body, **kw)
        return self.assert_error_body(r, status, code=code, mentions=mentions)

    def wait_until_refused(self, client, path="/v1/memories", params=None, key=None):
        """Polls until the request gets 401; returns the seconds that took."""
        start = time.monotonic()
        while True:
            r = client.request("GET", path, params=params or {"user_id": "u"}, key=key)
            self.assertIn(r.status, (200, 401), r)
            if r.status == 401:
                self.assert_error_body(r, 401, "unauthenticated")
                return time.monotonic() - start
            self.assertLess(time.monotonic() - start, 3, "still accepted after 3 s")
            time.sleep(0.05)

    # --- shorthands for the v1 API ---

    def add(self, client, user, text, **fields):
        body = dict(fields, user_id=user, content=text)
        res = self.ok(client, "POST", "/v1/memories", body, expect=201)["results"]
        self.assertEqual(len(res), 1)
        self.assertEqual(res[0]["memory"]["content"], text)
        return res[0]["memory"]

    def list_all(self, client, user, **params):
        """Every page of a listing, following next_cursor."""
        items, cursor, pages = [], None, 0
        while True:
            p = dict(params, user_id=user)
            if cursor:
                p["cursor"] = cursor
            page = self.ok(client, "GET", "/v1/memories", params=p)
            self.assertEqual(set(page), {"results", "next_cursor"})
            items += page["results"]
            cursor = page["next_cursor"]
            pages += 1
            self.assertLess(pages, 10000)
            if cursor is None:
                return items


def main():
    global ENGRAM, CRASH_WRITER
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer")
    args, rest = parser.parse_known_args()
    ENGRAM = os.path.abspath(args.engram)
    CRASH_WRITER = args.crash_writer and os.path.abspath(args.crash_writer)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
