// One HTTP exchange with the server, with a timeout per attempt and retries where they cannot
// write twice. Only the global fetch (Node 18+, browsers, Deno, Bun) is used.
import {
  EngramConnectionError,
  EngramError,
  EngramTimeoutError,
  errorForStatus,
  UnavailableError,
} from "./errors.js";

export interface ClientOptions {
  /** The server, e.g. http://127.0.0.1:8420. Default: $ENGRAM_URL, else http://127.0.0.1:8420. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <key>`. Default: $ENGRAM_API_KEY; none on a keyless server. */
  apiKey?: string;
  /**
   * Each attempt's limit, reply body included, in milliseconds. Default 30000; 0 means none
   * (which saves the abort signal fetch otherwise carries, about 30 µs a call under Node).
   */
  timeoutMs?: number;
  /** Retries after the first attempt, for the failures that may be retried. Default 2. */
  maxRetries?: number;
  /** Backoff before retry n is retryBaseMs·2^n, jittered, when the server named no wait. */
  retryBaseMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60000. */
  maxRetryDelayMs?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** The fetch to use (a test double, or one with a proxy agent). Default: globalThis.fetch. */
  fetch?: typeof fetch;
}

/** Per-call overrides. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
}

/** What the client asks the transport to send. */
export interface HttpRequest {
  method: string;
  /** Path with its parameters filled in, e.g. /v1/memories/abc. */
  path: string;
  query?: object;
  body?: unknown;
  /** The reply body is JSON (else it is returned as text). */
  json: boolean;
  /** Sending it twice has the effect of sending it once, so any failure may be retried. */
  idempotent: boolean;
  /** The user it acts for, sent as X-Engram-User (see userHeader). */
  user?: string;
}

const DEFAULT_URL = "http://127.0.0.1:8420";

interface Settings {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  maxRetryDelayMs: number;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** Reads an environment variable where there is a process (not in a browser). */
function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name];
  return value === "" ? undefined : value;
}

export function resolveSettings(options: ClientOptions): Settings {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function") {
    throw new Error("engram-client needs a global fetch (Node 18 or later) or options.fetch");
  }
  return {
    baseUrl: (options.baseUrl ?? env("ENGRAM_URL") ?? DEFAULT_URL).replace(/\/+$/, ""),
    apiKey: options.apiKey ?? env("ENGRAM_API_KEY"),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 2,
    retryBaseMs: options.retryBaseMs ?? 250,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 60_000,
    headers: options.headers ?? {},
    fetch: fetchImpl,
  };
}

export class Transport {
  readonly settings: Settings;

  constructor(options: ClientOptions = {}) {
    this.settings = resolveSettings(options);
  }

  /** Sends the request, retrying what may be retried; returns the parsed 2xx body. */
  async send(request: HttpRequest, options: RequestOptions = {}): Promise<unknown> {
    const maxRetries = options.maxRetries ?? this.settings.maxRetries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(request, options);
      } catch (error) {
        const wait = attempt < maxRetries ? this.retryDelay(error, request, attempt) : undefined;
        if (wait === undefined) throw error;
        await sleep(wait, options.signal);
      }
    }
  }

  /**
   * How long to wait before retrying after `error`, or undefined when it must not be retried.
   * A write that is not idempotent is retried only when the server said it did not apply it:
   * a 429 (refused before the route ran) or the server's own JSON 503 (refused at the
   * connection limit, or a write failed and was rolled back), or when the connection was
   * refused. Anything else might have been applied, so it is the caller's to decide.
   */
  retryDelay(error: unknown, request: HttpRequest, attempt: number): number | undefined {
    if (!retryable(error, request.idempotent)) return undefined;
    const asked = error instanceof EngramError ? error.retryAfterMs : undefined;
    if (asked !== undefined) return asked <= this.settings.maxRetryDelayMs ? asked : undefined;
    const full = this.settings.retryBaseMs * 2 ** attempt;
    return full / 2 + Math.random() * (full / 2); // jitter: clients refused together spread out
  }

  private async attempt(request: HttpRequest, options: RequestOptions): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const deadline = new Deadline(timeoutMs, options.signal);
    try {
      const response = await this.settings
        .fetch(this.url(request), this.init(request, options, deadline.signal))
        .catch((e: unknown) => deadline.rethrow(e));
      const text = await response.text().catch((e: unknown) => deadline.rethrow(e));
      if (!response.ok) throw replyError(response, text);
      return request.json ? parseJson(text, response.status) : text;
    } finally {
      deadline.clear();
    }
  }

  private url(request: HttpRequest): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null) query.append(name, String(value));
    }
    const search = query.toString();
    return this.settings.baseUrl + request.path + (search ? `?${search}` : "");
  }

  private init(
    request: HttpRequest,
    options: RequestOptions,
    signal: AbortSignal | undefined,
  ): RequestInit {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.settings.apiKey) headers.Authorization = `Bearer ${this.settings.apiKey}`;
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    const routing = userHeader(request.user);
    if (routing !== undefined) headers["X-Engram-User"] = routing;
    Object.assign(headers, this.settings.headers, options.headers);
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    return { method: request.method, headers, body, signal };
  }
}

