import { Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followRun, nextPollMs, type ProgressOutput } from "../../src/cli/follow-run.js";
import { bullConnection } from "../../src/jobs/etl-queue.js";
import type { RunJobData } from "../../src/jobs/job-types.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";

const prefix = uniquePrefix("follow_run");
let queue: Queue;

beforeAll(() => {
  queue = new Queue("etl", { connection: bullConnection(REDIS_URL), prefix });
});

afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(prefix);
});

const quiet: ProgressOutput = {
  line: () => undefined,
  progress: () => undefined,
  interactive: false,
};

describe("following a run", () => {
  // Far longer than the test may take: only the quicker polls of a run's end can return in time.
  const SLOW_POLL_MS = 600_000;

  it.each(["completed", "failed"] as const)(
    "sees the run job %s soon once every partition planned is done",
    async (end) => {
      // Every stream planned (there is none), and every planned partition (none) done.
      const data: Partial<RunJobData> = { kind: "backfill", streams: [], planned: 0 };
      const job = await queue.add("run", data);
      const polled = followRun(queue, job.id ?? "", quiet, SLOW_POLL_MS);
      const worker = new Worker(
        "etl",
        () =>
          end === "failed"
            ? Promise.reject(new Error("planning failed"))
            : Promise.resolve({ succeeded: 0, failed: 0 }),
        { connection: bullConnection(REDIS_URL), prefix, autorun: false },
      );
      try {
        // Once the first poll has seen the run unfinished, the worker ends it.
        await new Promise((resolve) => setTimeout(resolve, 500));
        void worker.run();
        expect(await polled).toBe(end === "completed");
      } finally {
        await worker.close();
      }
    },
    30_000,
  );
});

describe("the wait between looks at a run", () => {
  const POLL = 200;

  it("is the poll interval while partitions are still being planned, or none is done", () => {
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 900, total: null })).toBe(POLL);
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 0, total: 1_000 })).toBe(POLL);
  });

  it("shortens to when the last partitions should be done, at the pace so far", () => {
    // 1,000 done in 5 s: 200 per second, so the last 10 in 50 ms.
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 1_000, total: 1_010 })).toBe(50);
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 500, total: 1_000 })).toBe(POLL);
    // All done but the run still open (a worker that died as it ended): the usual pace.
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 1_000, total: 1_000 })).toBe(POLL);
    // Never busier than the end's own quick polls.
    expect(nextPollMs({ pollMs: POLL, elapsedMs: 5_000, done: 1_000, total: 1_001 })).toBe(20);
  });
});
