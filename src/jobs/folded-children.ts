import type { Queue } from "bullmq";
import type { Redis } from "ioredis";

/**
 * BullMQ keeps, in a hash beside the parent job, one entry per child that completed (its return
 * value): for a run, one per partition done, about 100 bytes each, so a year of a 10× account
 * would hold hundreds of megabytes of Redis until the run ends. A run folds that hash into a
 * count on its own job hash as it goes: only the count of children done is read (`processed` of
 * getDependenciesCount), and nothing else reads the hash. Atomic, so a child completing meanwhile
 * is either in the hash or in the count. The hash is not BullMQ's public API: bullmq is pinned to
 * one version, and test/jobs/folded-children.test.ts fails on an upgrade that changes it.
 */
const FOLD = `
local n = redis.call('HLEN', KEYS[1])
if n > 0 then
  redis.call('DEL', KEYS[1])
  redis.call('HINCRBY', KEYS[2], 'etlFoldedChildren', n)
end
return n`;

const FOLDED_FIELD = "etlFoldedChildren";

/** The job's hash in Redis, and the hash of its completed children. */
function keys(queue: Queue, jobId: string): [processed: string, job: string] {
  const job = queue.toKey(jobId);
  return [`${job}:processed`, job];
}

/** Folds the run's completed children into its count; returns how many it folded. */
export async function foldCompletedChildren(
  redis: Redis,
  queue: Queue,
  jobId: string,
): Promise<number> {
  return Number(await redis.eval(FOLD, 2, ...keys(queue, jobId)));
}

/** Children of the run folded so far. */
export async function foldedChildren(queue: Queue, jobId: string): Promise<number> {
  const client = await queue.getBackend().client;
  return Number((await client.hget(keys(queue, jobId)[1], FOLDED_FIELD)) ?? 0);
}
