import pRetry from "p-retry";
import { Agent } from "undici";
import {
  AuthError,
  BodyCharsetError,
  errorMessage,
  FailureBodyError,
  InvalidJsonError,
  isUpstreamAnswer,
  NetworkError,
  RateLimitedError,
  RateLimitWaitTooLongError,
  RequestTimeoutError,
  ResponseTooLargeError,
  UpstreamDownError,
  UpstreamError,
  UpstreamStatusError,
} from "../errors.js";
import type { Logger } from "../logging/logger.js";
import { type Redact, secretRedactor } from "../logging/redact-secrets.js";
import type { ResponseHeaders } from "./rate-limit-headers.js";
import { heedAnswer, ProbeAsks, type RateNote } from "./rate-feedback.js";
import { linkedAbort } from "../async/linked-abort.js";
import { linkPath } from "./link-path.js";
import { requestTarget } from "./request-target.js";
import type { RequestBudget, RequestIdentity } from "./request-budget.js";
import { subjectOf } from "./request-subject.js";
import { beyondOneStep, type RateChange } from "./auto-rate.js";
import { upstreamMessage } from "./upstream-message.js";
import { parseJsonBody } from "../json/json-body.js";
import { parseJsonBytes } from "../json/json-bytes.js";
import { declaresFailure } from "./failure-body.js";
import { declaredLength, readBody } from "./read-body.js";
import { declaredCharset, decodeBody, decodeLeniently } from "./body-charset.js";
import { type ProbePacing, UpstreamOutage } from "./upstream-outage.js";
import { type HealthSign, healthSignOf } from "./upstream-health.js";
import { RetryBudget, type RetryBudgetRule } from "./retry-budget.js";

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
  /** Told of every attempt of this request, besides the client-wide observer. */
  readonly onAttempt?: (event: HttpAttemptEvent) => void;
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
  /** How many attempts it took (1 = no retry). */
  readonly attempts: number;
}

/** What the client reports of each attempt, for metrics and run accounting. */
export interface HttpAttemptEvent {
  readonly operation: string;
  /** HTTP status, or the error name when no status came back. */
  readonly outcome: number | string;
  readonly durationMs: number;
  readonly attempt: number;
  /** The body of a 2xx that declared failure (FailureBodyError), key redacted; absent: none. */
  readonly failureBody?: string;
}

export interface HttpClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly budget: RequestBudget;
  readonly logger: Logger;
  readonly timeoutMs: number;
  /**
   * The largest answer read (max_response_bytes): a larger one is refused as it arrives, by its
   * Content-Length or once more has arrived, with ResponseTooLargeError.
   */
  readonly maxResponseBytes: number;
  readonly maxRetries: number;
  /** Cap on any one wait the upstream asks for (Retry-After, X-RateLimit-Reset). */
  readonly maxRateLimitWaitMs: number;
  /** First backoff delay; doubled each retry, with jitter. */
  readonly retryBaseMs?: number;
  readonly retryMaxDelayMs?: number;
  /** Wait after a 429 that says nothing of when to come back. */
  readonly defaultRateLimitWaitMs?: number;
  readonly connections?: number;
  readonly onAttempt?: (event: HttpAttemptEvent) => void;
  /** Told of every change of the shared rate this client's answers made. */
  readonly onRateChange?: (change: RateChange) => void;
  /** The light request that probes a down upstream (see UpstreamOutage). */
  readonly healthProbe: Pick<HttpRequest, "operation" | "method" | "path">;
  /** How probes pace themselves (default PROBE_PACING); shorter in tests. */
  readonly probePacing?: ProbePacing;
  /** What retries may cost the upstream (default RETRY_BUDGET). */
  readonly retryBudget?: RetryBudgetRule;
  /**
   * How long a request waits for a down upstream's return before it fails (UpstreamDownError):
   * a one-shot command gives up (outage_wait_ms); a worker, which takes no job meanwhile, waits.
   */
  readonly outageWaitMs?: number;
}

interface RawResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly bytes: Buffer;
}

/** An answer about a failure, as the rest of the program sees it: the key redacted. */
interface FailureAnswer {
  readonly text: string;
  /** Parsed from the redacted text; undefined when it is not JSON. */
  readonly body: unknown;
  /** The upstream's message, for errors (see upstreamMessage). */
  readonly message: string;
}

