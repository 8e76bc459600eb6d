import type { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { enqueueRun } from "../../src/jobs/enqueue-run.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { readRunProgress } from "../../src/jobs/run-progress.js";
import { STREAMS } from "../../src/streams/registry.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";
import { REDIS_URL } from "../helpers/redis.js";
import type { TestWarehouse } from "../helpers/warehouse.js";
import { endProcesses, spawnWorker, type WorkerProcess } from "../helpers/worker-process.js";
import { HANG_MS } from "../helpers/hang-limit.js";

// What waits for a fix, as a worker's /metrics exports it from its warehouse after real loads:
// records in quarantine, partitions whose list was left uncertain and partitions left with values
// no reader could read, by stream, as etl.rejected_records and etl.stream_state hold them; and 0
// once a clean load of the same partitions releases them.

const DAY = "2026-01-03";
const GAUGES = [
  "etl_stream_rejected_records",
  "etl_stream_uncertain_partitions",
  "etl_stream_unread_partitions",
];
const FAMILIES = new Map(STREAMS.map((stream) => [stream.name, stream.family]));

/** The series of the three gauges in a scrape, sorted. */
function waitingSeries(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => GAUGES.some((gauge) => line.startsWith(`${gauge}{`)))
    .sort();
}

/** The same series as the warehouse's tables hold them, counted in SQL. */
async function heldBy(warehouse: TestWarehouse): Promise<string[]> {
  const rows = await warehouse.query<{
    stream: string;
    rejected: number;
    uncertain: number;
    unread: number;
  }>(
    `with state as (
       select stream,
              last_status = 'succeeded'
                and warnings @? '$[*] ? (@.kind != "untyped" && @.kind != "unmatched")' as uncertain,
              last_status = 'succeeded'
                and warnings @? '$[*] ? (@.kind == "untyped" || @.kind == "unmatched")' as unread
         from etl.stream_state)
     select stream,
            (select count(*) from etl.rejected_records r where r.stream = state.stream)::int
              as rejected,
            count(*) filter (where uncertain)::int as uncertain,
            count(*) filter (where unread)::int as unread
       from state
      group by stream`,
  );
  return rows
    .flatMap((row) => {
      const labels = `{stream="${row.stream}",family="${FAMILIES.get(row.stream) ?? ""}"}`;
      return [
        `etl_stream_rejected_records${labels} ${row.rejected}`,
        `etl_stream_uncertain_partitions${labels} ${row.uncertain}`,
        `etl_stream_unread_partitions${labels} ${row.unread}`,
      ];
    })
    .sort();
}

describe("a worker's /metrics of what waits for a fix", () => {
  const setting = processSetting("waiting-metrics", {
    apiKey: "waiting-metrics-secret-key-1",
    today: "2026-01-31",
  });
  let queue: Queue;
  let worker: WorkerProcess | undefined;

  beforeAll(async () => {
    const config = {
      start_date: "2026-01-01",
      requests_per_second: 1000,
      max_concurrency: 8,
      schedules: NO_SCHEDULES,
      shutdown_grace_ms: 1_000,
    };
    const env = setting.configure(config);
    queue = createEtlQueue(
      REDIS_URL,
      etlConfigSchema.parse({ ...config, redis_prefix: setting.prefix }),
    );
    worker = await spawnWorker({ cwd: setting.dir.path, env });
  });

  afterAll(async () => {
    if (worker) await endProcesses([worker]);
    await queue?.close();
  });

  /** Backfills DAY of `streams` through the worker, and waits for the run's end. */
  async function load(...streams: string[]): Promise<void> {
    const { runId } = await enqueueRun(queue, {
      kind: "backfill",
      streams,
      range: { from: DAY, to: DAY },
    });
    await vi.waitFor(
      async () => expect((await readRunProgress(queue, runId))?.finished).toBe(true),
      { timeout: HANG_MS, interval: 200 },
    );
  }

  async function scrape(): Promise<string> {
    const response = await fetch(`${worker?.operatorUrl}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  }

  it("counts the records and partitions waiting as the warehouse holds them, until a clean load releases them", async () => {
    // Hostile values: trend_items records whose key cannot be stored are quarantined, values no
    // column holds are untyped. Then a next-page link to another origin leaves payouts truncated.
    setting.sandbox.setKnobs({ drift: { hostile: true } });
    await load("trend_items");
    setting.sandbox.setKnobs({
      drift: { hostile: false },
      shapes: { royaltiesPaging: "next-link", foreignNextLink: "http://127.0.0.1:9" },
    });
    await load("payouts");
    const waiting = await heldBy(setting.warehouse);
    // Something of each kind waits, so that a gauge stuck at 0 fails.
    expect(waiting).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^etl_stream_rejected_records\{stream="trend_items",family="trends"\} [1-9]\d*$/,
        ),
        'etl_stream_uncertain_partitions{stream="payouts",family="royalties"} 1',
        expect.stringMatching(
          /^etl_stream_unread_partitions\{stream="trend_items",family="trends"\} [1-9]\d*$/,
        ),
      ]),
    );
    expect(waitingSeries(await scrape())).toEqual(waiting);

    // The upstream sends clean, whole lists again: the same partitions loaded again release all.
    setting.sandbox.setKnobs({ shapes: { royaltiesPaging: "none", foreignNextLink: null } });
    await load("trend_items", "payouts");
    const released = waiting.map((series) => series.replace(/ \d+$/, " 0"));
    expect(await heldBy(setting.warehouse)).toEqual(released);
    expect(waitingSeries(await scrape())).toEqual(released);

    worker?.child.kill("SIGTERM");
    expect(await worker?.exited).toBe(0);
  });
});
