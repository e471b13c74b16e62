"""Errors raised by the client.

Every reply of the server that is not 2xx becomes an EngramError (or the subclass for its
status) carrying the server's ``{"error": {"code", "message"}}``; a request that got no reply
becomes an EngramConnectionError.
"""

from typing import Optional


class EngramError(Exception):
    """A reply with a 4xx or 5xx status.

    status: the HTTP status; code and message: the server's (``invalid_argument``, ...);
    request_id: the reply's X-Request-Id, to find the request in the server's logs;
    retry_after: the wait in seconds the server asked for (429, 503), else None.
    """

    def __init__(self, status: int, code: str, message: str,
                 request_id: Optional[str] = None, retry_after: Optional[float] = None):
        super().__init__("%d %s: %s" % (status, code, message))
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after


class BadRequestError(EngramError):
    """400 invalid_argument (the message names the field) or bad_request."""


class AuthenticationError(EngramError):
    """401 unauthenticated: no key, an unknown key or a revoked one."""


class PermissionDeniedError(EngramError):
    """403 permission_denied: the key may not do this (an admin route with a tenant key)."""


class NotFoundError(EngramError):
    """404 not_found: also for another tenant's or user's id."""


class ConflictError(EngramError):
    """409 conflict: e.g. a closed session, a deleted memory, a repeated message id."""


class PayloadTooLargeError(EngramError):
    """413 payload_too_large: the body is over the server's --max-body-bytes."""


class RateLimitError(EngramError):
    """429 rate_limited: the key is over the server's --rate-limit; see retry_after."""


class UnavailableError(EngramError):
    """503 unavailable: over the connection limits, or the database is not taking writes."""


class InternalServerError(EngramError):
    """Any other 5xx: the server failed; its log has the cause."""


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    503: UnavailableError,
}


def error_for_status(status: int, code: str, message: str, request_id: Optional[str] = None,
                     retry_after: Optional[float] = None) -> EngramError:
    """The error class for a reply status."""
    cls = _BY_STATUS.get(status, InternalServerError if status >= 500 else EngramError)
    return cls(status, code, message, request_id, retry_after)


class EngramConnectionError(Exception):
    """No reply: the server could not be reached, or the connection failed mid-request.

    not_sent: the request surely never reached the server (connection refused), so retrying
    it is safe whatever it was.
    """

    def __init__(self, message: str, not_sent: bool = False):
        super().__init__(message)
        self.not_sent = not_sent


class EngramTimeoutError(EngramConnectionError):
    """No reply within the timeout."""
