#!/usr/bin/env python3
"""Black-box tests of `engram serve`'s access control: API keys (CLI and HTTP), admin routes,
the keyless loopback mode, secrets kept out of the logs, tenant isolation under random
operations, and per-key rate limits. The real binary on an ephemeral loopback port.

Every reply is checked as in server_test.py: no 5xx, and 4xx replies carry the JSON error body.

Usage: server_auth_test.py --engram PATH [--crash-writer PATH] [unittest options]
"""

import json
import os
import http.client
import random
import re
import socket
import ssl
import subprocess
import sys
import time
import unittest

import server_harness as h
from server_harness import ServerTestCase, create_key, run_engram


# ------------------------------------------------------------------------------------------
# API keys
# ------------------------------------------------------------------------------------------

class AuthTest(ServerTestCase):

    def test_a_key_is_required_once_one_exists(self):
        key = create_key(self.db, "acme")
        s = self.start_server()
        c = s.client()
        q = {"user_id": "u"}
        r = c.request("GET", "/v1/memories", params=q)
        self.assert_error_body(r, 401, "unauthenticated")
        self.assertTrue(r.header("www-authenticate").startswith("Bearer"))
        for headers in ({"Authorization": "Bearer wrong"},
                        {"Authorization": "Basic " + key["secret"]},
                        {"Authorization": "Bearer " + key["secret"] + "x"},
                        {"Authorization": "bearer"}, {"X-API-Key": "nope"}):
            with self.subTest(headers=headers):
                self.fails(c, "GET", "/v1/memories", params=q, headers=headers, status=401,
                           code="unauthenticated")
        self.ok(c, "GET", "/v1/memories", params=q, key=key["secret"])
        self.ok(c, "GET", "/v1/memories", params=q, headers={"X-API-Key": key["secret"]})
        m = self.add(s.client(key["secret"]), "u", "acme memory")
        self.assertEqual(m["tenant"], "acme")
        # Every /v1 route needs it; the operations routes do not.
        for method, path in [("POST", "/v1/memories"), ("POST", "/v1/memories/batch"),
                             ("DELETE", "/v1/memories"), ("GET", "/v1/memories/" + m["id"]),
                             ("PATCH", "/v1/memories/" + m["id"]),
                             ("DELETE", "/v1/memories/" + m["id"]),
                             ("GET", "/v1/memories/%s/history" % m["id"]),
                             ("POST", "/v1/search"), ("POST", "/v1/context"),
                             ("GET", "/v1/export"), ("GET", "/v1/admin/keys"),
                             ("POST", "/v1/admin/keys"),
                             ("DELETE", "/v1/admin/keys/" + key["id"])]:
            with self.subTest(path=path, method=method):
                self.fails(c, method, path, params=q, raw=b"{}" if method in ("POST", "PATCH")
                           else None, status=401, code="unauthenticated")
        for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
            self.call(c, "GET", path, expect=200)
        self.assertEqual(len(self.list_all(s.client(key["secret"]), "u")), 1)

    def test_admin_routes(self):
        admin = create_key(self.db, "ops", admin=True, name="root")
        tenant = create_key(self.db, "acme")
        s = self.start_server()
        a, t = s.client(admin["secret"]), s.client(tenant["secret"])
        for method, path in [("GET", "/v1/admin/keys"), ("POST", "/v1/admin/keys"),
                             ("DELETE", "/v1/admin/keys/" + admin["id"])]:
            with self.subTest(method=method, path=path):
                self.fails(t, method, path, body={"tenant": "x"} if method == "POST" else None,
                           status=403, code="permission_denied")
        created = self.ok(a, "POST", "/v1/admin/keys", {"tenant": "beta", "name": "b1"},
                          expect=201)
        self.assertEqual((created["tenant"], created["name"], created["role"]),
                         ("beta", "b1", "tenant"))
        self.assertTrue(created["secret"].startswith(created["prefix"]))
        self.assertIsNone(created["revoked_at"])
        b = s.client(created["secret"])
        # (Reads only: a memory write after a key write fails, see KeyStoreSnapshotTest.)
        self.ok(b, "GET", "/v1/memories", params={"user_id": "u"})
        self.fails(b, "GET", "/v1/admin/keys", status=403)
        listed = self.call(a, "GET", "/v1/admin/keys", expect=200)
        for k in (admin, tenant, created):
            self.assertNotIn(k["secret"], listed.text())
        keys = listed.json()["results"]
        self.assertEqual([k["id"] for k in keys], [admin["id"], tenant["id"], created["id"]])
        self.assertTrue(all("secret" not in k for k in keys))
        only = self.ok(a, "GET", "/v1/admin/keys", params={"tenant": "beta"})["results"]
        self.assertEqual([k["id"] for k in only], [created["id"]])
        self.fails(a, "GET", "/v1/admin/keys", params={"bogus": "1"}, status=400,
                   mentions="bogus")
        for body, mention in [({}, "tenant"), ({"tenant": ""}, "tenant"),
                              ({"tenant": "x", "role": "god"}, "role"),
                              ({"tenant": "x", "bogus": 1}, "bogus"),
                              ({"tenant": "x" * 200}, "tenant"), ({"tenant": 5}, "tenant")]:
            with self.subTest(body=body):
                self.fails(a, "POST", "/v1/admin/keys", body, 400, "invalid_argument", mention)
        second_admin = self.ok(a, "POST", "/v1/admin/keys", {"tenant": "ops", "role": "admin"},
                               expect=201)
        self.ok(s.client(second_admin["secret"]), "GET", "/v1/admin/keys")
        # Revocation over HTTP takes effect at once (the brief allows ~1 s).
        r = self.ok(a, "DELETE", "/v1/admin/keys/" + created["id"])
        self.assertEqual(r, {"id": created["id"], "revoked": True})
        self.assertLess(self.wait_until_refused(b), 1.0)
        self.ok(a, "DELETE", "/v1/admin/keys/" + created["id"])  # again: OK, no change
        self.fails(a, "DELETE", "/v1/admin/keys/key_doesnotexist", status=404, code="not_found")
        revoked = [k for k in self.ok(a, "GET", "/v1/admin/keys")["results"]
                   if k["id"] == created["id"]]
        self.assertIsNotNone(revoked[0]["revoked_at"])
        # The CLI sees the keys made over HTTP.
        cli = run_engram(self.db, "--json", "keys", "list", "--for", "beta")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual([json.loads(x)["id"] for x in cli.stdout.splitlines()], [created["id"]])
        # Secrets travel in replies only, never into the access log.
        self.assertEqual(s.stop(), 0)
        for secret in (admin["secret"], tenant["secret"], created["secret"],
                       second_admin["secret"]):
            self.assertNotIn(secret, s.log_bytes().decode())
            self.assertNotIn(secret, s.stderr())

    def test_keyless_mode_ends_when_the_first_key_is_created_over_http(self):
        s = self.start_server()
        c = s.client()
        self.ok(c, "GET", "/v1/memories", params={"user_id": "u"})
        # Keyless loopback callers may bootstrap the first key.
        key = self.ok(c, "POST", "/v1/admin/keys", {"tenant": "default", "role": "admin"},
                      expect=201)
        self.assertLess(self.wait_until_refused(c), 1.5)
        self.ok(c, "GET", "/v1/memories", params={"user_id": "u"}, key=key["secret"])

    def test_secrets_and_contents_stay_out_of_the_logs(self):
        admin = create_key(self.db, "ops", admin=True)
        key = create_key(self.db, "acme")
        s = self.start_server()
        a, c = s.client(admin["secret"]), s.client(key["secret"])
        content = "the vault code is 4471-PLUM-zebra"
        m = self.add(c, "u", content, metadata={"pin": "PLUM-9917"})
        self.ok(c, "POST", "/v1/search", {"user_id": "u", "query": "vault code PLUM-zebra"})
        self.ok(c, "POST", "/v1/context", {"user_id": "u", "query": "vault code PLUM-zebra"})
        self.ok(c, "PATCH", "/v1/memories/" + m["id"], {"content": content + " (old)"},
                params={"user_id": "u"})
        self.fails(c, "POST", "/v1/memories", {"user_id": "u", "content": content, "bad": 1})
        self.fails(c, "GET", "/v1/memories", key="sk-guess-PLUM-4471", params={"user_id": "u"},
                   status=401)
        self.ok(a, "GET", "/v1/admin/keys")
        self.call(c, "GET", "/v1/export", params={"user_id": "u"}, expect=200)
        self.assertEqual(s.stop(), 0)
        log = s.log_bytes().decode()
        records = s.log_records()
        self.assertEqual(len(records), 8)
        for secret in (admin["secret"], key["secret"], "sk-guess-PLUM-4471"):
            self.assertNotIn(secret, log)
            self.assertNotIn(secret, s.stderr())
        # The numbers a record carries (time, id, duration, sizes) may hold the PIN's digits by
        # chance ("duration_ms":0.174471 did): look for the content in every other field, and
        # allow no field beyond the known ones.
        fields = {"ts", "request_id", "method", "route", "path", "status", "duration_ms",
                  "bytes_in", "bytes_out", "key_id", "tenant", "remote"}
        numbers = {"ts", "request_id", "duration_ms", "bytes_in", "bytes_out"}
        for r in records:
            self.assertLessEqual(set(r), fields, r)
        texts = json.dumps([{k: v for k, v in r.items() if k not in numbers} for r in records])
        for word in ("vault", "PLUM", "4471", "zebra"):
            self.assertNotIn(word, texts)
            self.assertNotIn(word, s.stderr())
        for word in ("vault", "PLUM", "zebra"):
            self.assertNotIn(word, log)
        self.assertEqual(records[0]["key_id"], key["id"])
        self.assertEqual(records[0]["tenant"], "acme")
        self.assertEqual(records[0]["route"], "POST /v1/memories")
        self.assertEqual(records[0]["status"], 201)
        self.assertEqual([r["status"] for r in records], [201, 200, 200, 200, 400, 401, 200, 200])
        self.assertEqual(records[6]["key_id"], admin["id"])
        self.assertEqual(b"".join(s.stdout_rest), b"", "stdout after the URL: the log is a file")

    def test_non_loopback_bind_needs_a_key(self):
        r = run_engram(self.db, "serve", "--host", "0.0.0.0", "--port", "0", "--access-log", "",
                       "--allow-plain-http", timeout=20)
        self.assertEqual(r.returncode, 2, r)
        self.assertEqual(r.stdout, b"")
        self.assertIn(b"API key", r.stderr)
        key = create_key(self.db, "acme", admin=True)
        s = self.start_server("--host", "0.0.0.0", "--allow-plain-http")
        self.assertTrue(s.url.startswith("http://0.0.0.0:"), s.url)
        c = s.client()
        self.fails(c, "GET", "/v1/memories", params={"user_id": "u"}, status=401)
        self.ok(c, "GET", "/v1/memories", params={"user_id": "u"}, key=key["secret"])
        # Revoking the last key does not open a non-loopback server to keyless callers.
        self.ok(c, "DELETE", "/v1/admin/keys/" + key["id"], key=key["secret"])
        time.sleep(1.2)
        self.fails(c, "GET", "/v1/memories", params={"user_id": "u"}, status=401)
        self.fails(c, "GET", "/v1/memories", params={"user_id": "u"}, key=key["secret"],
                   status=401)


