import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A key prefix of this test file's own, so files run in parallel without sharing state. */
export function uniquePrefix(label: string): string {
  return `test:${label}:${randomBytes(4).toString("hex")}:`;
}

export async function keysWithPrefix(prefix: string, url = REDIS_URL): Promise<string[]> {
  const redis = new Redis(url);
  try {
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

/** Deletes everything under the prefix: tests leave nothing behind. */
export async function deleteKeysWithPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const keys = await keysWithPrefix(prefix, url);
  if (keys.length === 0) return;
  const redis = new Redis(url);
  try {
    await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
