import type { Queue } from "bullmq";
import { withTimeout } from "../async/with-timeout.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import { restoreSchedulers } from "./schedulers.js";

/**
 * How often a running worker looks for its job schedulers: a Redis flushed without a restart
 * (no reconnection to notice) has its schedules back within this.
 */
export const SCHEDULER_CHECK_MS = 15_000;

export interface SchedulerWatch {
  /**
   * Stops looking; resolves once a look under way has ended, or after STOP_WAIT_MS: with Redis
   * away, a look waits for it, and a stopping worker must not.
   */
  stop(): Promise<void>;
}

const STOP_WAIT_MS = 1_000;

/**
 * Keeps the job schedulers of a running worker in Redis: every SCHEDULER_CHECK_MS, and as soon
 * as the queue's connection is ready again after Redis came back (restarted empty, it lost them),
 * restoreSchedulers re-creates those that are gone, and the worker logs it. Without this, the
 * schedules stopped until a worker restarted, while every probe said ready. A look that fails
 * (Redis away) is logged at debug and made again at the next.
 */
export function watchSchedulers(options: {
  readonly queue: Queue;
  readonly config: EtlConfig;
  readonly logger: Logger;
  readonly intervalMs?: number;
}): SchedulerWatch {
  const { queue, config, logger } = options;
  let looking: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const look = async (): Promise<void> => {
    try {
      const restored = await restoreSchedulers(queue, config);
      if (restored) {
        logger.warn(
          { reason: restored.reason, schedulers: restored.changes },
          `job schedulers were gone from Redis (${restored.reason}): re-created`,
        );
      }
    } catch (error) {
      logger.debug({ err: errorMessage(error) }, "could not look for the job schedulers");
    }
  };
  const check = () => {
    if (stopped) return;
    // One look at a time; a reason to look that comes during one makes one more after it.
    if (looking) {
      again = true;
      return;
    }
    looking = look().finally(() => {
      looking = null;
      if (again) {
        again = false;
        check();
      }
    });
  };
  const backend = queue.getBackend();
  backend.on("ready", check);
  const timer = setInterval(check, options.intervalMs ?? SCHEDULER_CHECK_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      backend.removeListener("ready", check);
      const current = looking;
      if (current) await withTimeout(() => current, STOP_WAIT_MS).catch(() => undefined);
    },
  };
}
