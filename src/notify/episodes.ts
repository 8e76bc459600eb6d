import type { Redis } from "ioredis";

/**
 * When a condition every worker finds on its own (the credential refused) began, as the first of
 * them recorded it in Redis: the same in every worker, so that their notifications of it share a
 * key and only one is sent. Ended by `endEpisode`, when it no longer holds.
 */
export async function episodeStart(redis: Redis, prefix: string, name: string): Promise<string> {
  const key = `${prefix}episode:${name}`;
  await redis.set(key, new Date().toISOString(), "NX");
  return (await redis.get(key)) ?? new Date().toISOString();
}

export async function endEpisode(redis: Redis, prefix: string, name: string): Promise<void> {
  await redis.del(`${prefix}episode:${name}`);
}
