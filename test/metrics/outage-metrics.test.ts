import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { etlEnv } from "../helpers/cli.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { readRunProgress } from "../../src/jobs/run-progress.js";
import {
  createDatabaseOn,
  type PrivatePostgres,
  privatePostgres,
} from "../helpers/private-postgres.js";
import { type PrivateRedis, privateRedis } from "../helpers/private-redis.js";
import { makeTempDir, type TempDir } from "../helpers/temp-dir.js";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import {
  endProcesses,
  type EtlProcess,
  operatorUrlOf,
  spawnEtl,
} from "../helpers/worker-process.js";
import { HANG_MS } from "../helpers/hang-limit.js";

// A worker's /metrics through outages of its Postgres and its Redis, both private servers that this
// test stops and starts again: the stream states and the queue counts keep the values last read,
// etl_metrics_source_stale says they are kept, and etl_dependency_up says which dependency is away
// and since when. A worker started while Postgres is away has no stream state to keep.

const TODAY = "2026-01-31";
/** The dependency gate probes an open gate every 15 s: it sees an outage within that. */
const NOTICED_WITHIN_MS = 45_000;

/** The figures a failing read must keep: every series of the queue counts and the stream states. */
function figures(text: string): string[] {
  return text.split("\n").filter((line) => /^etl_(queue_jobs|stream_\w+)\{/.test(line));
}

/** The value of the one series `series` (name and labels, as exported), or undefined. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const up = (dependency: string) => `etl_dependency_up{dependency="${dependency}"}`;
const since = (dependency: string) =>
  `etl_dependency_last_change_timestamp_seconds{dependency="${dependency}"}`;
const stale = (source: string) => `etl_metrics_source_stale{source="${source}"}`;

describe("a worker's /metrics while its Postgres or its Redis is away", () => {
  let upstream: Upstream;
  let postgres: PrivatePostgres;
  let redis: PrivateRedis;
  let dir: TempDir;
  let worker: EtlProcess | undefined;

  beforeAll(async () => {
    upstream = await startUpstream("outage_metrics", { sandbox: { today: TODAY } });
    // Not started yet: the worker starts without it.
    postgres = await privatePostgres();
    redis = await privateRedis({ persistent: true });
    await redis.start();
    dir = makeTempDir("outage-metrics");
  });

  afterAll(async () => {
    if (worker) await endProcesses([worker]);
    await redis?.remove();
    postgres?.remove();
    await upstream?.close();
    dir?.remove();
  });

  it("keeps the last stream and queue figures, marked stale, and says which is away since when", async () => {
    const raw = {
      start_date: "2026-01-01",
      requests_per_second: 1000,
      max_concurrency: 8,
      redis_prefix: upstream.prefix,
      schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
      shutdown_grace_ms: 1_000,
    };
    const config = etlConfigSchema.parse(raw);
    const started = spawnEtl(["worker"], {
      cwd: dir.path,
      env: etlEnv(
        upstream.sandbox,
        `${postgres.url}/outage_metrics`,
        dir.write("etl.config.json", raw),
        { REDIS_URL: redis.url },
      ),
    });
    worker = started;
    const operator = await operatorUrlOf(started);
    const scrape = async () => {
      const response = await fetch(`${operator}/metrics`);
      expect(response.status).toBe(200);
      return response.text();
    };
    /**
     * The next scrape in which every `series` has its value; `probed`: each scrape after a
     * /readyz, as an orchestrator's readiness probe asks it, which has the worker probe its
     * dependencies then rather than at its next periodic probe.
     */
    const scrapeUntil = (expected: Record<string, number>, probed = false) =>
      vi.waitFor(
        async () => {
          if (probed) await (await fetch(`${operator}/readyz`)).text();
          const text = await scrape();
          const found = Object.fromEntries(Object.keys(expected).map((s) => [s, valueOf(text, s)]));
          expect(found).toEqual(expected);
          return text;
        },
        { timeout: NOTICED_WITHIN_MS, interval: 250 },
      );

    // Started while Postgres is away: nothing read from it, so nothing to keep.
    const atStart = await scrapeUntil({ [up("postgres")]: 0, [up("redis")]: 1 });
    expect(atStart).not.toMatch(/^etl_stream_\w+\{/m);
    expect(valueOf(atStart, stale("streams"))).toBe(1);
    expect(valueOf(atStart, stale("queue"))).toBe(0);
    expect(valueOf(atStart, 'etl_queue_jobs{state="waiting"}')).toBe(0);

    // Postgres comes: the worker starts, and runs two days of a stream through the queue. (Its
    // probe selects from the database of DATABASE_URL, which it creates only once both answer.)
    // A /readyz then has it look at once, not at the next of its rechecks (1, 2, 4, 8 s apart).
    postgres.start();
    await createDatabaseOn(postgres.url, "outage_metrics");
    await vi.waitFor(
      async () => {
        await (await fetch(`${operator}/readyz`)).text();
        expect(started.logs.some((l) => l.includes("worker started"))).toBe(true);
      },
      { timeout: HANG_MS, interval: 200 },
    );
    const queue = createEtlQueue(redis.url, config);
    try {
      const { runId } = await enqueueRun(queue, {
        kind: "backfill",
        streams: ["trend_totals"],
        range: { from: "2026-01-03", to: "2026-01-04" },
      });
      await vi.waitFor(
        async () => expect((await readRunProgress(queue, runId))?.finished).toBe(true),
        { timeout: HANG_MS, interval: 200 },
      );
    } finally {
      await queue.close();
    }
    const healthy = await scrapeUntil({
      [up("postgres")]: 1,
      [up("redis")]: 1,
      [stale("streams")]: 0,
      [stale("queue")]: 0,
    });
    const read = figures(healthy);
    expect(
      valueOf(
        healthy,
        'etl_stream_last_day_timestamp_seconds{stream="trend_totals",family="trends"}',
      ),
    ).toBe(Date.parse("2026-01-04T00:00:00Z") / 1000);
    expect(
      valueOf(healthy, 'etl_stream_failed_partitions{stream="trend_totals",family="trends"}'),
    ).toBe(0);
    expect(valueOf(healthy, 'etl_queue_jobs{state="completed"}')).toBeGreaterThan(0);

    // Each away in turn: what is read from it stays as last read, the other is read as before.
    // Redis comes back with its append-only file, so with the queue it had.
    interface Outage {
      readonly away: string;
      readonly other: string;
      /** The source read from it, kept meanwhile; and the one read from the other. */
      readonly kept: string;
      readonly fresh: string;
      /**
       * Whether the scrapes come with readiness probes. Postgres's outage is left to the
       * worker's periodic probe, so that an idle worker must notice it by itself; Redis's is
       * noticed at a /readyz, 15 s sooner.
       */
      readonly probed: boolean;
      stop(): Promise<void> | void;
      start(): Promise<void> | void;
    }
    const outages: Outage[] = [
      {
        away: "postgres",
        other: "redis",
        kept: "streams",
        fresh: "queue",
        probed: false,
        stop: () => postgres.stop(),
        start: () => postgres.start(),
      },
      {
        away: "redis",
        other: "postgres",
        kept: "queue",
        fresh: "streams",
        probed: true,
        stop: () => redis.kill(),
        start: () => redis.start(),
      },
    ];
    for (const { away, other, kept, fresh, probed, stop, start } of outages) {
      const stopped = Math.floor(Date.now() / 1000);
      await stop();
      const during = await scrapeUntil(
        { [up(away)]: 0, [up(other)]: 1, [stale(kept)]: 1, [stale(fresh)]: 0 },
        probed,
      );
      expect(figures(during)).toEqual(read);
      expect(valueOf(during, since(away))).toBeGreaterThanOrEqual(stopped);
      expect(valueOf(during, since(away))).toBeLessThanOrEqual(Date.now() / 1000);

      await start();
      const after = await scrapeUntil({ [up(away)]: 1, [stale(kept)]: 0 });
      expect(figures(after)).toEqual(read);
    }

    started.child.kill("SIGTERM");
    expect(await started.exited).toBe(0);
  });
});
