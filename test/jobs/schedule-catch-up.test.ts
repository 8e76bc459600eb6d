import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catchUpLine } from "../../src/cli/catch-up-line.js";
import { startDateNote } from "../../src/cli/start-date-note.js";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { scheduleCatchUp } from "../../src/jobs/schedule-catch-up.js";
import { STREAMS } from "../../src/streams/registry.js";
import { addDays, daysBetween, utcToday } from "../../src/time/calendar.js";
import { streamSettings } from "../../src/runner/stream-settings.js";
import { recordStreamSettings } from "../../src/warehouse/recorded-settings.js";
import { planRequests } from "../../src/runner/plan/request-plan.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { etlIn } from "../helpers/cli.js";
import { REDIS_URL } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const TODAY = "2026-01-31";
const dir = makeTempDir("schedule-catch-up");
const etl = etlIn(dir.path, () => ({
  DATABASE_URL: harness.warehouse.url,
  REDIS_URL,
  LOG_LEVEL: "silent",
}));
let harness: SyncHarness;
let queues: QueueHarness;

beforeAll(async () => {
  harness = await startSyncHarness("schedule_catch_up", {
    today: TODAY,
    etl: {
      // A year back, never synced: every scheduled trends run would carry it.
      start_date: "2025-02-01",
      schedules: { catalogue: null, artist_stats: null, royalties: null },
      // One partition at a time: the order jobs are taken in is the order attempts start in.
      worker_concurrency: 1,
      plan_window: 20,
    },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
  dir.remove();
});

describe("a range before start_date", () => {
  it("is warned about by plan, naming the days nothing else goes back to", async () => {
    dir.write("etl.config.json", harness.config);
    const result = await etl(["plan", "--only", "trend_totals", "--from", "2025-01-30"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "warning: --from 2025-01-30 is before start_date 2025-02-01: 2025-01-30..2025-01-31 is fetched this once, but the schedules, `etl status` and `etl retry-failed` go back to start_date only",
    );
    expect(startDateNote(harness.config, { from: "2025-02-01" })).toBeNull();
    expect(startDateNote(harness.config, { from: "2025-01-01", to: "2025-01-10" })).toMatch(
      /: 2025-01-01\.\.2025-01-10 is fetched this once/,
    );
  });
});

describe("a schedule's runs with start_date a year back", () => {
  it("count the days before their lookback that never synced, as a backfill of them plans them", async () => {
    const deps = { db: harness.warehouse.db, config: harness.config, today: TODAY };
    const catchUp = await scheduleCatchUp(deps.db, deps.config, TODAY);
    const trends = STREAMS.filter((s) => s.family === "trends" && s.daily === true);
    const backfill = await planRequests(deps, trends, { from: "2025-02-01", to: "2026-01-23" });
    expect(catchUp).toMatchObject({
      streams: trends.map((s) => s.name),
      partitions: backfill.streams.reduce((n, s) => n + s.partitions, 0),
      from: "2025-02-01",
      to: "2026-01-23",
    });
    expect(catchUp?.partitions).toBeGreaterThan(1_000);
    expect(catchUp && catchUpLine(catchUp, harness.config)).toMatch(
      /^\d+ partitions of 3 daily streams never synced on days 2025-02-01\.\.2026-01-23, before the schedules' lookback: the schedules leave them to a backfill; `etl backfill --from 2025-02-01 --to 2026-01-23` fetches them \(\d+ requests or more, at least .* at 1000 req\/s\)/,
    );
  });

  it("stay sync-sized, leaving the older days to a backfill the operator queues, which never waits", async () => {
    const schedule = await enqueueRun(queues.queue, {
      kind: "schedule",
      streams: ["trend_totals"],
      range: {},
    });
    const backfill = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: ["trend_totals"],
      range: { from: "2026-01-15", to: "2026-01-17" },
    });
    // A worker's runs take the real day as theirs (the harness's today is the sandbox's).
    const today = utcToday();
    const worker = queues.startWorker();
    const scheduled = await queues.waitForRun(schedule.runId);
    const backfilled = await queues.waitForRun(backfill.runId);
    await worker.stop(1_000);
    // The lookback's 7 days of 5 selection types; not one of the days before them.
    expect(scheduled).toMatchObject({ planned: 35, succeeded: 35, failed: 0 });
    expect(backfilled).toMatchObject({ planned: 15, succeeded: 15, failed: 0 });
    const days = await harness.warehouse.query<{ run: string; first: string; n: number }>(
      `select run, min(split_part(partition, '|', 1)) as first, count(*)::int as n
         from etl.attempts group by run`,
    );
    expect(days).toContainEqual({ run: schedule.runId, first: addDays(today, -7), n: 35 });

    // What is left, `etl status` counts and names the backfill for.
    await recordStreamSettings(harness.warehouse.db, streamSettings(harness.config, STREAMS));
    const status = await etl(["status"]);
    // trend_totals: every day to yesterday less the lookback's 7 and the backfill's 3; the
    // other daily streams (two of trends, three of artist statistics) never synced a day.
    const yesterday = addDays(today, -1);
    const every = daysBetween("2025-02-01", yesterday).length;
    expect(status.stdout).toContain(
      `${6 * every - 10} days never synced in 6 daily streams (missing days), 2025-02-01..${yesterday}: the schedules sync only their lookback; \`etl backfill --from 2025-02-01 --to ${yesterday}\` fills them`,
    );
  });
});
