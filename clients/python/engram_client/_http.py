"""One HTTP exchange with the server: keep-alive connections (one per thread), a timeout, and
retries where they cannot write twice. Standard library only."""

import email.utils
import http.client
import json
import os
import random
import socket
import threading
import time
import urllib.parse
from typing import Any, Mapping, Optional

from .errors import (EngramConnectionError, EngramError, EngramTimeoutError,
                     UnavailableError, error_for_status)

DEFAULT_URL = "http://127.0.0.1:8420"

# The server closes a keep-alive connection idle for its --keep-alive-timeout (5 s by
# default); one idle longer than this is reopened before use rather than found closed, since
# a request lost on a connection closing under it could not be told from one that failed.
IDLE_REOPEN_S = 4.0


def _env(name: str) -> Optional[str]:
    return os.environ.get(name) or None


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After in seconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"  # what the server reads, not Python's True
    return str(value)


class _Conn:
    """A connection and when it was last used."""

    def __init__(self, conn: http.client.HTTPConnection):
        self.conn = conn
        self.last_used = time.monotonic()


class Transport:
    """Settings and connections of one client; safe to share between threads."""

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None,
                 timeout: float = 30.0, max_retries: int = 2, retry_base: float = 0.25,
                 max_retry_delay: float = 60.0, headers: Optional[Mapping[str, str]] = None):
        self.base_url = (base_url or _env("ENGRAM_URL") or DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else _env("ENGRAM_API_KEY")
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base = retry_base
        self.max_retry_delay = max_retry_delay
        self.headers = dict(headers or {})
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError("base_url must be an http:// or https:// URL: %r" % self.base_url)
        self._https = parsed.scheme == "https"
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path
        self._local = threading.local()

    def send(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None,
             body: Any = None, *, json_reply: bool = True, idempotent: bool,
             timeout: Optional[float] = None, max_retries: Optional[int] = None,
             user: Optional[str] = None) -> Any:
        """Sends the request, retrying what may be retried; returns the parsed 2xx body.

        user: the user the request acts for, sent as X-Engram-User (user_header)."""
        retries = self.max_retries if max_retries is None else max_retries
        routing = user_header(user)
        attempt = 0
        while True:
            try:
                return self._attempt(method, self._target(path, query), body, json_reply,
                                     self.timeout if timeout is None else timeout, routing)
            except (EngramError, EngramConnectionError) as error:
                wait = self.retry_delay(error, idempotent, attempt) if attempt < retries else None
                if wait is None:
                    raise
            time.sleep(wait)
            attempt += 1

    def retry_delay(self, error: Exception, idempotent: bool, attempt: int) -> Optional[float]:
        """Seconds to wait before retrying after `error`, or None when it must not be retried.

        A write that is not idempotent is retried only when the server said it did not apply
        it: a 429 (refused before the route ran) or the server's own JSON 503 (refused at the
        connection limit, or a write failed and was rolled back), or when the connection was
        refused. Anything else might have been applied, so it is the caller's to decide.
        """
        if not _retryable(error, idempotent):
            return None
        asked = getattr(error, "retry_after", None)
        if asked is not None:
            return asked if asked <= self.max_retry_delay else None
        full = self.retry_base * (2 ** attempt)
        return full / 2 + random.random() * full / 2  # jitter: refused clients spread out

    def close(self) -> None:
        """Closes this thread's connection."""
        held = getattr(self._local, "held", None)
        if held is not None:
            held.conn.close()
            self._local.held = None

    def _target(self, path: str, query: Optional[Mapping[str, Any]]) -> str:
        pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        return self._prefix + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def _connection(self, timeout: float) -> _Conn:
        held = getattr(self._local, "held", None)
        if held is not None and time.monotonic() - held.last_used > IDLE_REOPEN_S:
            self.close()
            held = None
        if held is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            held = _Conn(cls(self._host, self._port, timeout=timeout))
            self._local.held = held
        held.conn.timeout = timeout
        if held.conn.sock is not None:
            held.conn.sock.settimeout(timeout)
        return held

    def _headers(self, has_body: bool, routing: Optional[bytes]) -> dict:
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        if has_body:
            headers["Content-Type"] = "application/json"
        if routing is not None:
            headers["X-Engram-User"] = routing
        headers.update(self.headers)
        return headers

    def _attempt(self, method: str, target: str, body: Any, json_reply: bool,
                 timeout: float, routing: Optional[bytes]) -> Any:
        held = self._connection(timeout)
        data = None if body is None else json.dumps(body).encode("utf-8")
        try:
            held.conn.request(method, target, body=data,
                              headers=self._headers(data is not None, routing))
            response = held.conn.getresponse()
            payload = response.read()
        except socket.timeout as e:
            self.close()
            raise EngramTimeoutError("no reply within %g s" % timeout) from e
        except ConnectionRefusedError as e:
            self.close()
            raise EngramConnectionError("connection refused: %s" % self.base_url,
                                        not_sent=True) from e
        except (OSError, http.client.HTTPException) as e:
            self.close()
            raise EngramConnectionError("request failed: %r" % e) from e
        held.last_used = time.monotonic()
        if response.will_close:
            self.close()
        if response.status >= 300:
            raise _reply_error(response, payload)
        if not json_reply:
            return payload.decode("utf-8")
        return json.loads(payload) if payload else None


def user_header(user: Optional[str]) -> Optional[bytes]:
    """The X-Engram-User value for `user`: its UTF-8 bytes as they are (what the chat proxy
    reads as the user, and what a proxy routing by user hashes; docs/deploy.md, "Routing").
    None, so no header, for no user or one with a control character (the server refuses such
    an id anyway, and a header could not carry it)."""
    if not isinstance(user, str) or not user:
        return None
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in user):
        return None
    return user.encode("utf-8", "replace")


def _retryable(error: Exception, idempotent: bool) -> bool:
    if isinstance(error, EngramError):
        if error.status == 429:
            return True
        if isinstance(error, UnavailableError) and error.code == "unavailable":
            return True
        return idempotent and error.status in (502, 503, 504)
    if isinstance(error, EngramConnectionError):
        return idempotent or error.not_sent
    return False


def _reply_error(response: http.client.HTTPResponse, payload: bytes) -> EngramError:
    """The EngramError for a non-2xx reply; a body that is not the server's error is quoted."""
    text = payload.decode("utf-8", "replace")
    code, message = "http_%d" % response.status, text[:200] or response.reason
    try:
        error = json.loads(text).get("error", {})
        if isinstance(error.get("code"), str):
            code = error["code"]
        if isinstance(error.get("message"), str):
            message = error["message"]
    except (ValueError, AttributeError):
        pass  # not the server's JSON: a proxy's page, kept as the message
    return error_for_status(response.status, code, message,
                            request_id=response.getheader("X-Request-Id"),
                            retry_after=parse_retry_after(response.getheader("Retry-After")))
