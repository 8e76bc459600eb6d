import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import type { Notifier } from "../notify/notifier.js";
import type { Warehouse } from "../warehouse/database.js";
import { streamFreshness } from "../warehouse/recorded-settings.js";

/** How often a worker looks for streams gone stale: the alert rule's own evaluation is coarser. */
export const STALE_WATCH_MS = 300_000;

/**
 * Tells of each stream that went stale by the rule `etl status` and the alert share
 * (analytics.stream_freshness): once per stream and last success, whatever the number of workers.
 * Looks only when a target wants stream_stale.
 */
export function watchStaleStreams(options: {
  readonly db: Warehouse;
  readonly notifier: Notifier;
  readonly logger: Logger;
  readonly everyMs?: number;
}): { stop(): void } {
  const { db, notifier, logger } = options;
  const look = async () => {
    try {
      for (const stream of await streamFreshness(db)) {
        if (!stream.stale) continue;
        const last = stream.lastSuccessAt?.toISOString() ?? "never";
        notifier.notify({
          event: "stream_stale",
          key: `${stream.stream}:${last}`,
          at: new Date(),
          summary: `${stream.stream} is stale: its last success (${last}) is older than twice its schedule's longest gap`,
          streams: [stream.stream],
          command: "npx etl status",
          details: { lastSuccessAt: last, schedule: stream.schedule },
        });
      }
    } catch (error) {
      logger.debug({ err: errorMessage(error) }, "could not look for stale streams");
    }
  };
  if (!notifier.wants("stream_stale")) return { stop: () => undefined };
  void look();
  const timer = setInterval(() => void look(), options.everyMs ?? STALE_WATCH_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