/**
 * The one way to talk to the upstream: a keep-alive pool, a deadline on every attempt, the shared
 * request budget, and retries with exponential backoff and jitter for what a retry can fix.
 */
export class HttpClient {
  readonly #options: HttpClientOptions;
  readonly #agent: Agent;
  /** Removes the key from the upstream's answers about failures (see #failureAnswer). */
  readonly #redact: Redact;
  /**
   * Until an answer shows the credential is accepted, one request goes out at a time and the
   * others wait for it: a bad key costs one request, not one per concurrent slot. After a 401
   * nothing more is sent until `forgetRefusal`.
   */
  #credentialAccepted = false;
  #credentialCheck: Promise<void> | null = null;
  #refused: AuthError | null = null;
  readonly #probeAsks = new ProbeAsks();
  /** Whether the upstream is declared down, for every process sharing the budget. */
  readonly outage: UpstreamOutage;
  /** What this process's retries may still cost. */
  readonly retries: RetryBudget;

  constructor(options: HttpClientOptions) {
    this.#options = options;
    this.outage = new UpstreamOutage({
      budget: options.budget,
      logger: options.logger,
      probe: () => this.#sendProbe(),
      ...(options.probePacing ? { pacing: options.probePacing } : {}),
    });
    this.retries = new RetryBudget(options.retryBudget);
    this.#redact = secretRedactor([options.apiKey]);
    this.#agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: options.connections ?? 16,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async request(request: HttpRequest): Promise<HttpResponse> {
    const identity: RequestIdentity = {
      operation: request.operation,
      method: request.method,
      path: request.path,
      ...subjectOf(request.query),
    };
    const { logger, maxRetries } = this.#options;
    const baseMs = this.#options.retryBaseMs ?? 500;
    // Only a retry of what the upstream's health failed spends the retry budget: a 429's is the
    // rate's business.
    let healthFailed = false;
    return pRetry((attempt) => this.#attempt(request, identity, attempt, healthFailed), {
      retries: request.retry === false ? 0 : maxRetries,
      factor: 2,
      minTimeout: baseMs,
      maxTimeout: this.#options.retryMaxDelayMs ?? 30_000,
      randomize: true,
      signal: request.signal,
      shouldRetry: ({ error }) => error instanceof UpstreamError && error.retryable,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        healthFailed = healthSignOf(error) === "failed";
        const retryable = error instanceof UpstreamError && error.retryable;
        if (retryable && retriesLeft > 0) {
          logger.warn(
            {
              operation: request.operation,
              attempt: attemptNumber,
              retriesLeft,
              err: error.message,
            },
            "upstream request failed; retrying",
          );
        }
      },
    });
  }

  async close(): Promise<void> {
    this.outage.close();
    await this.#agent.close();
  }

  /**
   * Forgets a 401: the next request checks the credential again, alone, as the first one did.
   * For a long-lived process that waits for a refused credential to be accepted again.
   */
  forgetRefusal(): void {
    this.#refused = null;
    this.#credentialAccepted = false;
  }

  /** The path below the base URL of a link the upstream gave, or null (see linkPath). */
  pathOfLink(link: string): string | null {
    return linkPath(this.#options.baseUrl, link);
  }

  /** Runs the attempt once the credential is known to be good, or as the one that finds out. */
  async #attempt(
    request: HttpRequest,
    identity: RequestIdentity,
    attempt: number,
    afterHealthFailure: boolean,
  ): Promise<HttpResponse> {
    if (afterHealthFailure) await this.retries.take(request.signal);
    for (;;) {
      if (this.#refused) throw new AuthError(identity, this.#refused.upstreamMessage);
      if (this.#credentialAccepted) return this.#sendWithinBudget(request, identity, attempt);
      if (!this.#credentialCheck) break;
      await this.#credentialCheck;
    }
    let settle!: () => void;
    this.#credentialCheck = new Promise<void>((resolve) => {
      settle = resolve;
    });
    try {
      const response = await this.#sendWithinBudget(request, identity, attempt);
      this.#credentialAccepted = true;
      return response;
    } catch (error) {
      if (isUpstreamAnswer(error)) {
        this.#credentialAccepted = true;
      }
      throw error;
    } finally {
      this.#credentialCheck = null;
      settle();
    }
  }

  /**
   * Sends the request once the upstream is not declared down. A failure of an upstream declared
   * down meanwhile is the outage's, not the request's: it is sent again once the outage ends, its
   * retries unspent.
   */
  async #sendWithinBudget(
    request: HttpRequest,
    identity: RequestIdentity,
    attempt: number,
  ): Promise<HttpResponse> {
    let resent = 0;
    for (;;) {
      await this.#untilUp(request);
      try {
        return await this.#sendOnce(request, identity, attempt);
      } catch (error) {
        if (error instanceof UpstreamDownError) this.outage.learnDown();
        else if (
          !this.outage.down ||
          healthSignOf(error) !== "failed" ||
          // An endpoint that fails whenever the upstream is back (and brings it down again) is
          // its own failure: after a few outages its retries count.
          (resent += 1) > MAX_OUTAGE_RESENDS
        ) {
          throw error;
        }
        request.signal?.throwIfAborted();
      }
    }
  }

  async #untilUp(request: HttpRequest): Promise<void> {
    const { outageWaitMs } = this.#options;
    try {
      await this.outage.untilUp(request.signal, outageWaitMs);
    } catch (error) {
      if ((error as Error).name !== "TimeoutError" || request.signal?.aborted) throw error;
      throw new UpstreamDownError(request.operation, outageWaitMs);
    }
  }

  /** The outage's probe: one request, not retried, sent while the upstream is declared down. */
  async #sendProbe(): Promise<void> {
    const request: HttpRequest = { ...this.#options.healthProbe, retry: false };
    await this.#sendOnce(request, { ...this.#options.healthProbe }, 1, true);
  }

  async #sendOnce(
    request: HttpRequest,
    identity: RequestIdentity,
    attempt: number,
    probe = false,
  ): Promise<HttpResponse> {
    const lease = await this.#options.budget.acquire(identity, request.signal, probe);
    const started = performance.now();
    let outcome: number | string = "Error";
    let failureBody: string | undefined;
    let health: HealthSign = null;
    let problem = "";
    try {
      const raw = await this.#send(request, identity);
      outcome = raw.status;
      const heeded = await heedAnswer(this.#options.budget, lease, raw, Date.now(), {
        fallbackPauseMs: this.#options.defaultRateLimitWaitMs ?? 1000,
        maxPauseMs: this.#options.maxRateLimitWaitMs,
        mayProbe: () => this.#probeAsks.due(),
      });
      this.#noteRate(heeded.note);
      const response = this.#interpret(request, identity, raw, heeded.pauseMs);
      health = "healthy";
      return { ...response, attempts: attempt };
    } catch (error) {
      if (outcome === "Error") outcome = (error as Error).name;
      if (error instanceof FailureBodyError) failureBody = error.body;
      health = healthSignOf(error);
      problem = errorMessage(error);
      throw error;
    } finally {
      if (health === "healthy") this.retries.answered();
      // The probe's sign is the outage's own business (UpstreamOutage#probe).
      if (await lease.release(probe ? null : health)) await this.outage.declare(problem);
      const event = {
        operation: request.operation,
        outcome,
        durationMs: performance.now() - started,
        attempt,
        ...(failureBody === undefined ? {} : { failureBody }),
      };
      this.#options.onAttempt?.(event);
      request.onAttempt?.(event);
    }
  }

  async #send(request: HttpRequest, identity: RequestIdentity): Promise<RawResponse> {
    const { baseUrl, apiKey, timeoutMs, maxResponseBytes } = this.#options;
    const abort = linkedAbort(request.signal, timeoutMs);
    const target = requestTarget(baseUrl, request.path, request.query);
    try {
      const response = await this.#agent.request({
        ...target,
        method: request.method,
        // undici closes the connection after a GET with a body, in case the server left the body
        // unread; the trends operations are such GETs, and this upstream reads their bodies. Kept
        // alive, they cost no new connection each (a TLS handshake, against the real upstream).
        reset: false,
        signal: abort.signal,
        headers: {
          authorization: `Bearer ${apiKey}`,
          accept: "application/json",
          "content-type": "application/json",
          "user-agent": "music-etl",
          ...request.headers,
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
      const status = response.statusCode;
      // Counted as it arrives: an answer past the limit never fills the heap.
      const declared = declaredLength(response.headers);
      if (declared !== null && declared > maxResponseBytes) {
        response.body.destroy();
        throw new ResponseTooLargeError(identity, status, maxResponseBytes, declared, true);
      }
      const body = await readBody(response.body, maxResponseBytes, declared);
      if ("tooLarge" in body) {
        throw new ResponseTooLargeError(identity, status, maxResponseBytes, body.tooLarge, false);
      }
      return { status, headers: response.headers, bytes: body.bytes };
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error;
      if (request.signal?.aborted) throw request.signal.reason;
      const code = (error as { code?: string }).code;
      if (abort.timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
        throw new RequestTimeoutError(identity, timeoutMs);
      }
      throw new NetworkError(identity, error);
    } finally {
      abort.close();
    }
  }

  /** Tells the metrics of a change, and the log of one larger than a step of probing. */
  #noteRate(note: RateNote | null): void {
    if (!note) return;
    const { change, message } = note;
    this.#options.onRateChange?.(change);
    if (!beyondOneStep(change)) return;
    const fields = { requestsPerSecond: change.to, previous: change.from };
    if (change.to < change.from) this.#options.logger.warn(fields, message);
    else this.#options.logger.info(fields, message);
  }

  #interpret(
    request: HttpRequest,
    identity: RequestIdentity,
    raw: RawResponse,
    askedPauseMs: number | null,
  ): Omit<HttpResponse, "attempts"> {
    const { status, headers } = raw;
    const charset = declaredCharset(headers);
    if (status >= 200 && status < 300) {
      const decoded = decodeBody(raw.bytes, charset);
      if (!("bytes" in decoded)) {
        throw new BodyCharsetError(identity, status, decoded.charset, decoded.problem);
      }
      const { bytes } = decoded;
      // Parsed from the bytes: a large answer is never held whole as text (see parseJsonBytes).
      const body = parseJson(() => parseJsonBytes(bytes));
      if (body === INVALID) throw new InvalidJsonError(identity, status, bytes.length);
      // Data is the upstream's and is landed as received (etl.responses), whatever it holds:
      // only what the program says of a failure is its own to keep clean.
      if (!declaresFailure(body)) return { status, body, bytes, headers };
      const failure = this.#failureAnswer(bytes.toString());
      if (request.failureIsAnswer) {
        return { status, body: failure.body, bytes: Buffer.from(failure.text), headers };
      }
      throw new FailureBodyError(identity, status, failure.message, failure.text);
    }
    const failure = this.#failureAnswer(decodeLeniently(raw.bytes, charset).toString());
    if (status === 401) {
      const refused = new AuthError(identity, failure.message);
      this.#refused = refused;
      throw refused;
    }
    if (status === 429) {
      const waitMs = askedPauseMs ?? 0;
      if (waitMs > this.#options.maxRateLimitWaitMs) {
        throw new RateLimitWaitTooLongError(identity, waitMs, this.#options.maxRateLimitWaitMs);
      }
      throw new RateLimitedError(identity, waitMs);
    }
    if (request.acceptStatus?.(status, failure.body)) {
      return { status, body: failure.body, bytes: Buffer.from(failure.text), headers };
    }
    throw new UpstreamStatusError(identity, status, failure.message, failure.body);
  }

  /**
   * An answer about a failure, with the key redacted before anything reads it. Some upstreams
   * repeat the request in their errors, credential included; what the program makes of such an
   * answer (error messages, and so stored run errors, BullMQ's failed jobs, /readyz through the
   * credential gate, command output; stored failure bodies and refused writes) is then clean by
   * construction, wherever the upstream put the key. Parsed after the redaction, so the parsed
   * body and the messages taken from it hold no form of the key the text did not.
   */
  #failureAnswer(text: string): FailureAnswer {
    const redacted = this.#redact(text);
    const parsed = parseJson(() => parseJsonBody(redacted));
    const body = parsed === INVALID ? undefined : parsed;
    return { text: redacted, body, message: upstreamMessage(body, redacted) };
  }
}

const INVALID = Symbol("invalid JSON");

/** How many outages one request waits through, its failures then not counted as retries. */
const MAX_OUTAGE_RESENDS = 3;

function parseJson(parse: () => unknown): unknown {
  try {
    return parse();
  } catch {
    return INVALID;
  }
}
