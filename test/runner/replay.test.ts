import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { startSandbox } from "../../sandbox/index.js";
import { selectStreams, STREAMS } from "../../src/streams/registry.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import type { TableOutput, Stream } from "../../src/streams/stream.js";
import type { Partition } from "../../src/streams/partition.js";
import { trendItems } from "../../src/streams/trends/trend-items.js";
import { trendChartPoints } from "../../src/streams/trends/trend-chart-points.js";
import { urls } from "../../src/streams/artist-stats/urls.js";
import { differences, fingerprints } from "../faults/table-fingerprints.js";
import {
  type SyncHarness,
  startSyncHarness,
  failures,
  SMALL_ACCOUNT,
} from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const RANGE = { from: "2026-01-01", to: "2026-01-03" };
let harness: SyncHarness;
let tracking: ReturnType<typeof sandboxTracking>;

/** The same stream with its first output's rows changed: a reader fixed or changed. */
function withRows(stream: Stream, change: TableOutput<Partition, unknown>["rows"]): Stream {
  const [output, ...rest] = stream.outputs;
  if (!output) throw new Error(`${stream.name} has no output`);
  return { ...stream, outputs: [{ ...output, rows: change }, ...rest] };
}

/** trend_chart_points with the series' names read in upper case. */
const shoutingSeries = withRows(trendChartPoints, (record, partition, position, today) =>
  (trendChartPoints.outputs[0]?.rows(record, partition, position, today) ?? []).map((row) => ({
    ...row,
    series: typeof row.series === "string" ? row.series.toUpperCase() : row.series,
  })),
);

/** urls that cannot read their link: every record yields a row without a key value. */
const blindUrls = withRows(urls, (record, partition, position, today) =>
  (urls.outputs[0]?.rows(record, partition, position, today) ?? []).map((row) => ({
    ...row,
    url: null,
  })),
);

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await harness.warehouse.query<{ n: number }>(sql, params);
  return row?.n ?? -1;
}

const written = (summaries: readonly StreamSummary[]) =>
  summaries.reduce((n, s) => n + s.rowsWritten, 0);

beforeAll(async () => {
  const probe = await startSandbox({ today: TODAY, size: SMALL_ACCOUNT });
  tracking = sandboxTracking(probe.data);
  await probe.close();
  harness = await startSyncHarness("replay", {
    today: TODAY,
    sandbox: { size: SMALL_ACCOUNT },
    etl: tracking,
  });
  expect(failures(await harness.sync(RANGE))).toEqual([]);
});

afterAll(() => harness.close());

describe("landed responses", () => {
  it("keep every response a sync read, as received, and the ids of those each attempt read", async () => {
    const requests = harness.upstream.sandbox.stats().requests;
    const stored = await count("select count(*)::int as n from etl.responses");
    // Every request of this sync was answered 2xx (no faults): each is a stored response.
    expect(stored).toBe(requests);
    expect(
      await count(
        `select count(*)::int as n from etl.attempts r
          where kind = 'sync' and status = 'succeeded'
            and exists (select 1 from unnest(r.response_ids) id
                         where not exists (select 1 from etl.responses s where s.response_id = id))`,
      ),
    ).toBe(0);
    const [sample] = await harness.warehouse.query<{ body: string; params: unknown }>(
      "select body, params from etl.responses where operation = 'trends.list' limit 1",
    );
    expect(JSON.parse(sample?.body ?? "null")).toEqual(expect.anything());
    expect(JSON.stringify(sample?.params)).not.toContain(harness.upstream.sandbox.apiKey);
  });

  it("store nothing new when a re-sync receives the same answers", async () => {
    const before = await count("select max(response_id)::int as n from etl.responses");
    const again = await harness.sync(RANGE);
    expect(failures(again)).toEqual([]);
    expect(written(again)).toBe(0);
    // Only a request never made before brings a new response: the /stat series ask from their
    // checkpoint minus the lookback now, where the first sync asked from start_date.
    const added = await harness.warehouse.query<{ stream: string; repeated: boolean }>(
      `select stream, exists (select 1 from etl.responses o
                               where o.response_id <= $1 and o.stream = r.stream
                                 and o.partition = r.partition and o.params = r.params) as repeated
         from etl.responses r where response_id > $1`,
      [before],
    );
    expect(added.filter((r) => r.repeated)).toEqual([]);
    expect([...new Set(added.map((r) => r.stream))]).toEqual(["artist_stats_platform_stats"]);
    const settled = await count("select count(*)::int as n from etl.responses");
    expect(written(await harness.sync(RANGE))).toBe(0);
    expect(await count("select count(*)::int as n from etl.responses")).toBe(settled);
  });
});

