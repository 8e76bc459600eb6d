import { hostname } from "node:os";
import { join } from "node:path";
import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { etlEnv, imageNodeOptions } from "../helpers/cli.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import {
  endProcesses,
  type EtlProcess,
  spawnEtl,
  spawnWorker,
  type WorkerProcess,
} from "../helpers/worker-process.js";
import { until } from "../helpers/until.js";

const MIB = 1024 * 1024;
const prefix = uniquePrefix("stalled");
const dir = makeTempDir("stalled");
const fileConfig = {
  start_date: "2026-01-01",
  requests_per_second: 1000,
  worker_concurrency: 1,
  job_lock_ms: 2_000,
  job_backoff_ms: 200,
  // Let the answer through: more than the workers' heap holds, it kills every worker reading it.
  max_response_bytes: 64 * MIB,
  request_timeout_ms: 120_000,
  redis_prefix: prefix,
  schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
};
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let queue: Queue;
const processes: EtlProcess[] = [];

/** The environment of the processes, with the config file `config` of the test's folder. */
function env(config = "etl.config.json"): Record<string, string> {
  return etlEnv(sandbox, warehouse.url, join(dir.path, config), {
    // Half the image's heap: an answer of 48 MiB needs about 2.3 times its size above what the
    // worker holds anyway (docs/benchmarks.md), so it kills a worker with either, but whatever
    // lowers that figure further must not make the worker survive it.
    NODE_OPTIONS: `${imageNodeOptions()} --max-old-space-size=64`,
  });
}

async function worker(config?: string): Promise<WorkerProcess> {
  const started = await spawnWorker({ cwd: dir.path, env: env(config) });
  processes.push(started);
  return started;
}

/** `etl backfill --wait` of the incomes (a whole list: the day only names the run). */
function backfill(day: string, config?: string): EtlProcess {
  const started = spawnEtl(
    ["backfill", "--from", day, "--to", day, "--only", "incomes", "--wait"],
    { cwd: dir.path, env: env(config) },
  );
  processes.push(started);
  return started;
}

/** Whether a process ended as V8 ends one whose heap is full: an abort, after saying so. */
function diedOfMemory(process: EtlProcess): boolean {
  return (
    process.child.signalCode === "SIGABRT" &&
    process.logs.some((line) => line.includes("heap out of memory"))
  );
}

const incomesRequests = () => sandbox.stats().byOperation["royalties.listIncomes"] ?? 0;

beforeAll(async () => {
  // One answer of about 48 MiB: what the issue saw kill one worker after another.
  sandbox = await startSandbox({
    apiKey: "stalled-key-0123456789",
    today: "2026-01-31",
    size: { incomes: 300_000 },
  });
  warehouse = await createTestWarehouse("stalled");
  dir.write("etl.config.json", fileConfig);
  queue = createEtlQueue(REDIS_URL, etlConfigSchema.parse(fileConfig));
});

afterAll(async () => {
  await endProcesses(processes);
  await queue.close();
  await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

describe("a partition job with a large answer", () => {
  it("that crashes its workers is failed after its second crash, not handed to a third worker, and recorded as failed", async () => {
    const first = await worker();
    const run = backfill("2026-01-30");
    await first.exited;
    expect(diedOfMemory(first), first.logs.slice(-5).join("\n")).toBe(true);
    expect(incomesRequests()).toBe(1);

    // Found stalled, the job is handed to the next worker, which dies of it too.
    const second = await worker();
    await second.exited;
    expect(diedOfMemory(second), second.logs.slice(-5).join("\n")).toBe(true);
    expect(incomesRequests()).toBe(2);

    // The third fails it without running it, and lives.
    const third = await worker();
    expect(await run.exited, run.stdout()).toBe(1);
    expect(run.stdout()).toContain("1 partitions failed for good");
    expect(incomesRequests()).toBe(2);
    const jobs = await queue.getFailed();
    expect(jobs.map((job) => [job.name, job.failedReason, job.stalledCounter])).toEqual([
      ["partition", "job stalled more than allowable limit", 2],
    ]);

    // Recorded like any partition that failed with no attempt left: retry-failed retries it.
    const message =
      "its job stalled 2 times (each time the worker running it died or stopped answering, as a process out of memory does) and was failed without another attempt";
    await until(
      async () =>
        (
          await warehouse.query(
            "select 1 from etl.stream_state where stream = 'incomes' and last_status = 'failed'",
          )
        ).length === 1,
      120_000,
    );
    expect(
      await warehouse.query(
        "select last_error, retry_job_id from etl.stream_state where stream = 'incomes'",
      ),
    ).toEqual([{ last_error: message, retry_job_id: null }]);
    // The attempts the dead workers left running are closed: the first by the second worker as
    // it took the partition, the second by the third.
    const attempts = await warehouse.query<{ status: string; error: string; closed_by: string }>(
      "select status, error, closed_by from etl.attempts where stream = 'incomes' order by attempt_id",
    );
    const runner = (p: EtlProcess) => `${hostname()} pid ${p.child.pid}`;
    expect(attempts).toEqual([
      {
        status: "abandoned",
        error: expect.stringMatching(/^its process stopped before the attempt ended/),
        closed_by: runner(second),
      },
      { status: "abandoned", error: message, closed_by: runner(third) },
    ]);
    expect(third.logs.some((line) => line.includes(message))).toBe(true);
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);
  });

  it("refused by max_response_bytes fails at its first attempt, the answer asked for once", async () => {
    const { max_response_bytes: _raised, ...defaults } = fileConfig;
    dir.write("default-limit.json", defaults);
    const before = incomesRequests();
    const one = await worker("default-limit.json");
    const run = backfill("2026-01-29", "default-limit.json");
    expect(await run.exited, run.stdout()).toBe(1);
    expect(run.stdout()).toContain("1 partitions failed for good");
    expect(incomesRequests() - before).toBe(1);
    const refusal = "HTTP 200 answer larger than max_response_bytes (16777216 bytes, 16 MiB)";
    const failed = (await queue.getFailed()).filter((job) => job.failedReason.includes(refusal));
    expect(failed.map((job) => [job.name, job.attemptsMade])).toEqual([["partition", 1]]);
    // Failed for good at once: no attempt of its job is left to try again.
    const [state] = await warehouse.query<{ last_error: string; retry_job_id: string | null }>(
      "select last_error, retry_job_id from etl.stream_state where stream = 'incomes'",
    );
    expect(state?.last_error).toContain(refusal);
    await until(
      async () =>
        (
          await warehouse.query(
            "select 1 from etl.stream_state where stream = 'incomes' and retry_job_id is null",
          )
        ).length === 1,
      120_000,
    );
    one.child.kill("SIGTERM");
    expect(await one.exited).toBe(0);
  });
});
