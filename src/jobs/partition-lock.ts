import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

export interface PartitionLock {
  release(): Promise<void>;
}

/**
 * Holds (stream, partition) for one job at a time across every worker: two runs that queue the
 * same partition never process it at the same time. Renewed while held; a crashed holder's lock
 * expires after `ttlMs`.
 */
export async function lockPartition(
  redis: Redis,
  prefix: string,
  stream: string,
  partition: string,
  ttlMs: number,
): Promise<PartitionLock | null> {
  const key = `${prefix}lock:${createHash("sha256").update(`${stream}\n${partition}`).digest("hex").slice(0, 32)}`;
  const owner = randomUUID();
  if ((await redis.set(key, owner, "PX", ttlMs, "NX")) !== "OK") return null;
  const renewal = setInterval(
    () => {
      redis.eval(RENEW, 1, key, owner, ttlMs).catch(() => undefined);
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  renewal.unref();
  return {
    async release() {
      clearInterval(renewal);
      await redis.eval(RELEASE, 1, key, owner);
    },
  };
}