describe("replay", () => {
  it("derives the same rows again with no upstream request", async () => {
    const before = await fingerprints(harness.warehouse);
    const requests = harness.upstream.sandbox.stats().requests;
    const summaries = await harness.replay(STREAMS);
    expect(failures(summaries)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(requests);
    expect(written(summaries)).toBe(0);
    expect(differences(before, await fingerprints(harness.warehouse))).toEqual([]);
    expect(
      await count(
        "select count(*)::int as n from etl.attempts where kind = 'replay' and requests > 0",
      ),
    ).toBe(0);
    expect(
      await count(
        `select count(*)::int as n from etl.attempts r where kind = 'replay'
          and not exists (select 1 from etl.attempts s where s.attempt_id = r.replay_of and s.kind = 'sync')`,
      ),
    ).toBe(0);
  });

  it("after a reader changed, gives row for row what a fresh sync with that reader gives", async () => {
    const requests = harness.upstream.sandbox.stats().requests;
    const replayed = await harness.replay([shoutingSeries]);
    expect(failures(replayed)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(requests);
    expect(
      await count(
        "select count(*)::int as n from sales.trend_chart_points where series <> upper(series)",
      ),
    ).toBe(0);

    const fresh = await startSyncHarness("replay_fresh", {
      today: TODAY,
      sandbox: { size: SMALL_ACCOUNT },
      etl: tracking,
    });
    try {
      const streams = selectStreams(undefined).map((s) =>
        s === trendChartPoints ? shoutingSeries : s,
      );
      expect(failures(await fresh.sync({ ...RANGE, streams }))).toEqual([]);
      expect(
        differences(await fingerprints(fresh.warehouse), await fingerprints(harness.warehouse)),
      ).toEqual([]);
    } finally {
      await fresh.close();
    }
    await harness.replay([trendChartPoints]);
  });

  it("keeps to --from/--to: daily partitions by their day", async () => {
    const summaries = await harness.replay([trendItems], { from: "2026-01-02", to: "2026-01-02" });
    // One day: 5 selection types × 2 sale types.
    expect(summaries[0]?.partitions).toBe(10);
  });
});

describe("quarantine", () => {
  it("keeps the records a reader could not store, says so, and releases them on a replay that can", async () => {
    const stored = await count("select count(*)::int as n from artist_stats.urls");
    expect(stored).toBeGreaterThan(0);
    const blind = await harness.sync({ streams: [blindUrls] });
    expect(failures(blind)).toEqual([]);
    expect(blind[0]?.rowsRejected).toBe(stored);
    // Their keys are unknown: no stored row is deleted as if the upstream had dropped it.
    expect(await count("select count(*)::int as n from artist_stats.urls")).toBe(stored);
    expect(
      await count(
        `select count(*)::int as n from etl.rejected_records
          where stream = 'artist_stats_urls' and reason = 'no value for key column url'`,
      ),
    ).toBe(stored);
    expect(
      await count(
        "select sum(rows_rejected)::int as n from etl.attempts where attempt_id in (select max(attempt_id) from etl.attempts where stream = 'artist_stats_urls' group by partition)",
      ),
    ).toBe(stored);

    const requests = harness.upstream.sandbox.stats().requests;
    const fixed = await harness.replay([urls]);
    expect(failures(fixed)).toEqual([]);
    expect(harness.upstream.sandbox.stats().requests).toBe(requests);
    expect(fixed[0]?.rowsRejected).toBe(0);
    expect(await count("select count(*)::int as n from artist_stats.urls")).toBe(stored);
    expect(
      await count(
        "select count(*)::int as n from etl.rejected_records where stream = 'artist_stats_urls'",
      ),
    ).toBe(0);
  });
});
