import type { AppContext } from "../app-context.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { errorMessage } from "../errors.js";
import { AuthError, isUpstreamAnswer } from "../http/upstream-errors.js";
import type { Logger } from "../logging/logger.js";
import { type Gate, GateEvents, type GateListener, ProbeTimer } from "./gate.js";
import { credentialNotifications } from "../notify/credential-notifications.js";
import { getTerritoriesOperation } from "../streams/catalogue/territories.js";

export interface CredentialGateOptions {
  /** One request to the upstream: resolves if the credential is accepted, AuthError if not. */
  readonly check: () => Promise<void>;
  /**
   * How long to wait between two checks while the credential is refused. Until a first check
   * gets an answer, the waits start at a second and double up to this.
   */
  readonly recheckMs: number;
  readonly logger: Logger;
  /** Told of each refusal that closes the gate, and of each acceptance. */
  readonly onRefused?: (message: string) => void;
  readonly onAccepted?: () => void;
}

/** The first wait before checking again a credential that could not be checked yet. */
const FIRST_RECHECK_MS = 1_000;

/** What the worker knows of its credential. */
type Standing =
  | { readonly state: "unchecked"; readonly problem: string | null }
  | { readonly state: "accepted" }
  | { readonly state: "refused"; readonly message: string; readonly since: Date };

/**
 * Whether the upstream accepts the credential, as the worker last found out. The gate starts
 * closed: a worker takes no job, and is not ready, until a first check (`verify`) finds the
 * credential accepted, so a release with a refused key never looks ready to a rollout. A refusal,
 * found by that check or later by a job, closes it: the worker stops taking jobs (they stay
 * queued), its health check fails with the reason, and the credential is checked again with one
 * request every `recheckMs` until it is accepted (a key rotated, an account restored); then the
 * gate opens and work resumes by itself.
 */
export class CredentialGate implements Gate {
  readonly name = "credential";
  readonly #options: CredentialGateOptions;
  readonly #events: GateEvents;
  readonly #timer = new ProbeTimer(() => void this.#recheck());
  #standing: Standing = { state: "unchecked", problem: null };
  #closed = false;

  constructor(options: CredentialGateOptions) {
    this.#options = options;
    this.#events = new GateEvents(this.name, options.logger);
  }

  /**
   * Called when the gate opens (the first accepted check included: the worker starts taking jobs)
   * and when a refusal closes an open gate (the worker pauses).
   */
  on(event: "close" | "open", listener: GateListener): void {
    this.#events.on(event, listener);
  }

  /**
   * The first check, as the worker starts. Until it, or a later check, finds the credential
   * accepted, the gate stays closed; a check that gets no answer proves nothing either way, so
   * the credential is checked again every `recheckMs` whatever the first one found.
   */
  async verify(): Promise<void> {
    await this.#check();
  }

  /** Closes the gate on a refusal; further refusals while it is closed change nothing. */
  refuse(error: AuthError): void {
    if (this.#standing.state === "refused") return;
    this.#refuse(error);
    this.#schedule();
  }

  /** True once a check found the credential accepted, until a refusal. */
  get open(): boolean {
    return this.#standing.state === "accepted";
  }

  /** True while the upstream refuses the credential (for /metrics). */
  get refused(): boolean {
    return this.#standing.state === "refused";
  }

  /** For /readyz: rejects, with the reason, until the credential is known accepted. */
  health(): Promise<void> {
    const standing = this.#standing;
    if (standing.state === "accepted") return Promise.resolve();
    const every = `checked again every ${Math.round(this.#options.recheckMs / 1000)} s, ${this.#timer.checks} checks so far`;
    return Promise.reject(
      new Error(
        standing.state === "refused"
          ? `${standing.message} (since ${standing.since.toISOString()}; ${every})`
          : standing.problem === null
            ? "the credential has not been checked yet"
            : `the credential could not be checked: ${standing.problem} (${every})`,
      ),
    );
  }

  /** Stops checking (the worker is stopping). */
  close(): void {
    this.#closed = true;
    this.#timer.stop();
  }

  #refuse(error: AuthError): void {
    const wasOpen = this.#standing.state === "accepted";
    this.#standing = { state: "refused", message: error.message, since: new Date() };
    this.#options.logger.error(
      { err: error.message, recheckMs: this.#options.recheckMs },
      "the upstream refuses the credential: taking no jobs until it is accepted again",
    );
    this.#options.onRefused?.(error.message);
    // A gate that was never open has no worker taking jobs to pause.
    if (wasOpen) this.#events.notify("close");
  }

  #schedule(): void {
    const { recheckMs } = this.#options;
    // A worker that started while the upstream was away for a moment should not wait minutes.
    this.#timer.after(
      this.#standing.state === "unchecked"
        ? this.#timer.backoffMs(FIRST_RECHECK_MS, recheckMs)
        : recheckMs,
    );
  }

  async #recheck(): Promise<void> {
    this.#timer.probed();
    await this.#check();
  }

  async #check(): Promise<void> {
    try {
      await this.#options.check();
    } catch (error) {
      if (this.#closed) return;
      // Another answer than a 401 (a 404, a 500 after its retries) got past authentication.
      if (isUpstreamAnswer(error)) return this.#accept();
      if (error instanceof AuthError) {
        if (this.#standing.state !== "refused") this.#refuse(error);
      } else {
        // No answer at all proves nothing: what was known stays known until the next check.
        const problem = errorMessage(error);
        if (this.#standing.state === "unchecked") this.#standing = { state: "unchecked", problem };
        this.#options.logger.warn(
          { err: problem },
          "the credential could not be checked; trying again later",
        );
      }
      this.#schedule();
      return;
    }
    if (this.#closed) return;
    this.#accept();
  }

  #accept(): void {
    this.#options.logger.info(
      { checks: this.#timer.checks },
      this.#standing.state === "refused"
        ? "the upstream accepts the credential again: resuming"
        : "the upstream accepts the credential: taking jobs",
    );
    this.#standing = { state: "accepted" };
    this.#timer.reset();
    this.#options.onAccepted?.();
    this.#events.notify("open");
  }
}

/**
 * The gate of a worker that talks to the upstream through `context`: its check is one light
 * request, the territories look-up `etl check` makes; any answer but a 401 accepts the credential.
 */
export function credentialGateOf(
  context: Pick<AppContext, "http" | "api" | "logger" | "notifier" | "redis">,
  config: Pick<EtlConfig, "credential_recheck_ms" | "territory_keys" | "redis_prefix">,
): CredentialGate {
  return new CredentialGate({
    logger: context.logger,
    recheckMs: config.credential_recheck_ms,
    ...credentialNotifications(
      context.notifier,
      context.redis,
      config.redis_prefix,
      context.logger,
    ),
    check: async () => {
      context.http.forgetRefusal();
      await context.api.call(getTerritoriesOperation, { key: config.territory_keys[0] ?? "all" });
    },
  });
}
