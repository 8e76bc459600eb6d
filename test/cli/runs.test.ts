import { afterAll, describe, expect, it, vi } from "vitest";
import { etlIn } from "../helpers/cli.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";
import { endProcesses, type EtlProcess, spawnEtl, spawnWorker } from "../helpers/worker-process.js";
import { HANG_MS } from "../helpers/hang-limit.js";

const setting = processSetting("runs", { apiKey: "runs-key-1", today: "2026-01-31" });
const processes: EtlProcess[] = [];

afterAll(() => endProcesses(processes));

function env(): Record<string, string> {
  return setting.configure({
    start_date: "2026-01-01",
    requests_per_second: 1000,
    max_concurrency: 4,
    worker_concurrency: 2,
    job_lock_ms: 2_000,
    job_backoff_ms: 100,
    shutdown_grace_ms: 1_000,
    schedules: NO_SCHEDULES,
  });
}

const etl = etlIn(setting.dir.path, env);

/** The numbers of a run's table (stream → partitions, failed, requests, rows, rejected, warned). */
function tableNumbers(stdout: string): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  for (const line of stdout.split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length !== 8 || !/^\d+$/.test(cells[1] ?? "")) continue;
    rows.set(cells[0] ?? "", cells.slice(1, 7).map(Number));
  }
  return rows;
}

/** What the run's attempts add up to, per stream, from etl.attempts itself. */
async function attemptSums(runId: string): Promise<Map<string, number[]>> {
  const rows = await setting.warehouse.query<{
    stream: string;
    partitions: number;
    failed: number;
    requests: number;
    rows: number;
    rejected: number;
    warned: number;
  }>(
    `select stream, count(distinct partition)::int as partitions,
            count(*) filter (where last and status = 'failed')::int as failed,
            sum(requests)::int as requests, sum(rows_written)::int as rows,
            sum(rows_rejected)::int as rejected,
            count(*) filter (where last and status = 'succeeded' and warnings is not null)::int
              as warned
       from (select *, attempt_id = max(attempt_id) over (partition by stream, partition) as last
               from etl.attempts where run = $1) a
      group by stream`,
    [runId],
  );
  const sums = new Map(
    rows.map((r) => [r.stream, [r.partitions, r.failed, r.requests, r.rows, r.rejected, r.warned]]),
  );
  const total = [...sums.values()].reduce(
    (a, b) => a.map((n, i) => n + (b[i] ?? 0)),
    [0, 0, 0, 0, 0, 0],
  );
  return new Map([...sums, ["total", total]]);
}

describe("runs you can see and trace", () => {
  it("backfill --wait says within 30 s that no worker is running, naming the command", async () => {
    const wait = spawnEtl(
      [
        "backfill",
        "--from",
        "2026-01-03",
        "--to",
        "2026-01-03",
        "--only",
        "trend_totals",
        "--wait",
      ],
      { cwd: setting.dir.path, env: env() },
    );
    processes.push(wait);
    await vi.waitFor(
      () =>
        expect(wait.stdout()).toMatch(
          /no worker is running, so nothing takes this run: start one with `etl worker`/,
        ),
      { timeout: HANG_MS, interval: 200 },
    );
    wait.child.kill("SIGKILL");
    await wait.exited;
    await etl(["status"]).then((status) =>
      expect(status.stdout).toMatch(/^workers: none running, and \d+ jobs wait for one/m),
    );
  });

  it("records a sync as a run that `etl runs` lists and `runs show` adds up from its attempts", async () => {
    const sync = await etl([
      "sync",
      "--from",
      "2026-01-03",
      "--to",
      "2026-01-04",
      "--only",
      "trends",
    ]);
    expect(sync.code, sync.stderr).toBe(0);
    const runId = /^run (run-[0-9a-f-]+): `etl runs show/m.exec(sync.stdout)?.[1] ?? "";
    expect(runId).not.toBe("");
    const listed = await etl(["runs"]);
    expect(listed.stdout).toMatch(
      new RegExp(`^${runId}\\s+sync\\s+succeeded\\s+2026-01-03\\.\\.2026-01-04`, "m"),
    );
    const shown = await etl(["runs", "show", runId]);
    expect(shown.code).toBe(0);
    const sums = await attemptSums(runId);
    expect(tableNumbers(shown.stdout)).toEqual(sums);
    // The table the sync printed, but for its seconds.
    expect(tableNumbers(sync.stdout)).toEqual(sums);
    expect((await etl(["runs", "show", "run-none"])).code).toBe(1);
    // The first characters after "run-" name it, as `etl runs` lists it; a start that several
    // runs share is refused, naming them.
    const short = await etl(["runs", "show", runId.slice(4, 12)]);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(shown.stdout);
    const shared = await etl(["runs", "show", "run-"]);
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain(runId);
  });

  it("completes a backfill's record after its worker is killed mid-run, every attempt counted", async () => {
    // Slow answers: the run is still going when its first worker dies.
    setting.sandbox.setKnobs({ latencyMs: 150 });
    const first = await spawnWorker({ cwd: setting.dir.path, env: env() });
    processes.push(first);
    const queued = await etl([
      "backfill",
      "--from",
      "2026-01-05",
      "--to",
      "2026-01-10",
      "--only",
      "trend_items",
    ]);
    const runId = /(run-[0-9a-f-]+)/.exec(queued.stdout)?.[1] ?? "";
    expect(runId, queued.stdout).not.toBe("");
    const succeeded = async () =>
      (
        await setting.warehouse.query<{ n: number }>(
          "select count(*)::int as n from etl.attempts where run = $1 and status = 'succeeded'",
          [runId],
        )
      )[0]?.n ?? 0;
    await vi.waitFor(async () => expect(await succeeded()).toBeGreaterThanOrEqual(10), {
      timeout: HANG_MS,
      interval: 100,
    });
    first.child.kill("SIGKILL");
    await first.exited;
    setting.sandbox.setKnobs({ latencyMs: 0 });
    const second = await spawnWorker({ cwd: setting.dir.path, env: env() });
    processes.push(second);
    const metrics = await (await fetch(`${second.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/^etl_workers 1$/m);
    await vi.waitFor(
      async () => {
        const [run] = await setting.warehouse.query<{ status: string }>(
          "select status from etl.runs where run_id = $1",
          [runId],
        );
        expect(run?.status).toBe("succeeded");
      },
      { timeout: HANG_MS, interval: 250 },
    );
    const [record] = await setting.warehouse.query<{
      started: boolean;
      finished: boolean;
      kind: string;
    }>(
      `select kind, started_at is not null as started, finished_at is not null as finished
         from etl.runs where run_id = $1`,
      [runId],
    );
    expect(record).toEqual({ kind: "backfill", started: true, finished: true });
    const sums = await attemptSums(runId);
    // 6 days × 5 selection types × 2 sale types, each once, none failed.
    expect(sums.get("trend_items")?.slice(0, 2)).toEqual([60, 0]);
    const shown = await etl(["runs", "show", runId]);
    expect(tableNumbers(shown.stdout)).toEqual(sums);
    expect(shown.stdout).toMatch(
      /^run run-[0-9a-f-]+: backfill, succeeded; 2026-01-05\.\.2026-01-10; trend_items$/m,
    );
    const status = await etl(["status"]);
    expect(status.stdout).toMatch(/^workers: 1 running$/m);
  });
});
