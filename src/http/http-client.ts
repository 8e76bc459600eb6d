import pRetry from "p-retry";
import { Agent } from "undici";
import { errorMessage } from "../errors.js";
import { AuthError, FailureBodyError, UpstreamDownError } from "./upstream-errors.js";
import type { Logger } from "../logging/logger.js";
import { type Redact, secretRedactor } from "../logging/redact-secrets.js";
import { heedAnswer, ProbeAsks, type RateNote } from "./rate-feedback.js";
import { linkPath } from "./link-path.js";
import type { RequestBudget, RequestIdentity } from "./request-budget.js";
import { subjectOf } from "./request-subject.js";
import { beyondOneStep, type RateChange } from "./auto-rate.js";
import { type ProbePacing, UpstreamOutage } from "./upstream-outage.js";
import { type HealthSign, healthSignOf } from "./upstream-health.js";
import { RetryBudget, type RetryBudgetRule } from "./retry-budget.js";
import { RequestRetries } from "./request-retries.js";
import { CredentialCheck } from "./credential-check.js";
import type { HttpTryEvent, HttpRequest, HttpResponse } from "./http-messages.js";
import { readAnswer } from "./read-answer.js";
import { sendRequest } from "./send-request.js";

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
  /**
   * How many retries may follow a 429 (default maxRetries; see RequestRetries): each waits for the
   * pause the answer asked of the budget, as every process does.
   */
  readonly rateLimitRetries?: number;
  /** Cap on any one wait the upstream asks for (Retry-After, X-RateLimit-Reset). */
  readonly maxRateLimitWaitMs: number;
  /** First backoff delay; doubled each retry, with jitter. */
  readonly retryBaseMs?: number;
  readonly retryMaxDelayMs?: number;
  /** Wait after a 429 that says nothing of when to come back. */
  readonly defaultRateLimitWaitMs?: number;
  readonly connections?: number;
  readonly onTry?: (event: HttpTryEvent) => void;
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

/**
 * The one way to talk to the upstream: a keep-alive pool, a deadline on every try, the shared
 * request budget, and retries with exponential backoff and jitter for what a retry can fix.
 */
export class HttpClient {
  readonly #options: HttpClientOptions;
  readonly #agent: Agent;
  /** Removes the key from the upstream's answers about failures (see readAnswer). */
  readonly #redact: Redact;
  readonly #credential = new CredentialCheck();
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
    const retries =
      request.retry === false
        ? new RequestRetries(0, 0)
        : new RequestRetries(maxRetries, this.#options.rateLimitRetries ?? maxRetries);
    // Only a retry of what the upstream's health failed spends the retry budget: a 429's is the
    // rate's business.
    let healthFailed = false;
    return pRetry((tryNumber) => this.#try(request, identity, tryNumber, healthFailed), {
      retries: retries.total,
      factor: 2,
      minTimeout: baseMs,
      maxTimeout: this.#options.retryMaxDelayMs ?? 30_000,
      randomize: true,
      signal: request.signal,
      shouldRetry: ({ error, attemptNumber, retriesLeft }) => {
        if (!retries.spend(error)) return false;
        logger.warn(
          { operation: request.operation, try: attemptNumber, retriesLeft, err: error.message },
          "upstream request failed; retrying",
        );
        return true;
      },
      onFailedAttempt: ({ error }) => {
        healthFailed = healthSignOf(error) === "failed";
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
    this.#credential.forget();
  }

  /** The path below the base URL of a link the upstream gave, or null (see linkPath). */
  pathOfLink(link: string): string | null {
    return linkPath(this.#options.baseUrl, link);
  }

  /** One try of a request: p-retry's attempt, numbered from 1. */
  async #try(
    request: HttpRequest,
    identity: RequestIdentity,
    tryNumber: number,
    afterHealthFailure: boolean,
  ): Promise<HttpResponse> {
    if (afterHealthFailure) await this.retries.take(request.signal);
    return this.#credential.run(identity, () =>
      this.#sendWithinBudget(request, identity, tryNumber),
    );
  }

  /**
   * Sends the request once the upstream is not declared down. A failure of an upstream declared
   * down meanwhile is the outage's, not the request's: it is sent again once the outage ends, its
   * retries unspent.
   */
  async #sendWithinBudget(
    request: HttpRequest,
    identity: RequestIdentity,
    tryNumber: number,
  ): Promise<HttpResponse> {
    let resent = 0;
    for (;;) {
      await this.#untilUp(request);
      try {
        return await this.#sendOnce(request, identity, tryNumber);
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
    tryNumber: number,
    probe = false,
  ): Promise<HttpResponse> {
    const lease = await this.#options.budget.acquire(identity, request.signal, probe);
    const started = performance.now();
    let outcome: number | string = "Error";
    let failureBody: string | undefined;
    let health: HealthSign = null;
    let problem = "";
    try {
      const raw = await sendRequest(this.#agent, this.#options, request, identity);
      outcome = raw.status;
      const heeded = await heedAnswer(this.#options.budget, lease, raw, Date.now(), {
        fallbackPauseMs: this.#options.defaultRateLimitWaitMs ?? 1000,
        maxPauseMs: this.#options.maxRateLimitWaitMs,
        mayProbe: () => this.#probeAsks.due(),
      });
      noteRate(heeded.note, this.#options);
      const response = readAnswer(request, identity, raw, {
        redact: this.#redact,
        maxRateLimitWaitMs: this.#options.maxRateLimitWaitMs,
        askedPauseMs: heeded.pauseMs,
      });
      health = "healthy";
      return { ...response, tries: tryNumber };
    } catch (error) {
      if (outcome === "Error") outcome = (error as Error).name;
      if (error instanceof FailureBodyError) failureBody = error.body;
      if (outcome === 401 && error instanceof AuthError) this.#credential.refuse(error);
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
        tryNumber,
        ...(failureBody === undefined ? {} : { failureBody }),
      };
      this.#options.onTry?.(event);
      request.onTry?.(event);
    }
  }
}

/** How many outages one request waits through, its failures then not counted as retries. */
const MAX_OUTAGE_RESENDS = 3;

/** Tells the metrics of a change, and the log of one larger than a step of probing. */
function noteRate(
  note: RateNote | null,
  { onRateChange, logger }: Pick<HttpClientOptions, "onRateChange" | "logger">,
): void {
  if (!note) return;
  const { change, message } = note;
  onRateChange?.(change);
  if (!beyondOneStep(change)) return;
  const fields = { requestsPerSecond: change.to, previous: change.from };
  if (change.to < change.from) logger.warn(fields, message);
  else logger.info(fields, message);
}
