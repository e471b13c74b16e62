// Errors thrown by the client. Every reply of the server that is not 2xx becomes an
// EngramError (or the subclass for its status) carrying the server's `{"error": {"code",
// "message"}}`; a request that got no reply becomes an EngramConnectionError.

/** What the client knows about a failed reply, besides its status. */
export interface ErrorDetails {
  /** The server's error code: invalid_argument, unauthenticated, not_found, rate_limited, ... */
  code: string;
  message: string;
  /** The reply's X-Request-Id, to find the request in the server's access and audit logs. */
  requestId?: string;
  /** The wait the server asked for with Retry-After (429, 503), in milliseconds. */
  retryAfterMs?: number;
}

/** A reply with a 4xx or 5xx status. */
export class EngramError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;

  constructor(status: number, details: ErrorDetails) {
    super(`${status} ${details.code}: ${details.message}`);
    this.name = new.target.name;
    this.status = status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** 400 invalid_argument (the message names the field) or bad_request. */
export class BadRequestError extends EngramError {}
/** 401 unauthenticated: no key, an unknown key or a revoked one. */
export class AuthenticationError extends EngramError {}
/** 403 permission_denied: the key may not do this (an admin route with a tenant key). */
export class PermissionDeniedError extends EngramError {}
/** 404 not_found: also for another tenant's or user's id. */
export class NotFoundError extends EngramError {}
/** 409 conflict: e.g. a closed session, a deleted memory, a repeated message id. */
export class ConflictError extends EngramError {}
/** 413 payload_too_large: the body is over the server's --max-body-bytes. */
export class PayloadTooLargeError extends EngramError {}
/** 429 rate_limited: the key is over the server's --rate-limit; see retryAfterMs. */
export class RateLimitError extends EngramError {}
/** 503 unavailable: over the connection limits, or the database is not taking writes. */
export class UnavailableError extends EngramError {}
/** Any other 5xx: the server failed; its log has the cause. */
export class InternalServerError extends EngramError {}

const BY_STATUS: Record<number, typeof EngramError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitError,
  503: UnavailableError,
};

/** The error class for a reply status. */
export function errorForStatus(status: number, details: ErrorDetails): EngramError {
  const Class = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : EngramError);
  return new Class(status, details);
}

/** No reply: the server could not be reached, or the connection failed mid-request. */
export class EngramConnectionError extends Error {
  /** The request surely never reached the server (connection refused), so retrying is safe. */
  readonly notSent: boolean;

  constructor(message: string, options: { cause?: unknown; notSent?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.notSent = options.notSent ?? false;
  }
}

/** No reply within the timeout. */
export class EngramTimeoutError extends EngramConnectionError {}