class TlsTest(ServerTestCase):
    """HTTPS with a certificate the test makes (openssl, self-signed, for 127.0.0.1), and the
    refusal to serve plain HTTP beyond loopback."""

    def make_cert(self):
        cert, key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                           capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return cert, key

    def tls_exchange(self, port, cert, data):
        """Sends raw bytes over TLS and reads until the server closes."""
        ctx = ssl.create_default_context(cafile=cert)
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
                sock.settimeout(5)
                sock.sendall(data)
                return h.read_until_closed(sock)

    def test_https_gets_the_same_edge_json_errors_and_framing_checks(self):
        """The relay terminates TLS, so a malformed or ambiguous head over HTTPS gets the JSON
        error (first request, or after a good one on the same connection), as on plain HTTP."""
        cert, key = self.make_cert()
        s = self.start_server("--tls-cert", cert, "--tls-key", key)
        ok = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        post = b"POST /v1/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        cases = [(post + b"Content-Length: abc\r\n\r\n{}", 400),
                 (post + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
                 (b"GET /v1/memories/a%00b HTTP/1.1\r\nHost: x\r\n\r\n", 400),
                 (b"GET / HTTP/1.1\r\nX: " + b"b" * 20000 + b"\r\n\r\n", 431),
                 (b"GET / HTTP/2.5\r\nHost: x\r\n\r\n", 505)]
        for data, status in cases:
            for before in (b"", ok):
                with self.subTest(request=data[:50], after_a_good_one=bool(before)):
                    out = self.tls_exchange(s.port, cert, before + data)
                    if before:
                        self.assertTrue(out.startswith(b"HTTP/1.1 200 "), out[:100])
                        out = out[out.index(b"{\"status\":\"ok\"}") + 15:]
                    self.assertTrue(out.startswith(b"HTTP/1.1 %d " % status), out[:200])
                    self.assertIn(b"Content-Type: application/json", out)
                    self.assertIn(b"Connection: close", out)
                    body = json.loads(out.split(b"\r\n\r\n", 1)[1])
                    self.assertEqual(set(body["error"]), {"code", "message"})
        s.stop()
        s.access_log = ""  # its 505s are the client's doing; the harness fails any 5xx it reads

    def test_https_with_the_direct_edge_is_served_by_the_library(self):
        cert, key = self.make_cert()
        s = self.start_server("--tls-cert", cert, "--tls-key", key, "--http-edge", "direct")
        c = s.client(tls_ca=cert)
        self.ok(c, "GET", "/healthz")
        self.fails(c, "GET", "/v1/memories", params={}, status=400)

    def test_https_serves_and_plain_http_is_refused_beyond_loopback(self):
        cert, key = self.make_cert()
        s = self.start_server("--tls-cert", cert, "--tls-key", key)
        self.assertTrue(s.url.startswith("https://127.0.0.1:"), s.url)
        c = s.client(tls_ca=cert)
        self.ok(c, "GET", "/healthz")
        m = self.ok(c, "POST", "/v1/memories",
                    {"user_id": "u", "content": "likes green tea"}, expect=201)
        got = self.ok(c, "GET", "/v1/memories/" + m["results"][0]["id"],
                      params={"user_id": "u"})
        self.assertEqual(got["content"], "likes green tea")
        # Errors are JSON over TLS too.
        self.fails(c, "GET", "/v1/memories", params={}, status=400)
        # A client that does not trust the certificate fails the handshake.
        with self.assertRaises(ssl.SSLError):
            untrusted = h.Client(s.port, tls_ca=self.make_other_ca())
            untrusted.request("GET", "/healthz")
        # Plain HTTP to the TLS port gets no answer a client could take for a response.
        plain = h.Client(s.port, timeout=5)
        try:
            r = plain.request("GET", "/healthz")
            self.assertNotEqual(r.status, 200, r)
        except (OSError, http.client.HTTPException):
            pass
        plain.close()
        s.stop()
        self.servers.remove(s)
        # Beyond loopback: plain HTTP is refused even with keys; TLS or --allow-plain-http starts.
        admin = create_key(self.db, "acme", admin=True)
        r = run_engram(self.db, "serve", "--host", "0.0.0.0", "--port", "0", "--access-log", "",
                       timeout=20)
        self.assertEqual(r.returncode, 2, r)
        self.assertIn(b"plain HTTP", r.stderr)
        self.assertIn(b"--tls-cert", r.stderr)
        s = self.start_server("--host", "0.0.0.0", "--tls-cert", cert, "--tls-key", key)
        self.assertTrue(s.url.startswith("https://0.0.0.0:"), s.url)
        self.ok(s.client(tls_ca=cert, key=admin["secret"]), "GET", "/v1/memories",
                params={"user_id": "u"})
        # Half a pair, a missing file, or the files swapped: clear errors at start.
        for args, words in ((["--tls-cert", cert], b"both"),
                            (["--tls-cert", cert, "--tls-key", os.path.join(self.dir, "missing.pem")],
                             b"cannot read"),
                            (["--tls-cert", key, "--tls-key", cert], b"no PEM CERTIFICATE")):
            r = run_engram(self.db, "serve", "--port", "0", "--access-log", "", *args,
                           timeout=20)
            self.assertEqual(r.returncode, 2, (args, r))
            self.assertIn(words, r.stderr, args)

    def make_other_ca(self):
        other, other_key = os.path.join(self.dir, "other.pem"), os.path.join(self.dir, "other-key.pem")
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                            "-keyout", other_key, "-out", other, "-days", "2",
                            "-subj", "/CN=someone-else"], capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return other


