import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { STREAMS } from "../../src/streams/registry.js";
import { planRequests, type StreamRequestPlan } from "../../src/streams/request-plan.js";
import { runCli } from "../helpers/cli.js";
import { startQueueHarness, type QueueHarness } from "../helpers/queue-harness.js";
import { REDIS_URL } from "../helpers/redis.js";
import { demoTracking, type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const TODAY = "2026-01-31";
const BACKFILL = { from: "2026-01-20", to: "2026-01-26" };
let harness: SyncHarness;
let queues: QueueHarness;
const dir = makeTempDir("request-plan");

/** Requests the sandbox has answered so far, whatever their outcome. */
const served = () => harness.upstream.sandbox.stats().requests;

const planDeps = () => ({ db: harness.warehouse.db, config: harness.config, today: TODAY });

const requestsBy = (plans: readonly StreamRequestPlan[]) =>
  plans.reduce((n, p) => n + p.requests, 0);

beforeAll(async () => {
  const tracking = await demoTracking(TODAY);
  // Four days synced first: the history the estimates of paged streams are made from.
  harness = await startSyncHarness("request_plan", {
    today: TODAY,
    etl: { ...tracking, start_date: "2026-01-27" },
  });
  queues = startQueueHarness(harness);
});

afterAll(async () => {
  await queues.close();
  await harness.close();
  dir.remove();
});

describe("the request plan", () => {
  let beforeFirstSync: StreamRequestPlan[];

  it("knows, before any run, the exact streams' requests and the least of the others", async () => {
    const before = served();
    beforeFirstSync = await planRequests(planDeps(), STREAMS, {});
    expect(served()).toBe(before);
    const byName = new Map(beforeFirstSync.map((p) => [p.stream, p]));
    // 4 days × 5 selection types, one unpaged request each.
    expect(byName.get("trend_totals")).toMatchObject({
      partitions: 20,
      requests: 20,
      basis: { kind: "exact" },
    });
    expect(byName.get("trend_items")?.basis).toEqual({ kind: "none" });
    // Planned from the tracked artists, which no run has written yet.
    expect(byName.get("artist_stats_urls")).toMatchObject({
      partitions: 0,
      unsyncedSources: ["artist_stats_artists"],
    });
  });

  it("estimates a backfill within 10 % of the requests it then makes, sending none itself", async () => {
    const first = await harness.sync();
    expect(first.flatMap((s) => s.failed)).toEqual([]);

    const before = served();
    const plans = await planRequests(planDeps(), STREAMS, BACKFILL);
    expect(served()).toBe(before);
    expect(plans.every((p) => p.unsyncedSources.length === 0)).toBe(true);
    expect(plans.filter((p) => p.basis.kind === "none").map((p) => p.stream)).toEqual([]);

    const queuedAt = new Date();
    const { runId } = await enqueueRun(queues.queue, {
      kind: "backfill",
      streams: STREAMS.map((s) => s.name),
      range: BACKFILL,
    });
    queues.startWorker();
    const progress = await queues.waitForRun(runId, 180_000);
    expect(progress).toMatchObject({ state: "completed", failed: 0 });
    const made = served() - before;

    const planned = requestsBy(plans);
    expect(Math.abs(planned - made) / made).toBeLessThanOrEqual(0.1);
    // The exact streams' counts are what the attempts of this backfill sent.
    const rows = await harness.warehouse.query<{ stream: string; requests: number }>(
      `select stream, sum(requests)::int as requests from etl.sync_runs
       where started_at >= $1 and stream = any($2) group by stream`,
      [queuedAt, plans.filter((p) => p.basis.kind === "exact").map((p) => p.stream)],
    );
    const exact = plans.filter((p) => p.basis.kind === "exact" && p.partitions > 0);
    expect(new Map(rows.map((r) => [r.stream, r.requests]))).toEqual(
      new Map(exact.map((p) => [p.stream, p.requests])),
    );
  });

  it("is printed by `etl plan` for every stream, with the time at the configured rate", async () => {
    dir.write("etl.config.json", { ...harness.config, requests_per_second: 2 });
    const before = served();
    const result = await runCli(["plan", "--from", BACKFILL.from, "--to", BACKFILL.to], {
      cwd: dir.path,
      env: { DATABASE_URL: harness.warehouse.url, REDIS_URL, LOG_LEVEL: "silent" },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(served()).toBe(before);
    const lines = result.stdout.split("\n");
    for (const stream of STREAMS) {
      expect(lines.some((line) => line.startsWith(`${stream.name} `))).toBe(true);
    }
    const total = /^total\s+\d+\s+(\d+)/m.exec(result.stdout);
    expect(Number(total?.[1])).toBeGreaterThan(0);
    expect(result.stdout).toContain(`${total?.[1]} requests at 2 req/s`);
  });
});
