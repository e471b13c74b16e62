"""Helpers of the Python client's tests: a server test case whose clients are EngramClients,
a client that records the operations it sent, and a scripted HTTP server for the failures a
real engram serve does not produce on demand."""

import http.server
import json
import socket
import threading
import time

import server_harness
from engram_client import EngramClient
from engram_client.models import Model


class RecordingClient(EngramClient):
    """An EngramClient remembering the operationIds it sent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sent = set()

    def request(self, operation, **kwargs):
        self.sent.add(operation)
        return super().request(operation, **kwargs)


class ClientTestCase(server_harness.ServerTestCase):
    """server_harness's test case (a temporary directory, servers stopped and their access
    logs checked for 5xx afterwards), with EngramClients for its servers."""

    def setUp(self):
        super().setUp()
        self.engram_clients = []

    def tearDown(self):
        for c in self.engram_clients:
            c.close()
        super().tearDown()

    def engram_client(self, server, key=None, cls=EngramClient, **options):
        client = cls(server.url, key or "", **options)
        self.engram_clients.append(client)
        return client

    # Fields the server sends that docs/openapi.json does not name yet (found by this check;
    # the document is the server's to fix, and then these entries go). None today.
    UNDOCUMENTED = {}

    def assert_no_extra(self, value, where="reply"):
        """Every field of the reply is one docs/openapi.json names (none landed in extra)."""
        if isinstance(value, Model):
            known = self.UNDOCUMENTED.get(type(value).__name__, set())
            extra = {k: v for k, v in value.extra.items() if k not in known}
            self.assertEqual(extra, {}, "%s: fields the document does not name" % where)
            for name, field in vars(value).items():
                self.assert_no_extra(field, "%s.%s" % (where, name))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.assert_no_extra(item, "%s[%d]" % (where, i))

    def hold_connection(self, server):
        """Takes the one slot of a server run with --max-connections 1."""
        sock = socket.create_connection(("127.0.0.1", server.port))
        time.sleep(0.1)  # the server has counted it by then
        return sock


def reply(status, body=b"", headers=None):
    return {"status": status, "body": body, "headers": headers or {}}


def json_reply(status, value, headers=None):
    return reply(status, json.dumps(value).encode(), dict(headers or {}, **{"Content-Type": "application/json"}))


DROP = {"drop": True}
HANG = {"hang": True}


class ScriptedServer:
    """Answers each request with the next step of `steps` (the last one repeats): a reply,
    DROP (closes the connection) or HANG (never answers). Records the requests."""

    def __init__(self, steps):
        self.requests = []
        self.steps = steps
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _answer(self):
                n = int(self.headers.get("Content-Length", "0"))
                owner.requests.append((self.command, self.path, dict(self.headers), self.rfile.read(n)))
                step = owner.steps[min(len(owner.requests), len(owner.steps)) - 1]
                if step.get("drop"):
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if step.get("hang"):
                    time.sleep(5)
                    self.close_connection = True
                    return
                self.send_response(step["status"])
                for k, v in step["headers"].items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(step["body"])))
                self.end_headers()
                self.wfile.write(step["body"])

            do_GET = do_POST = do_PATCH = do_DELETE = _answer

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
