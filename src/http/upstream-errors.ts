/**
 * The failures of a request to the upstream, each naming its operation, method and path (and
 * the entity asked about), never the credential: the upstream's own words reach them only
 * through the HTTP client, which redacts the key from every answer about a failure first.
 */
import { type ErrorContext, EtlError } from "../errors.js";

/**
 * The upstream is declared down (most requests failed; see UpstreamOutage): this request was not
 * sent. The budget refuses the slot so; the HTTP client then waits for the outage's end and sends
 * it, unless it waited `waitedMs` already (outage_wait_ms: a one-shot command gives up).
 */
export class UpstreamDownError extends EtlError {
  constructor(operation: string, waitedMs?: number) {
    const waited = waitedMs === undefined ? "" : ` for ${Math.round(waitedMs / 1000)} s`;
    super(
      `${operation}: not sent, the upstream is declared down${waited} (etl status says since when)`,
      { operation },
    );
  }
}

interface RequestContext {
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  /** The entity the request is about, from its parameters ("artist_id 9999999"), when it names one. */
  readonly subject?: string;
}

/** Base of every failure of one HTTP request to the upstream. */
export class UpstreamError extends EtlError {
  readonly operation: string;
  /** Whether a later try of the same request may succeed. */
  readonly retryable: boolean;

  constructor(
    message: string,
    request: RequestContext,
    extra: ErrorContext & { retryable: boolean },
    options?: { cause?: unknown },
  ) {
    super(
      `${request.operation} (${request.method} ${request.path}): ${message}`,
      {
        ...request,
        ...extra,
      },
      options,
    );
    this.operation = request.operation;
    this.retryable = extra.retryable;
  }
}

/** 401: the credential was refused. Never retried. */
export class AuthError extends UpstreamError {
  readonly upstreamMessage: string;

  constructor(request: RequestContext, upstreamMessage: string) {
    super(
      `the upstream refused the credential (401 ${upstreamMessage}); check MUSIC_API_KEY`,
      request,
      { status: 401, retryable: false },
    );
    this.upstreamMessage = upstreamMessage;
  }
}

/**
 * Statuses the same request meets again, whoever sends it and however often: what it names does
 * not exist (404, 410), or what it asks is refused as such (400, 403, 405, 422). Not 408, 409,
 * 425 or 429, which say "not now".
 */
const PERMANENT_STATUSES = new Set([400, 403, 404, 405, 410, 422]);

/** Any non-2xx answer other than 401 and 429. 5xx are retryable, other 4xx are not. */
export class UpstreamStatusError extends UpstreamError {
  readonly status: number;
  readonly upstreamMessage: string;
  readonly body: unknown;
  /**
   * What the request met, when no retry can change it: the same text for every request about
   * the same entity, so that the partitions it failed are reported once. Null otherwise.
   */
  readonly permanentCause: string | null;

  constructor(request: RequestContext, status: number, upstreamMessage: string, body: unknown) {
    super(`HTTP ${status}: ${upstreamMessage}`, request, { status, retryable: status >= 500 });
    this.status = status;
    this.upstreamMessage = upstreamMessage;
    this.body = body;
    this.permanentCause = PERMANENT_STATUSES.has(status)
      ? `${request.subject ?? `${request.method} ${request.path}`}: HTTP ${status} (${upstreamMessage})`
      : null;
  }
}

/** The cause of a failure no retry can cure, as UpstreamStatusError words it; null for others. */
export function permanentCause(error: unknown): string | null {
  return error instanceof UpstreamStatusError ? error.permanentCause : null;
}

/**
 * A 2xx whose body declares failure (`{status: false, message}` and the like): an upstream error,
 * retried like a 5xx, never data. `body` is the text as received but for the key (redacted), kept
 * for diagnosis.
 */
export class FailureBodyError extends UpstreamError {
  readonly status: number;
  readonly upstreamMessage: string;
  readonly body: string;

  constructor(request: RequestContext, status: number, upstreamMessage: string, body: string) {
    super(`HTTP ${status} with a body that declares failure: ${upstreamMessage}`, request, {
      status,
      retryable: true,
    });
    this.status = status;
    this.upstreamMessage = upstreamMessage;
    this.body = body;
  }
}

/**
 * 429: the upstream asked us to slow down; `waitMs` is how long it asked for, `limit` the requests
 * per second its answer stated (X-RateLimit-Limit), null when it stated none.
 */
export class RateLimitedError extends UpstreamError {
  readonly waitMs: number;
  readonly limit: number | null;

  constructor(request: RequestContext, waitMs: number, limit: number | null) {
    super(`HTTP 429: rate limited, retry in ${waitMs} ms`, request, {
      status: 429,
      waitMs,
      limit,
      retryable: true,
    });
    this.waitMs = waitMs;
    this.limit = limit;
  }
}