/**
 * The X-Engram-User value for `user`: its UTF-8 bytes as they are (what the chat proxy reads as
 * the user, and what a proxy routing by user hashes; docs/deploy.md, "Routing"). fetch takes
 * header values as Latin-1 strings, one character a byte, so beyond ASCII the bytes are spelled
 * that way. Undefined, so no header, for no user or one with a control character (the server
 * refuses such an id anyway, and a header could not carry it).
 */
export function userHeader(user: string | undefined): string | undefined {
  if (typeof user !== "string" || user === "" || /[\u0000-\u001f\u007f]/.test(user)) return undefined;
  if (/^[\u0020-\u007e]*$/.test(user)) return user;
  let bytes = "";
  for (const b of new TextEncoder().encode(user)) bytes += String.fromCharCode(b);
  return bytes;
}

function retryable(error: unknown, idempotent: boolean): boolean {
  if (error instanceof EngramError) {
    if (error.status === 429) return true;
    if (error instanceof UnavailableError && error.code === "unavailable") return true;
    return idempotent && (error.status === 502 || error.status === 503 || error.status === 504);
  }
  if (error instanceof EngramConnectionError) return idempotent || error.notSent;
  return false; // the caller's abort, or a bug
}

/** The EngramError for a non-2xx reply; a body that is not the server's error is quoted. */
function replyError(response: Response, text: string): EngramError {
  let code = `http_${response.status}`;
  let message = text.slice(0, 200) || response.statusText;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code === "string") code = parsed.error.code;
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
  } catch {
    // not JSON: a proxy's page, kept as the message
  }
  return errorForStatus(response.status, {
    code,
    message,
    requestId: response.headers.get("x-request-id") ?? undefined,
    retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
  });
}

function parseJson(text: string, status: number): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new EngramError(status, { code: "invalid_reply", message: `reply is not JSON: ${cause}` });
  }
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * One attempt's time limit joined with the caller's signal. (AbortSignal.any and
 * AbortSignal.timeout would do this, but any() is not in Node 18.) With neither a limit nor a
 * caller's signal there is no signal at all.
 */
class Deadline {
  private readonly controller?: AbortController;
  private readonly timer?: ReturnType<typeof setTimeout>;
  private timedOut = false;
  private readonly onAbort = () => this.controller?.abort(this.outer?.reason);

  constructor(
    private readonly timeoutMs: number,
    private readonly outer?: AbortSignal,
  ) {
    const limited = timeoutMs > 0 && Number.isFinite(timeoutMs);
    if (!limited && !outer) return;
    this.controller = new AbortController();
    if (limited) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller?.abort();
      }, timeoutMs);
    }
    if (outer?.aborted) this.onAbort();
    outer?.addEventListener("abort", this.onAbort, { once: true });
  }

  get signal(): AbortSignal | undefined {
    return this.controller?.signal;
  }

  clear(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onAbort);
  }

  /** Rethrows a fetch failure as what it means: the caller's abort, a timeout, no reply. */
  rethrow(error: unknown): never {
    if (this.outer?.aborted) throw this.outer.reason ?? error;
    if (this.timedOut) {
      throw new EngramTimeoutError(`no reply within ${this.timeoutMs} ms`, { cause: error });
    }
    const code = (error as { cause?: { code?: string } })?.cause?.code;
    throw new EngramConnectionError(`request failed: ${code ?? String(error)}`, {
      cause: error,
      notSent: code === "ECONNREFUSED",
    });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
