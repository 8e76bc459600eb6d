import { type ConnectionOptions, type JobsOptions, Queue } from "bullmq";
import { withTimeout } from "../async/with-timeout.js";
import { displayUrl } from "../config/display-url.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import { errorMessage, UnreachableError } from "../errors.js";

export const QUEUE_NAME = "etl";

/**
 * Connection options, not an instance: BullMQ never closes a connection it was handed, which
 * would keep a command's process alive. Retries forever, as BullMQ's blocking commands need.
 */
export function bullConnection(redisUrl: string): ConnectionOptions {
  return { url: redisUrl, maxRetriesPerRequest: null };
}

/** Where BullMQ keeps the queue: under the app's Redis prefix. */
export function bullPrefix(config: EtlConfig): string {
  return `${config.redis_prefix}bull`;
}

/**
 * The queue. Connection errors while Redis is away go to `onError` (BullMQ would print them to
 * the console, past the logger and its redaction); commands see their own calls fail anyway.
 */
export function createEtlQueue(
  redisUrl: string,
  config: EtlConfig,
  onError: (error: Error) => void = () => undefined,
): Queue {
  const queue = new Queue(QUEUE_NAME, {
    connection: bullConnection(redisUrl),
    prefix: bullPrefix(config),
    defaultJobOptions: jobOptions(config),
  });
  queue.on("error", onError);
  return queue;
}

/** How long a command waits for Redis before it gives up with a clear message. */
export const QUEUE_CONNECT_MS = 5_000;

/** Whether Redis answered within QUEUE_CONNECT_MS; otherwise why not. */
export async function queueReady(
  queue: Queue,
): Promise<{ ready: true } | { ready: false; reason: string }> {
  try {
    await withTimeout(() => queue.waitUntilReady(), QUEUE_CONNECT_MS);
    return { ready: true };
  } catch (error) {
    return { ready: false, reason: errorMessage(error) };
  }
}

/**
 * The queue once Redis answers: a command that queues work says Redis is unreachable instead of
 * waiting forever (the connection retries for as long as BullMQ's blocking commands need).
 */
export async function openEtlQueue(redisUrl: string, config: EtlConfig): Promise<Queue> {
  const queue = createEtlQueue(redisUrl, config);
  const ready = await queueReady(queue);
  if (ready.ready) return queue;
  await closeEtlQueue(queue);
  throw new UnreachableError("Redis", "REDIS_URL", displayUrl(redisUrl), ready.reason);
}

/** How long a command waits for the queue's connection to close before it drops it. */
const QUEUE_CLOSE_MS = 1_000;

/**
 * Closes a command's queue: a Redis that stopped answering would keep a polite close (QUIT,
 * behind the pending commands) waiting for ever, and the command with it.
 */
export async function closeEtlQueue(queue: Queue): Promise<void> {
  await withTimeout(() => queue.close(), QUEUE_CLOSE_MS).catch(() => queue.disconnect());
}

/**
 * Retries with exponential backoff for what still fails after the client's own retries; a job
 * that failed for good stays visible for a month; completed ones are trimmed by count and age.
 */
export function jobOptions(config: EtlConfig): JobsOptions {
  return {
    attempts: config.job_attempts,
    backoff: { type: "exponential", delay: config.job_backoff_ms },
    removeOnComplete: { count: 5_000, age: 7 * 24 * 3600 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}
