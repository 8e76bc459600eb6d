import type { Redis } from "ioredis";

/**
 * Rejects unless Redis answers PING. Give it a client with `enableOfflineQueue: false`: one that
 * queues commands while disconnected (BullMQ's) makes the probe wait for its timeout instead.
 */
export async function redisCheck(redis: Redis): Promise<void> {
  const reply = await redis.ping();
  if (reply !== "PONG") throw new Error(`unexpected PING reply ${JSON.stringify(reply)}`);
}
