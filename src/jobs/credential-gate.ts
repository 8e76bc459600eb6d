import type { AppContext } from "../app-context.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { AuthError } from "../errors.js";
import type { Logger } from "../logging/logger.js";

export interface CredentialGateOptions {
  /** One request to the upstream: resolves if the credential is accepted, AuthError if not. */
  readonly check: () => Promise<void>;
  /** How long to wait between two checks while the credential is refused. */
  readonly recheckMs: number;
  readonly logger: Logger;
}

type Listener = () => unknown;

/**
 * Whether the upstream accepts the credential, as the worker last found out. A refusal closes
 * the gate: the worker stops taking jobs (they stay queued), its health check fails with the
 * reason, and the credential is checked again with one request every `recheckMs` until it is
 * accepted (a key rotated, an account restored); then the gate opens and work resumes by itself.
 */
export class CredentialGate {
  readonly #options: CredentialGateOptions;
  readonly #onClose: Listener[] = [];
  readonly #onOpen: Listener[] = [];
  #refusal: { readonly message: string; readonly since: Date } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #checks = 0;

  constructor(options: CredentialGateOptions) {
    this.#options = options;
  }

  /** Called when a refusal closes the gate (the worker pauses) and when it opens again. */
  on(event: "close" | "open", listener: Listener): void {
    (event === "close" ? this.#onClose : this.#onOpen).push(listener);
  }

  /** Closes the gate on a refusal; further refusals while it is closed change nothing. */
  refuse(error: AuthError): void {
    if (this.#refusal) return;
    this.#refusal = { message: error.message, since: new Date() };
    this.#options.logger.error(
      { err: error.message, recheckMs: this.#options.recheckMs },
      "the upstream refuses the credential: taking no jobs until it is accepted again",
    );
    this.#notify(this.#onClose);
    this.#schedule();
  }

  /** True while the gate is closed (for /metrics). */
  get refused(): boolean {
    return this.#refusal !== null;
  }

  /** For /readyz: rejects, with the reason and since when, while the credential is refused. */
  health(): Promise<void> {
    const refusal = this.#refusal;
    if (!refusal) return Promise.resolve();
    return Promise.reject(
      new Error(
        `${refusal.message} (since ${refusal.since.toISOString()}; checked again every ${Math.round(this.#options.recheckMs / 1000)} s, ${this.#checks} checks so far)`,
      ),
    );
  }

  /** Stops checking (the worker is stopping). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #notify(listeners: readonly Listener[]): void {
    for (const listener of listeners) {
      Promise.resolve()
        .then(listener)
        .catch((error: unknown) =>
          this.#options.logger.error(
            { err: error instanceof Error ? error.message : String(error) },
            "a credential gate listener failed",
          ),
        );
    }
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#recheck(), this.#options.recheckMs);
    this.#timer.unref();
  }

  async #recheck(): Promise<void> {
    this.#timer = null;
    this.#checks += 1;
    try {
      await this.#options.check();
    } catch (error) {
      // Refused again, or no answer at all (which proves nothing): wait for the next check.
      if (!(error instanceof AuthError)) {
        this.#options.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "the credential could not be checked; trying again later",
        );
      }
      this.#schedule();
      return;
    }
    this.#options.logger.info(
      { checks: this.#checks },
      "the upstream accepts the credential again: resuming",
    );
    this.#refusal = null;
    this.#checks = 0;
    this.#notify(this.#onOpen);
  }
}

/**
 * The gate of a worker that talks to the upstream through `context`: its check is one light
 * request, the territories look-up `etl check` makes; any answer but a 401 accepts the credential.
 */
export function credentialGateOf(
  context: Pick<AppContext, "http" | "api" | "logger">,
  config: Pick<EtlConfig, "credential_recheck_ms" | "territory_keys">,
): CredentialGate {
  return new CredentialGate({
    logger: context.logger,
    recheckMs: config.credential_recheck_ms,
    check: async () => {
      context.http.forgetRefusal();
      await context.api.catalogue.getTerritories({ key: config.territory_keys[0] ?? "all" });
    },
  });
}