class KeyStoreSnapshotTest(ServerTestCase):
    """The key store shares the database file with the engine: keys written by another
    process are seen at once, and key writes and memory writes never lock each other out
    (regression: a connection left with a statement mid-result held an old snapshot)."""

    def test_memory_writes_work_after_a_key_is_created_over_http(self):
        admin = create_key(self.db, "ops", admin=True)
        s = self.start_server(access_log=False)
        a = s.client(admin["secret"])
        self.ok(a, "POST", "/v1/admin/keys", {"tenant": "beta"}, expect=201)
        self.add(a, "u", "written after a key was created")

    def test_keys_can_be_created_over_http_after_memory_writes(self):
        admin = create_key(self.db, "ops", admin=True)
        s = self.start_server(access_log=False)
        a = s.client(admin["secret"])
        self.add(a, "u", "written before a key is created")
        self.ok(a, "POST", "/v1/admin/keys", {"tenant": "beta"}, expect=201)

    def test_server_writes_after_another_process_wrote_first(self):
        # The control case: the engine's own connection is not affected.
        s = self.start_server(access_log=False)
        c = s.client()
        r = run_engram(self.db, "add", "from the cli", "--user", "u")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.add(c, "u", "from the server")

    def test_revocation_by_the_cli_reaches_a_running_server(self):
        key = create_key(self.db, "acme")
        create_key(self.db, "other")
        s = self.start_server()
        c = s.client(key["secret"])
        self.add(c, "u", "before revocation")
        r = run_engram(self.db, "keys", "revoke", key["id"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(self.wait_until_refused(c), 1.5)

    def test_keyless_mode_ends_when_the_first_key_is_created(self):
        s = self.start_server()
        c = s.client()
        self.assertEqual(self.add(c, "u", "open mode memory")["tenant"], "default")
        key = create_key(self.db, "default")
        self.assertLess(self.wait_until_refused(c), 2.0)
        self.assertEqual(len(self.list_all(s.client(key["secret"]), "u")), 1)


# ------------------------------------------------------------------------------------------
# isolation, rate limits
# ------------------------------------------------------------------------------------------

class IsolationTest(ServerTestCase):

    def test_listings_show_only_the_keys_tenant(self):
        keys = {"red": create_key(self.db, "red"), "blue": create_key(self.db, "blue")}
        s = self.start_server()
        red, blue = s.client(keys["red"]["secret"]), s.client(keys["blue"]["secret"])
        self.add(red, "shared-name", "red's memory", infer=False)
        self.add(red, "red-only", "another", infer=False)
        self.ok(blue, "POST", "/v1/sessions/blue-s/messages",
                {"user_id": "shared-name", "infer": False,
                 "messages": [{"role": "user", "content": "blue's turn"}]}, expect=201)
        red_users = self.ok(red, "GET", "/v1/users")["results"]
        self.assertEqual([(u["user_id"], u["items"], u["sessions"]) for u in red_users],
                         [("red-only", 1, 0), ("shared-name", 1, 0)])
        blue_users = self.ok(blue, "GET", "/v1/users")["results"]
        self.assertEqual([(u["user_id"], u["items"], u["sessions"]) for u in blue_users],
                         [("shared-name", 0, 1)])
        self.assertEqual(self.ok(red, "GET", "/v1/sessions",
                                 params={"user_id": "shared-name"})["results"], [])
        self.assertEqual([x["session_id"] for x in self.ok(
            blue, "GET", "/v1/sessions", params={"user_id": "shared-name"})["results"]],
            ["blue-s"])

    def test_random_operations_never_cross_tenants(self):
        seed = int(os.environ.get("ENGRAM_SERVER_SEED", str(int(time.time() * 1000))))
        print("isolation seed: %d (set ENGRAM_SERVER_SEED to repeat)" % seed, file=sys.stderr)
        rng = random.Random(seed)
        keys = {"red": create_key(self.db, "red"), "blue": create_key(self.db, "blue")}
        s = self.start_server()
        clients = {t: s.client(k["secret"]) for t, k in keys.items()}
        user = "same-user"
        owned = {"red": {}, "blue": {}}  # id -> content, active items
        words = ["apple", "river", "mountain", "violin", "rocket", "garden", "winter", "copper"]
        scope = {"user_id": user}
        for step in range(200):
            me = rng.choice(["red", "blue"])
            other = "blue" if me == "red" else "red"
            c = clients[me]
            op = rng.choice(["add", "add", "search", "list", "get_own", "get_other",
                             "change_other", "history_other", "batch"])
            if op == "add" or not owned[me]:
                text = "%s %s %s %d" % (me, rng.choice(words), rng.choice(words), step)
                owned[me][self.add(c, user, text)["id"]] = text
            elif op == "batch":
                texts = ["%s %s batch %d.%d" % (me, rng.choice(words), step, i) for i in range(3)]
                res = self.ok(c, "POST", "/v1/memories/batch",
                              {"user_id": user, "memories": [{"content": t} for t in texts]},
                              expect=201)["results"]
                for r, t in zip(res, texts):
                    owned[me][r["id"]] = t
            elif op == "search":
                q = "%s %s" % (rng.choice(words), other)
                hits = self.ok(c, "POST", "/v1/search", {"user_id": user, "query": q, "k": 10})
                for x in hits["results"]:
                    self.assertIn(x["id"], owned[me], "step %d: %s saw %r" % (step, me, x))
                    self.assertEqual(x["memory"]["tenant"], me)
            elif op == "list":
                ids = [m["id"] for m in self.list_all(c, user, limit="50")]
                self.assertEqual(sorted(ids), sorted(owned[me]), "step %d" % step)
            elif op == "get_own":
                mid = rng.choice(list(owned[me]))
                self.assertEqual(self.ok(c, "GET", "/v1/memories/" + mid, params=scope)["content"],
                                 owned[me][mid])
            elif not owned[other]:
                continue
            else:
                mid = rng.choice(list(owned[other]))
                path = "/v1/memories/" + mid
                if op == "get_other":
                    self.fails(c, "GET", path, params=scope, status=404, code="not_found")
                elif op == "history_other":
                    self.fails(c, "GET", path + "/history", params=scope, status=404)
                else:
                    kind = rng.choice(["patch", "delete", "purge"])
                    if kind == "patch":
                        self.fails(c, "PATCH", path, {"content": "hijacked"}, params=scope,
                                   status=404)
                    else:
                        self.fails(c, "DELETE", path,
                                   params=dict(scope, hard="true" if kind == "purge" else "false"),
                                   status=404)
                    got = self.ok(clients[other], "GET", path, params=scope)
                    self.assertEqual((got["content"], got["status"]), (owned[other][mid], "active"))
        for me in ("red", "blue"):
            self.assertGreater(len(owned[me]), 10)
            lines = self.call(clients[me], "GET", "/v1/export", params=scope,
                              expect=200).text().splitlines()[1:]
            self.assertEqual(sorted(json.loads(x)["memory"]["id"] for x in lines),
                             sorted(owned[me]))
        # Deleting every memory of the user touches one tenant only.
        gone = self.ok(clients["red"], "DELETE", "/v1/memories", params=scope)
        self.assertEqual(gone["deleted"], len(owned["red"]))
        self.assertEqual(len(self.list_all(clients["blue"], user)), len(owned["blue"]))

    def test_random_requests_over_every_route_never_cross_tenants_users_or_keys(self):
        """Three tenants (two keys for one), users with the same names in each, a revoked key
        and an admin key; random requests through every /v1 route, with ids and session ids
        taken from anyone. Every memory text carries a marker naming its tenant and user, and
        no reply may show a marker of another tenant or user than the one it asked for."""
        seed = int(os.environ.get("ENGRAM_SERVER_SEED", str(int(time.time() * 1000))))
        print("cross-tenant seed: %d (set ENGRAM_SERVER_SEED to repeat)" % seed, file=sys.stderr)
        rng = random.Random(seed)
        tenants = ["red", "blue", "green"]
        keys = {"red": [create_key(self.db, "red"), create_key(self.db, "red")],
                "blue": [create_key(self.db, "blue")], "green": [create_key(self.db, "green")]}
        revoked = create_key(self.db, "green")
        admin = create_key(self.db, "ops", admin=True)
        self.assertEqual(run_engram(self.db, "keys", "revoke", revoked["id"]).returncode, 0)
        s = self.start_server()
        clients = {t: [s.client(k["secret"]) for k in ks] for t, ks in keys.items()}
        gone_client, admin_client = s.client(revoked["secret"]), s.client(admin["secret"])
        users = ["ann", "bob"]
        owned = {(t, u): {} for t in tenants for u in users}  # id -> text, active memories
        all_ids, sessions, jobs = [], set(), []
        marker_re = re.compile(r"MK([a-z]+)_([a-z]+)_\d+")
        words = ["apple", "river", "violin", "rocket", "garden", "copper", "tea", "peanut"]

        def check_markers(text, tenant, user, step, what):
            for t, u in marker_re.findall(text):
                self.assertEqual((t, u), (tenant, user),
                                 "step %d %s: %s/%s saw %s/%s's data" % (step, what, tenant,
                                                                        user, t, u))

        def text_for(t, u, n):
            return "MK%s_%s_%d likes %s and %s" % (t, u, n, rng.choice(words), rng.choice(words))

        routes_seen = set()
        for step in range(600):
            t = rng.choice(tenants)
            u = rng.choice(users)
            c = rng.choice(clients[t])
            q = {"user_id": u}
            op = rng.choice(["add", "add", "batch", "async", "list", "users", "sessions",
                             "message", "session_get", "job", "get", "patch", "delete",
                             "history", "search", "context", "recall", "export", "profile",
                             "maintain", "maintenance_log", "admin", "revoked", "admin_data"])
            routes_seen.add(op)
            if op == "add" or (op in ("get", "patch", "delete", "history") and not all_ids):
                text = text_for(t, u, step)
                m = self.add(c, u, text, infer=False)
                owned[(t, u)][m["id"]] = text
                all_ids.append(((t, u), m["id"]))
            elif op == "batch":
                texts = [text_for(t, u, step * 10 + i) for i in range(3)]
                res = self.ok(c, "POST", "/v1/memories/batch",
                              {"user_id": u, "infer": False,
                               "memories": [{"content": x} for x in texts]}, expect=201)
                for r, x in zip(res["results"], texts):
                    owned[(t, u)][r["id"]] = x
                    all_ids.append(((t, u), r["id"]))
            elif op == "async":
                r = self.call(c, "POST", "/v1/memories",
                              {"user_id": u, "content": "I love %s MK%s_%s_%d" %
                               (rng.choice(words), t, u, step), "async": True, "infer": True},
                              expect=202)
                jobs.append(((t, u), r.json()["job_id"]))
            elif op == "job" and jobs:
                (jt, ju), jid = rng.choice(jobs)
                r = self.call(c, "GET", "/v1/jobs/" + jid, params=q)
                if (jt, ju) == (t, u):
                    self.assertEqual(r.status, 200, r)
                else:
                    self.assertEqual(r.status, 404, r)
                check_markers(r.text(), t, u, step, op)
            elif op == "list":
                page = self.list_all(c, u)
                for m in page:
                    check_markers(m["content"], t, u, step, op)
            elif op == "users":
                listed = self.ok(c, "GET", "/v1/users")["results"]
                for x in listed:
                    self.assertIn(x["user_id"], users)
                expected = {uu for (tt, uu), ids in owned.items() if tt == t and ids}
                self.assertTrue(expected <= {x["user_id"] for x in listed}, (step, listed))
            elif op == "sessions":
                for x in self.ok(c, "GET", "/v1/sessions", params=q)["results"]:
                    self.assertIn((t, u, x["session_id"]), sessions, step)
            elif op == "message":
                sid = "s%d" % rng.randrange(3)  # the same session ids in every tenant
                self.ok(c, "POST", "/v1/sessions/%s/messages" % sid,
                        {"user_id": u, "infer": False,
                         "messages": [{"role": "user", "content": text_for(t, u, step)}]},
                        expect=201)
                sessions.add((t, u, sid))
            elif op == "session_get":
                sid = "s%d" % rng.randrange(3)
                r = self.call(c, "GET", "/v1/sessions/" + sid, params=q)
                self.assertEqual(r.status, 200 if (t, u, sid) in sessions else 404, (step, r))
                check_markers(r.text(), t, u, step, op)
            elif op in ("get", "patch", "delete", "history"):
                (ot, ou), mid = rng.choice(all_ids)
                mine = (ot, ou) == (t, u) and mid in owned[(t, u)]
                if op == "get":
                    r = self.call(c, "GET", "/v1/memories/" + mid, params=q)
                elif op == "history":
                    r = self.call(c, "GET", "/v1/memories/%s/history" % mid, params=q)
                elif op == "patch":
                    new = text_for(t, u, step)
                    r = self.call(c, "PATCH", "/v1/memories/" + mid, {"content": new},
                                  params=q)
                    if mine and r.status == 200:
                        owned[(t, u)][mid] = new
                else:
                    r = self.call(c, "DELETE", "/v1/memories/" + mid, params=q)
                    if mine and r.status == 200:
                        del owned[(t, u)][mid]
                if (ot, ou) != (t, u):
                    self.assertEqual(r.status, 404, "step %d: %s on another's id: %r" %
                                     (step, op, r))
                check_markers(r.text(), t, u, step, op)
            elif op in ("search", "context", "recall"):
                body = {"user_id": u, "query": "likes %s" % rng.choice(words), "k": 20}
                if op == "recall":
                    body = {"user_id": u, "messages": [
                        {"role": "user", "content": "what about %s" % rng.choice(words)}]}
                r = self.call(c, "POST", "/v1/" + op, body, expect=200)
                check_markers(r.text(), t, u, step, op)
            elif op == "export":
                r = self.call(c, "GET", "/v1/export", params=q, expect=200)
                check_markers(r.text(), t, u, step, op)
            elif op == "profile":
                r = self.call(c, "GET", "/v1/profile", params=q, expect=200)
                check_markers(r.text(), t, u, step, op)
            elif op == "maintain":
                r = self.call(c, "POST", "/v1/maintenance", {"dry_run": True}, expect=200)
                for a in r.json()["actions"]:
                    self.assertEqual(a["tenant"], t, step)
                for x in r.json()["users"]:
                    self.assertEqual(x["tenant"], t, step)
            elif op == "maintenance_log":
                r = self.call(c, "GET", "/v1/maintenance/log", params=q, expect=200)
                check_markers(r.text(), t, u, step, op)
            elif op == "admin":
                for method, path in (("GET", "/v1/admin/keys"), ("GET", "/v1/admin/audit")):
                    self.fails(c, method, path, status=403, code="permission_denied")
            elif op == "revoked":
                for method, path, body in (("GET", "/v1/memories", None),
                                           ("POST", "/v1/search", {"user_id": u, "query": "x"}),
                                           ("GET", "/v1/export", None)):
                    r = gone_client.request(method, path, body=body, params=q)
                    self.assert_error_body(r, 401, "unauthenticated")
            elif op == "admin_data":
                # An admin key's data routes act in its own tenant: nobody's memories there.
                r = self.call(admin_client, "POST", "/v1/search",
                              {"user_id": u, "query": "likes"}, expect=200)
                self.assertEqual(r.json()["results"], [], step)
                self.assertEqual(self.ok(admin_client, "GET", "/v1/users")["results"], [])
        self.assertGreaterEqual(len(routes_seen), 20, routes_seen)
        # In the end each tenant's user holds what was written there (and what the write path
        # made of its session turns and async adds), and nothing of anyone else.
        for (t, u), ids in owned.items():
            listed = {m["id"]: m["content"] for m in self.list_all(clients[t][0], u)}
            for mid, text in ids.items():
                self.assertEqual(listed.get(mid), text, (t, u, mid))
            for text in listed.values():
                check_markers(text, t, u, -1, "final list")


class EncryptedServerTest(ServerTestCase):
    """engram serve on a sealed database (ENGRAM_KEY_FILE): keys, audit, async jobs, sessions,
    search and a hard delete all work, and no file the server wrote holds a stored word."""

    def test_a_sealed_server_works_and_writes_no_plaintext(self):
        key_file = os.path.join(self.dir, "engram.key")
        r = subprocess.run([h.ENGRAM, "keygen", key_file], capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        env = dict(h.clean_env(), ENGRAM_KEY_FILE=key_file)
        # Keys are made with the key too (the CLI opens the sealed file).
        r = subprocess.run([h.ENGRAM, "--db", self.db, "--tenant", "acme", "--json", "keys",
                            "create"], capture_output=True, env=env, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        acme = json.loads(r.stdout)
        admin = json.loads(subprocess.run(
            [h.ENGRAM, "--db", self.db, "--tenant", "ops", "--json", "keys", "create", "--admin"],
            capture_output=True, env=env, timeout=60).stdout)
        s = self.start_server(env=env)
        c = s.client(acme["secret"])
        m = self.add(c, "alice", "Xanthippe keeps a quokka named Wobblesworth")
        self.ok(c, "POST", "/v1/sessions/s1/messages",
                {"user_id": "alice", "infer": True,
                 "messages": [{"role": "user", "content": "I am allergic to Glimmerberries"}]},
                expect=201)
        job = self.call(c, "POST", "/v1/memories",
                        {"user_id": "alice", "content": "I live in Brackenfold now",
                         "infer": True, "async": True}, expect=202).json()["job_id"]
        deadline = time.monotonic() + 20
        while self.ok(c, "GET", "/v1/jobs/" + job,
                      params={"user_id": "alice"})["state"] != "done":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "quokka"})
        self.assertEqual(hits["results"][0]["id"], m["id"])
        self.ok(c, "DELETE", "/v1/memories/" + m["id"],
                params={"user_id": "alice", "hard": "true"})
        audit = self.ok(s.client(admin["secret"]), "GET", "/v1/admin/audit")["results"]
        self.assertTrue(any(e["action"] == "purge" for e in audit))
        self.assertEqual(s.stop(), 0, s.stderr())
        for root, _, names in os.walk(self.dir):
            for name in names:
                if name.endswith("access.log") or name.endswith("stderr.log") or name == "engram.key":
                    continue
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                for word in (b"Glimmerberries", b"Brackenfold", b"Wobblesworth", b"quokka"):
                    self.assertNotIn(word, data, "%s in %s" % (word, name))
        # Without the key the server does not start, and says why.
        r = run_engram(self.db, "serve", "--port", "0", "--access-log", "", timeout=20)
        self.assertEqual(r.returncode, 2, r)
        self.assertIn(b"encrypted", r.stderr)


class TenantPurgeTest(ServerTestCase):
    """DELETE /v1/admin/tenants/{id}: an admin erases a whole tenant, proven by the byte scan;
    other tenants keep theirs; tenant keys may not; the audit log records it as a purge."""

    def test_an_admin_erases_a_tenant(self):
        admin = create_key(self.db, "ops", admin=True)
        acme, beta = create_key(self.db, "acme"), create_key(self.db, "beta")
        s = self.start_server()
        a, c, b = s.client(admin["secret"]), s.client(acme["secret"]), s.client(beta["secret"])
        self.add(c, "ann", "Ann rides a unicycle through Snorkelwick")
        self.add(c, "bob", "鲍勃的鹦鹉叫翡翠十一号")
        self.ok(c, "POST", "/v1/sessions/s1/messages",
                {"user_id": "bob", "infer": False,
                 "messages": [{"role": "user", "content": "Bob collects Frumious spoons"}]},
                expect=201)
        self.add(b, "ann", "Beta Ann grows Tumbleweed figs")
        self.fails(c, "DELETE", "/v1/admin/tenants/acme", status=403, code="permission_denied")
        self.fails(a, "DELETE", "/v1/admin/tenants/acme", params={"bogus": "1"}, status=400,
                   mentions="bogus")
        self.fails(a, "DELETE", "/v1/admin/tenants/" + "x" * 200, status=400, mentions="tenant")
        r = self.ok(a, "DELETE", "/v1/admin/tenants/acme", params={"verify": "true"})
        self.assertEqual((r["tenant"], r["users"], r["verified"], r["traces"]),
                         ("acme", 2, True, []))
        self.assertGreaterEqual(r["purged"], 2)
        self.assertGreater(r["needles"], 2)
        self.assertEqual(self.ok(c, "GET", "/v1/users")["results"], [])
        self.assertEqual(self.list_all(c, "ann"), [])
        self.assertEqual([m["content"] for m in self.list_all(b, "ann")],
                         ["Beta Ann grows Tumbleweed figs"])
        audit = self.ok(a, "GET", "/v1/admin/audit", params={"tenant": "ops"})["results"]
        purge = [e for e in audit if e["route"] == "/v1/admin/tenants/{id}" and e["status"] == 200]
        self.assertEqual([(e["action"], e["target"]) for e in purge], [("purge", "acme")])
        self.assertEqual(s.stop(), 0)
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            if not name.startswith("engram.db") or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            for word in ("Snorkelwick", "翡翠十一号", "Frumious"):
                self.assertNotIn(word.encode(), data, (word, name))


class RateLimitTest(ServerTestCase):

    def test_a_burst_over_the_limit_gets_429_and_other_keys_do_not(self):
        k1, k1b, k2 = (create_key(self.db, "acme"), create_key(self.db, "acme"),
                       create_key(self.db, "zeta"))
        s = self.start_server("--rate-limit", "5", "--rate-burst", "5")
        c = s.client(k1["secret"])
        start = time.monotonic()
        replies = [c.request("GET", "/v1/memories", params={"user_id": "u"}) for _ in range(20)]
        elapsed = time.monotonic() - start
        ok = [r for r in replies if r.status == 200]
        limited = [r for r in replies if r.status == 429]
        self.assertEqual(len(ok) + len(limited), 20, replies)
        self.assertGreaterEqual(len(ok), 5)
        self.assertLessEqual(len(ok), 5 + int(elapsed * 5) + 1)
        self.assertGreater(len(limited), 0)
        for r in limited:
            self.assert_error_body(r, 429, "rate_limited")
            self.assertGreaterEqual(int(r.header("retry-after")), 1)
        # Other keys, of this tenant or another, have their own buckets; public routes none.
        for key in (k1b, k2):
            other = s.client(key["secret"])
            for _ in range(5):
                self.call(other, "GET", "/v1/memories", params={"user_id": "u"}, expect=200)
        for _ in range(20):
            self.call(c, "GET", "/healthz", expect=200)
        metrics = self.call(c, "GET", "/metrics", expect=200).text()
        self.assertIn("engram_http_rate_limited_total %d\n" % len(limited), metrics)
        # After Retry-After seconds the key works again.
        time.sleep(int(limited[-1].header("retry-after")))
        self.call(c, "GET", "/v1/memories", params={"user_id": "u"}, expect=200)


# ------------------------------------------------------------------------------------------
# Audit log
# ------------------------------------------------------------------------------------------

class AuditTest(ServerTestCase):
    """Every /v1 request leaves an audit entry: who (key id, tenant, address), what (action,
    route, status, request id), whose data (user_id, the route's id), never content or secrets;
    only an admin key reads it, over HTTP or with `engram audit`."""

    def test_requests_are_audited_without_content(self):
        admin = create_key(self.db, "ops", admin=True, name="root")
        acme = create_key(self.db, "acme")
        beta = create_key(self.db, "beta")
        s = self.start_server()
        a, c, b = s.client(admin["secret"]), s.client(acme["secret"]), s.client(beta["secret"])
        marker = "marker-audit-7f3 likes kumquat jam 金桔果酱"
        r = self.call(c, "POST", "/v1/memories", {"user_id": "alice", "content": marker},
                      expect=201)
        add_request = r.header("x-request-id")
        mid = r.json()["results"][0]["memory"]["id"]
        self.ok(c, "POST", "/v1/search", {"user_id": "alice", "query": "kumquat"})
        self.ok(c, "GET", "/v1/memories/" + mid, params={"user_id": "alice"})
        self.call(c, "GET", "/v1/export", params={"user_id": "alice"}, expect=200)
        self.ok(c, "DELETE", "/v1/memories/" + mid, params={"user_id": "alice", "hard": "true"})
        self.ok(b, "GET", "/v1/memories", params={"user_id": "bob"})
        self.fails(b, "GET", "/v1/memories/" + mid, params={"user_id": "alice"}, status=404)
        self.fails(c, "GET", "/v1/admin/audit", status=403, code="permission_denied")
        self.fails(s.client("egk_not-a-key"), "GET", "/v1/memories", params={"user_id": "x"},
                   status=401)

        listed = self.call(a, "GET", "/v1/admin/audit", expect=200)
        for secret in (admin["secret"], acme["secret"], beta["secret"]):
            self.assertNotIn(secret, listed.text())
        for word in ("kumquat", "金桔", "marker-audit"):
            self.assertNotIn(word, listed.text())
        rows = listed.json()["results"]
        self.assertIsNone(listed.json()["next_cursor"])
        # Newest first, seq strictly decreasing, real dates.
        self.assertEqual([e["seq"] for e in rows], sorted((e["seq"] for e in rows), reverse=True))
        for e in rows:
            self.assertTrue(e["at"].startswith("20") and not e["at"].startswith("1970"), e)
            self.assertEqual(e["remote"], "127.0.0.1", e)
        mine = [(e["action"], e["method"], e["route"], e["user_id"], e["target"], e["status"])
                for e in reversed(rows) if e["tenant"] == "acme"]
        self.assertEqual(mine, [
            ("write", "POST", "/v1/memories", "alice", "", 201),
            ("read", "POST", "/v1/search", "alice", "", 200),
            ("read", "GET", "/v1/memories/{id}", "alice", mid, 200),
            ("export", "GET", "/v1/export", "alice", "", 200),
            ("purge", "DELETE", "/v1/memories/{id}", "alice", mid, 200),
            ("admin", "GET", "/v1/admin/audit", "", "", 403),
        ])
        first = [e for e in rows if e["request_id"] == add_request]
        self.assertEqual(len(first), 1)
        self.assertEqual((first[0]["key_id"], first[0]["tenant"]), (acme["id"], "acme"))
        betas = [(e["key_id"], e["user_id"], e["status"]) for e in reversed(rows)
                 if e["tenant"] == "beta"]
        self.assertEqual(betas, [(beta["id"], "bob", 200), (beta["id"], "alice", 404)])
        refused = [e for e in rows if e["status"] == 401]
        self.assertEqual([(e["tenant"], e["key_id"]) for e in refused], [("", "")])
        # Operations routes are not audited; the admin's own read of the log is (next listing).
        self.assertFalse([e for e in rows if e["route"] in ("/healthz", "/metrics")])

        # Filters and pages.
        only = self.ok(a, "GET", "/v1/admin/audit", params={"tenant": "beta"})["results"]
        self.assertEqual({e["tenant"] for e in only}, {"beta"})
        self.assertEqual(len(only), 2)
        alice = self.ok(a, "GET", "/v1/admin/audit", params={"user_id": "alice"})["results"]
        self.assertEqual(len(alice), 6)
        seen, cursor = [], None
        while True:
            params = {"limit": "3"}
            if cursor:
                params["cursor"] = cursor
            page = self.ok(a, "GET", "/v1/admin/audit", params=params)
            seen += [e["seq"] for e in page["results"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        everything = self.ok(a, "GET", "/v1/admin/audit", params={"limit": "10000"})["results"]
        self.assertEqual(seen, [e["seq"] for e in everything if e["seq"] <= seen[0]])
        self.assertGreaterEqual(len(seen), len(rows) + 1)
        self.assertEqual(self.ok(a, "GET", "/v1/admin/audit",
                                 params={"since": "2999-01-01T00:00:00Z"})["results"], [])
        for params, mention in (({"limit": "0"}, "limit"), ({"limit": "x"}, "limit"),
                                ({"cursor": "-1"}, "cursor"), ({"since": "yesterday"}, "since"),
                                ({"bogus": "1"}, "bogus")):
            with self.subTest(params=params):
                self.fails(a, "GET", "/v1/admin/audit", params=params, status=400,
                           mentions=mention)

        # The CLI reads the same log once the server is gone.
        self.assertEqual(s.stop(), 0)
        cli = run_engram(self.db, "--json", "audit", "--for", "acme")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        lines = [json.loads(x) for x in cli.stdout.splitlines()]
        self.assertEqual([e["request_id"] for e in lines if e["action"] == "write"],
                         [add_request])
        self.assertEqual({e["tenant"] for e in lines}, {"acme"})
        cli = run_engram(self.db, "audit", "--user", "alice", "--limit", "2")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        text = cli.stdout.decode()
        self.assertEqual(len(text.splitlines()), 2, text)
        self.assertNotIn("kumquat", text)
        bad = run_engram(self.db, "audit", "--since", "last week")
        self.assertEqual(bad.returncode, 2, bad)
        self.assertIn(b"--since", bad.stderr)

    def test_no_audit_keeps_no_log(self):
        admin = create_key(self.db, "ops", admin=True)
        s = self.start_server("--no-audit")
        a = s.client(admin["secret"])
        self.ok(a, "GET", "/v1/memories", params={"user_id": "u"})
        self.fails(a, "GET", "/v1/admin/audit", status=404, mentions="--no-audit")
        self.assertEqual(s.stop(), 0)
        cli = run_engram(self.db, "--json", "audit")
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(cli.stdout, b"")


if __name__ == "__main__":
    h.main()
