import { Queue, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { followRun, nextPollMs, type ProgressOutput } from "../../src/cli/follow-run.js";
import { MovingRate } from "../../src/cli/moving-rate.js";
import { progressLine } from "../../src/cli/progress-line.js";
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

describe("following a run no worker takes", () => {
  it("says when the last worker went away, with what is left of the run", async () => {
    // A run due in an hour: no worker takes it meanwhile, so only the workers' count changes.
    const data: Partial<RunJobData> = { kind: "backfill", streams: ["trend_items"], planned: 5 };
    const job = await queue.add("run", data, { delay: 3_600_000 });
    const worker = new Worker("etl", () => Promise.resolve(), {
      connection: bullConnection(REDIS_URL),
      prefix,
    });
    const lines: string[] = [];
    const out: ProgressOutput = { ...quiet, line: (text) => lines.push(text) };
    const followed = followRun(queue, job.id ?? "", out);
    try {
      await worker.waitUntilReady();
      // Seen running first, then gone: it must be said within the look and its grace.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await worker.close();
      await vi.waitFor(
        () =>
          expect(lines.join("\n")).toMatch(
            /^the last worker went away with 5 partitions of this run left: start one with `etl worker`/m,
          ),
        { timeout: 30_000, interval: 200 },
      );
    } finally {
      await worker.close();
      await job.remove();
      expect(await followed).toBe(false);
    }
  }, 60_000);
});

describe("the wait between looks at a run", () => {
  const POLL = 200;

  it("is the poll interval while partitions are still being planned, or the pace is unknown", () => {
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 900, total: null })).toBe(POLL);
    expect(nextPollMs({ pollMs: POLL, rate: null, done: 0, total: 1_000 })).toBe(POLL);
    expect(nextPollMs({ pollMs: POLL, rate: 0, done: 0, total: 1_000 })).toBe(POLL);
  });

  it("shortens to when the last partitions should be done, at the recent pace", () => {
    // 200 per second: the last 10 in 50 ms.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_010 })).toBe(50);
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 500, total: 1_000 })).toBe(POLL);
    // All done but the run still open (a worker that died as it ended): the usual pace.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_000 })).toBe(POLL);
    // Never busier than the end's own quick polls.
    expect(nextPollMs({ pollMs: POLL, rate: 200, done: 1_000, total: 1_001 })).toBe(20);
  });
});

describe("the progress line", () => {
  it("gives a floor and no ETA while streams are still being counted", () => {
    const line = progressLine({
      done: 3,
      total: null,
      failed: 0,
      rate: 12,
      doing: "planning 2 of 5 streams",
    });
    expect(line).toBe(
      "[........................] 3/? partitions, 12.0/s, ETA -, planning 2 of 5 streams",
    );
  });

  it("gives no rate nor ETA before the pace is measured, then the ETA from the recent rate", () => {
    const snapshot = { done: 100, total: 400, failed: 2, doing: "5 streams planned" };
    expect(progressLine({ ...snapshot, rate: null })).toBe(
      "[######..................] 100/400 partitions, 2 failed, -/s, ETA -, 5 streams planned",
    );
    expect(progressLine({ ...snapshot, rate: 0.1 })).toContain("0.1/s, ETA 50:00,");
    expect(progressLine({ ...snapshot, rate: 0.05 })).toContain("ETA 1:40:00,");
  });
});

describe("the recent pace", () => {
  it("is unknown for the first seconds, then follows the last minute, not the start", () => {
    const rate = new MovingRate();
    // A quick start: 500 partitions in the first second.
    rate.add(0, 0);
    rate.add(1_000, 500);
    expect(rate.perSecond()).toBeNull();
    // Then 1 per second for two minutes.
    for (let s = 2; s <= 121; s++) rate.add(s * 1_000, 500 + (s - 1));
    expect(rate.perSecond()).toBeCloseTo(1, 1);
  });
});
