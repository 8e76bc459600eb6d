import { Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followRun, type ProgressOutput } from "../../src/cli/follow-run.js";
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