/** The upstream asked for a wait longer than the configured cap; we refuse to sleep that long. */
export class RateLimitWaitTooLongError extends UpstreamError {
  constructor(request: RequestContext, waitMs: number, capMs: number) {
    super(
      `the upstream asked to wait ${Math.ceil(waitMs / 1000)} s, more than the cap of ${Math.ceil(capMs / 1000)} s (max_rate_limit_wait_ms)`,
      request,
      { waitMs, capMs, retryable: false },
    );
  }
}

/** No complete answer within the request timeout. */
export class RequestTimeoutError extends UpstreamError {
  constructor(request: RequestContext, timeoutMs: number) {
    super(`no complete response within ${timeoutMs} ms`, request, { timeoutMs, retryable: true });
  }
}

/** Codes of a connection that never was: a wrong host or port, or a service that is not up. */
export const NEVER_CONNECTED: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** The connection failed or was cut (refused, reset, closed mid-body). */
export class NetworkError extends UpstreamError {
  constructor(request: RequestContext, cause: unknown) {
    const code = (cause as { code?: unknown })?.code;
    const detail = typeof code === "string" ? code : ((cause as Error)?.message ?? "unknown");
    const hint = NEVER_CONNECTED.has(detail)
      ? ": is the upstream up, and MUSIC_API_URL right?"
      : "";
    super(
      `connection failed (${detail})${hint}`,
      request,
      { code: detail, retryable: true },
      {
        cause,
      },
    );
  }
}

/** A 2xx answer whose body is not valid JSON (e.g. truncated). */
export class InvalidJsonError extends UpstreamError {
  constructor(request: RequestContext, status: number, bodyLength: number) {
    super(`HTTP ${status} with a body that is not valid JSON (${bodyLength} bytes)`, request, {
      status,
      retryable: true,
    });
  }
}

/**
 * A success whose body is not valid text in the charset its Content-Type declares (UTF-8 when it
 * declares none), or declares a charset no decoder knows. Retried (a body cut or garbled on the
 * way comes right again), then failed: stored, its replaced characters would be changed names.
 */
export class BodyCharsetError extends UpstreamError {
  readonly charset: string;

  constructor(
    request: RequestContext,
    status: number,
    charset: string,
    problem: "invalid" | "unknown",
  ) {
    super(
      problem === "invalid"
        ? `HTTP ${status} with a body that is not valid ${charset} (the charset its Content-Type declares, UTF-8 when none)`
        : `HTTP ${status} with a body in charset "${charset}", which no decoder here knows`,
      request,
      { status, retryable: true },
    );
    this.charset = charset;
  }
}

/** A size in bytes as an operator reads it: "16777216 bytes, 16 MiB". */
function sizeText(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${bytes} bytes, ${mib >= 1 ? `${Math.round(mib * 10) / 10} MiB` : `${Math.ceil(bytes / 1024)} KiB`}`;
}

/**
 * An answer larger than max_response_bytes, refused before it is read whole: by its
 * Content-Length, or once more bytes than the limit have arrived. Not retried: the same request
 * brings the same answer, and a process that read it whole would run out of memory, not the
 * partition. `receivedBytes` is what the Content-Length declared, or what arrived before the
 * read stopped.
 */
export class ResponseTooLargeError extends UpstreamError {
  readonly status: number;
  readonly limitBytes: number;

  constructor(
    request: RequestContext,
    status: number,
    limitBytes: number,
    receivedBytes: number,
    declared: boolean,
  ) {
    const seen = declared
      ? `its Content-Length says ${sizeText(receivedBytes)}`
      : `reading stopped at ${sizeText(receivedBytes)}`;
    super(
      `HTTP ${status} answer larger than max_response_bytes (${sizeText(limitBytes)}): ${seen}; not retried: to accept it, raise max_response_bytes and the heap with it (docs/operations.md, "Memory")`,
      request,
      { status, limitBytes, receivedBytes, retryable: false },
    );
    this.status = status;
    this.limitBytes = limitBytes;
  }
}

/**
 * Whether the upstream answered the request with an HTTP status: any answer but a 401 got past
 * authentication, so it proves the credential accepted; no answer at all (a reset, a timeout)
 * proves nothing.
 */
export function isUpstreamAnswer(error: unknown): boolean {
  return (
    error instanceof UpstreamStatusError ||
    error instanceof FailureBodyError ||
    error instanceof RateLimitedError ||
    error instanceof InvalidJsonError ||
    (error instanceof ResponseTooLargeError && error.status !== 401)
  );
}
