import { Redis } from "ioredis";
import { REDIS_URL } from "./scratch.js";

/** What Redis held at its peak while a run went on, above what it held before. */
export interface RedisPeak {
  /** used_memory at its peak minus before the run (MiB). */
  readonly memoryMiB: number;
  /** The most jobs the queue held to run at once: waiting, prioritized, delayed, active. */
  readonly jobs: number;
}

const EVERY_MS = 250;

function usedMemory(info: string): number {
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
}

/**
 * Samples Redis while a run goes on: its memory (the whole server's: the bench runs alone on
 * it) and the jobs of the queue under `redisPrefix`.
 */
export async function sampleRedis(redisPrefix: string): Promise<{ stop(): Promise<RedisPeak> }> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queue = `${redisPrefix}bull:etl:`;
  const before = usedMemory(await redis.info("memory"));
  let peak = before;
  let jobs = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const [info, counts] = await Promise.all([
        redis.info("memory"),
        redis
          .multi()
          .llen(`${queue}wait`)
          .zcard(`${queue}prioritized`)
          .zcard(`${queue}delayed`)
          .llen(`${queue}active`)
          .exec(),
      ]);
      peak = Math.max(peak, usedMemory(info));
      jobs = Math.max(
        jobs,
        (counts ?? []).reduce((n, [, count]) => n + Number(count), 0),
      );
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      await redis.quit();
      return { memoryMiB: (peak - before) / (1024 * 1024), jobs };
    },
  };
}
