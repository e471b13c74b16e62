"""Every error status the server answers becomes the typed error for it, carrying the server's
code and message: 400, 401 (no key, a wrong key, a revoked key), 403, 404, 409, 413, 429 and
503, each provoked on a real engram serve."""

import time

import server_harness
from engram_client import (AuthenticationError, BadRequestError, ConflictError, EngramError,
                           NotFoundError, PayloadTooLargeError, PermissionDeniedError,
                           RateLimitError, UnavailableError)
from support import ClientTestCase

USER = "alice"


class ErrorsTest(ClientTestCase):
    def assert_raises_error(self, cls, status, code, call, *args, request_id=True, **kwargs):
        with self.assertRaises(cls) as caught:
            call(*args, **kwargs)
        error = caught.exception
        self.assertIsInstance(error, EngramError)
        self.assertEqual((error.status, error.code), (status, code))
        self.assertTrue(error.message)
        self.assertIn("%d %s: " % (status, code), str(error))
        if request_id:
            self.assertTrue(error.request_id, "the reply's X-Request-Id")
        return error

    def keyed_server(self):
        tenant = server_harness.create_key(self.db, "acme")
        admin = server_harness.create_key(self.db, "ops", admin=True)
        server = self.start_server("--max-body-bytes", "2048")
        return self.engram_client(server, tenant["secret"]), self.engram_client(server, admin["secret"]), server

    def test_4xx_statuses(self):
        client, admin, server = self.keyed_server()
        error = self.assert_raises_error(BadRequestError, 400, "invalid_argument",
                                         client.search, USER, "tea", limit=5)
        self.assertIn("limit", error.message)
        anonymous = self.engram_client(server)
        self.assert_raises_error(AuthenticationError, 401, "unauthenticated",
                                 anonymous.list_memories, USER)
        wrong = self.engram_client(server, "egk_not_a_key")
        self.assert_raises_error(AuthenticationError, 401, "unauthenticated", wrong.list_memories, USER)
        self.assert_raises_error(PermissionDeniedError, 403, "permission_denied",
                                 client.create_key, "acme")
        self.assert_raises_error(NotFoundError, 404, "not_found", client.get_memory, "no-such-id", USER)
        turn = [{"role": "user", "content": "I like rowing"}]
        client.append_session_messages("closed", USER, turn)
        client.close_session("closed", USER)
        self.assert_raises_error(ConflictError, 409, "conflict",
                                 client.append_session_messages, "closed", USER, turn)
        self.assert_raises_error(PayloadTooLargeError, 413, "payload_too_large",
                                 client.add_memory, USER, "x" * 4000, infer=False)

    def test_401_once_a_key_is_revoked(self):
        _, admin, server = self.keyed_server()
        created = admin.create_key("acme", name="to-revoke")
        doomed = self.engram_client(server, created.secret)
        doomed.list_memories(USER)
        admin.revoke_key(created.id)
        start = time.monotonic()
        while True:
            try:
                doomed.list_memories(USER)
            except AuthenticationError as error:
                self.assertEqual(error.code, "unauthenticated")
                break
            self.assertLess(time.monotonic() - start, 3, "a revoked key still accepted after 3 s")
            time.sleep(0.05)

    def test_429_carries_retry_after(self):
        # One request per 10 s: the second is refused however slow the machine.
        server = self.start_server("--rate-limit", "0.1", "--rate-burst", "1")
        client = self.engram_client(server, max_retries=0)
        client.list_users()
        error = self.assert_raises_error(RateLimitError, 429, "rate_limited", client.list_users)
        self.assertEqual(error.retry_after, 10.0)

    def test_503_carries_retry_after(self):
        # No access log: tearDown would count the 503 this test provokes as a server failure.
        server = self.start_server("--max-connections", "1", access_log=False)
        held = self.hold_connection(server)
        try:
            client = self.engram_client(server, max_retries=0)
            # Refused at the connection limit, before any request was read: no request id.
            error = self.assert_raises_error(UnavailableError, 503, "unavailable", client.healthz,
                                             request_id=False)
            self.assertEqual(error.retry_after, 1.0)
        finally:
            held.close()
