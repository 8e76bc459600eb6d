import type { ResponseHeaders } from "./rate-limit-headers.js";

export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  /** Operation name, for errors, logs and metrics. */
  readonly operation: string;
  readonly method: "GET" | "POST";
  /** Path below the base URL, already encoded: `/api/v1/...`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** Serialised as JSON; sent on GET too (the trends operations take a body on GET). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** A non-idempotent request without a key to make it so must not be repeated. Default true. */
  readonly retry?: boolean;
  /** Told of every try of this request, besides the client-wide observer. */
  readonly onTry?: (event: HttpTryEvent) => void;
  /** A non-2xx answer that is a result, not a failure (e.g. a refused payout). */
  readonly acceptStatus?: (status: number, body: unknown) => boolean;
  /**
   * A body that declares failure is this request's answer (a refused write), not an error. For
   * every other request it is an upstream error: retried, then failed, never data.
   */
  readonly failureIsAnswer?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  readonly body: unknown;
  /**
   * The body before parsing, as UTF-8: data as received; an answer about a failure (a refusal
   * taken as the answer, see acceptStatus and failureIsAnswer) with the key redacted, like every
   * error's.
   */
  readonly bytes: Buffer;
  readonly headers: ResponseHeaders;
  /** How many tries it took (1 = no retry). */
  readonly tries: number;
}

/**
 * What the client reports of each try of a request (a retry is another try of the same request),
 * for metrics and an attempt's accounting. A partition's attempt is another thing: one sync of it.
 */
export interface HttpTryEvent {
  readonly operation: string;
  /** HTTP status, or the error name when no status came back. */
  readonly outcome: number | string;
  readonly durationMs: number;
  /** 1 for the first try, 2 for the first retry… */
  readonly tryNumber: number;
  /** The body of a 2xx that declared failure (FailureBodyError), key redacted; absent: none. */
  readonly failureBody?: string;
}

/** An answer as it came off the wire, before anything read it. */
export interface RawResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly bytes: Buffer;
}
