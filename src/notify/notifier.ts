import { createHmac } from "node:crypto";
import type { Redis } from "ioredis";
import pRetry from "p-retry";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import { type Redact, secretRedactor } from "../logging/redact-secrets.js";
import {
  jsonPayload,
  type Notification,
  type NotificationEvent,
  notificationId,
  slackPayload,
} from "./notification.js";

/** Where notifications go, as the configuration's `notifications` gives it (the secret read). */
export interface NotificationTarget {
  readonly url: string;
  /** The events it wants; null: every one. */
  readonly events: readonly NotificationEvent[] | null;
  readonly format: "json" | "slack";
  /** Signs each body (X-Music-Etl-Signature: sha256=<HMAC-SHA256 of the body, hex>); null: unsigned. */
  readonly secret: string | null;
}

export interface NotifierOptions {
  readonly targets: readonly NotificationTarget[];
  /** Where the processes agree on what was sent: each notification goes out once. */
  readonly redis: Redis;
  readonly keyPrefix: string;
  readonly logger: Logger;
  /** Never sent, whatever an event carries: the API key, passwords of the URLs. */
  readonly secrets: readonly string[];
  /** Tries after the first, with a doubling wait from `retryBaseMs`. */
  readonly retries?: number;
  readonly retryBaseMs?: number;
  readonly timeoutMs?: number;
}

/** How long the processes remember a notification sent: longer than any event lasts unresolved. */
const SENT_KEPT_MS = 7 * 86_400_000;

/** What a target said of a test notification. */
export interface TargetCheck {
  readonly target: string;
  readonly problem: string | null;
}

/**
 * Sends notifications to the configured webhooks, each once for all processes sharing Redis (the
 * first to claim its id sends it), in the background: a target that is slow or down never slows
 * the pipeline; it is retried with a doubling wait, then given up with a warning in the log.
 */
export class Notifier {
  readonly #options: NotifierOptions;
  readonly #redact: Redact;
  readonly #pending = new Set<Promise<void>>();

  constructor(options: NotifierOptions) {
    this.#options = options;
    this.#redact = secretRedactor(options.secrets);
  }

  /** Whether a target wants `event`: what it takes to find one out may be spared otherwise. */
  wants(event: NotificationEvent): boolean {
    return this.#targetsOf(event).length > 0;
  }

  /** Sends `notification` to the targets that want it, unless another process did. */
  notify(notification: Notification): void {
    const targets = this.#targetsOf(notification.event);
    if (targets.length === 0) return;
    const sending = this.#claim(notification)
      .then((claimed) =>
        claimed ? Promise.all(targets.map((t) => this.#deliver(t, notification))) : undefined,
      )
      .then(() => undefined);
    this.#pending.add(sending);
    void sending.finally(() => this.#pending.delete(sending));
  }

  #targetsOf(event: NotificationEvent): NotificationTarget[] {
    return this.#options.targets.filter((t) => t.events === null || t.events.includes(event));
  }

  /** A test notification to every target, one try each, awaited: what `etl check --notify` says. */
  async test(notification: Notification): Promise<TargetCheck[]> {
    return Promise.all(
      this.#options.targets.map(async (target) => {
        try {
          await this.#post(target, notification);
          return { target: targetName(target.url), problem: null };
        } catch (error) {
          return { target: targetName(target.url), problem: this.#redact(errorMessage(error)) };
        }
      }),
    );
  }

  /** Waits for what is being sent, up to `timeoutMs`: a stopping process gives them that long. */
  async flush(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#pending]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * True for the one process that claims the notification first. Without Redis, every process
   * that finds it sends it: told twice rather than not at all.
   */
  async #claim(notification: Notification): Promise<boolean> {
    const key = `${this.#options.keyPrefix}notified:${notificationId(notification)}`;
    try {
      return (await this.#options.redis.set(key, "1", "PX", SENT_KEPT_MS, "NX")) === "OK";
    } catch (error) {
      this.#options.logger.warn(
        { err: errorMessage(error), event: notification.event },
        "could not tell the other workers of a notification; sending it anyway",
      );
      return true;
    }
  }

  async #deliver(target: NotificationTarget, notification: Notification): Promise<void> {
    const { logger, retries = 5, retryBaseMs = 1_000 } = this.#options;
    try {
      await pRetry(() => this.#post(target, notification), {
        retries,
        minTimeout: retryBaseMs,
        factor: 2,
        randomize: true,
      });
    } catch (error) {
      logger.warn(
        {
          target: targetName(target.url),
          event: notification.event,
          err: this.#redact(errorMessage(error)),
        },
        "could not deliver a notification; gave up",
      );
    }
  }

  async #post(target: NotificationTarget, notification: Notification): Promise<void> {
    const payload =
      target.format === "slack" ? slackPayload(notification) : jsonPayload(notification);
    const body = this.#redact(JSON.stringify(payload));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "music-etl",
      "x-music-etl-event": notification.event,
      "x-music-etl-delivery": notificationId(notification),
    };
    if (target.secret !== null) {
      headers["x-music-etl-signature"] =
        `sha256=${createHmac("sha256", target.secret).update(body).digest("hex")}`;
    }
    const response = await fetch(target.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  }
}

/** A target as logs and `etl check` name it: its origin only (a webhook's path is its secret). */
export function targetName(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}
