import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EtlConfig, etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { platformStats } from "../../src/streams/artist-stats/platform-stats.js";
import {
  PLAN_SLICE,
  type PlanOptions,
  planPartitions,
} from "../../src/runner/plan/plan-partitions.js";
import { NO_PAGING } from "../../src/streams/paging.js";
import { defineStream, type Stream } from "../../src/streams/stream.js";
import { type Partition } from "../../src/streams/partition.js";
import { addDays, daysBetween } from "../../src/time/calendar.js";
import { markPartitionSucceeded } from "../../src/warehouse/stream-state.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

const TODAY = "2026-03-01";
const HOURS = 24;
let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("plan_partitions");
});

afterAll(() => warehouse.drop());

/** Hourly partitions of every day asked for, then one without a day; counts what it made. */
function hourlyStream(name: string, family: "trends" | "artist_stats" = "artist_stats") {
  const made = { count: 0 };
  const stream = defineStream<Partition, never>({
    name,
    family,
    paging: NO_PAGING,
    partitions: ({ days }) =>
      (function* () {
        for (const day of days) {
          for (let hour = 0; hour < HOURS; hour++) {
            made.count += 1;
            yield { key: `${day}|${hour}`, day };
          }
        }
        made.count += 1;
        yield { key: "cursor" };
      })(),
    fetch: () => Promise.resolve([]),
    read: () => ({ records: [] }),
    outputs: [],
  });
  return { stream, made };
}

function deps(startDate: string) {
  return {
    db: warehouse.db,
    config: etlConfigSchema.parse({ start_date: startDate, lookback_days: 3 }),
    today: TODAY,
  };
}

describe("planning a run", () => {
  it("makes a stream's partitions a slice at a time, as the run asks for them", async () => {
    const { stream, made } = hourlyStream("sliced");
    const range = { from: "2025-12-01", to: "2026-02-28" };
    const plan = planPartitions(deps("2026-01-01"), stream, range);
    const first = await plan.next();
    expect(first.value).toHaveLength(PLAN_SLICE);
    expect(made.count).toBe(PLAN_SLICE);
    const sizes = [(first.value as Partition[]).length];
    for await (const slice of plan) sizes.push(slice.length);
    // 90 days of 24 hours and the partition without a day: every one planned once.
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(90 * HOURS + 1);
    expect(sizes.every((size) => size <= PLAN_SLICE)).toBe(true);
  });

  /** Marks every other day's partitions succeeded, so synced and unsynced days alternate. */
  async function syncEveryOtherDay(stream: string): Promise<string[]> {
    const days = daysBetween("2026-01-01", addDays(TODAY, -1));
    const synced = days.filter((_, i) => i % 2 === 0);
    for (const day of synced) {
      for (let hour = 0; hour < HOURS; hour++) {
        await markPartitionSucceeded(warehouse.db, {
          stream,
          partition: `${day}|${hour}`,
          checkpoint: { day },
        });
      }
    }
    await markPartitionSucceeded(warehouse.db, { stream, partition: "cursor", checkpoint: {} });
    return synced;
  }

  async function planned(
    stream: Stream,
    config: EtlConfig,
    options?: PlanOptions,
  ): Promise<Partition[]> {
    const partitions: Partition[] = [];
    for await (const slice of planPartitions(
      { db: warehouse.db, config, today: TODAY },
      stream,
      {},
      options,
    )) {
      partitions.push(...slice);
    }
    return partitions;
  }

  const plannedKeys = async (stream: Stream, config: EtlConfig) =>
    (await planned(stream, config)).map((p) => p.key);

  const dayKeys = (days: readonly string[]) =>
    days.flatMap((day) => Array.from({ length: HOURS }, (_, hour) => `${day}|${hour}`));

  /** The days an incremental run plans: those never synced, and the last `lookbackDays` again. */
  function dueDays(synced: readonly string[], lookbackDays: number): string[] {
    const days = daysBetween("2026-01-01", addDays(TODAY, -1));
    const lookback = days.slice(-lookbackDays);
    return days.filter((day) => !synced.includes(day) || lookback.includes(day));
  }

  it("re-reads a trends lookback day once its last success is refetch_after_hours old", async () => {
    const { stream } = hourlyStream("hourly_trends", "trends");
    const synced = await syncEveryOtherDay("hourly_trends");
    const config = deps("2026-01-01").config;
    const days = daysBetween("2026-01-01", addDays(TODAY, -1));
    const unsynced = days.filter((day) => !synced.includes(day));
    // Synced just now: an hourly run re-reads none of the lookback days.
    expect(await plannedKeys(stream, config)).toEqual([...dayKeys(unsynced), "cursor"]);
    // A day later, the lookback days are due again; older days stay settled.
    const lookbackSynced = days.slice(-3).filter((day) => synced.includes(day));
    expect(lookbackSynced.length).toBeGreaterThan(0);
    await warehouse.db
      .updateTable("etl.stream_state")
      .set({ last_success_at: new Date(Date.now() - 23.5 * 3_600_000) })
      .where("stream", "=", "hourly_trends")
      .execute();
    expect(await plannedKeys(stream, config)).toEqual([
      ...dayKeys(days.filter((day) => !synced.includes(day) || lookbackSynced.includes(day))),
      "cursor",
    ]);
  });

  it("plans, when incremental, what never succeeded, the lookback days and what has no day", async () => {
    const { stream } = hourlyStream("incremental");
    const synced = await syncEveryOtherDay("incremental");
    const planned = await plannedKeys(stream, deps("2026-01-01").config);
    expect(planned).toEqual([...dayKeys(dueDays(synced, 3)), "cursor"]);
  });

  describe("with a lookback of a family's own, other than lookback_days", () => {
    // Each family's days differ from lookback_days: a plan that read lookback_days instead
    // would re-read other days than these tests expect.
    const config = etlConfigSchema.parse({
      start_date: "2026-01-01",
      lookback_days: 3,
      lookback: { trends: { days: 5, refetch_after_hours: 0 }, artist_stats: { days: 1 } },
      artist_stats: { stat_sources: ["social_1", "social_2"] },
    });

    it("re-reads each family's own number of days", async () => {
      const trends = hourlyStream("family_trends", "trends").stream;
      const artistStats = hourlyStream("family_artist_stats", "artist_stats").stream;
      const trendsSynced = await syncEveryOtherDay(trends.name);
      const artistStatsSynced = await syncEveryOtherDay(artistStats.name);
      // Synced days in the lookback: 02-24, 02-26 and 02-28 for trends, 02-28 alone for
      // artist_stats, where lookback_days would give both 02-26 and 02-28.
      expect(await plannedKeys(trends, config)).toEqual([
        ...dayKeys(dueDays(trendsSynced, 5)),
        "cursor",
      ]);
      expect(await plannedKeys(artistStats, config)).toEqual([
        ...dayKeys(dueDays(artistStatsSynced, 1)),
        "cursor",
      ]);
    });

    it("starts a series' window artist_stats' lookback days before its checkpoint", async () => {
      await markPartitionSucceeded(warehouse.db, {
        stream: platformStats.name,
        partition: "7|social_1",
        checkpoint: { until: "2026-02-20" },
      });
      const series = await planned(platformStats, config, {
        trackedArtistIds: () => Promise.resolve([7]),
      });
      // One day before the checkpoint's until (lookback_days would say 2026-02-17); a series
      // never synced starts at start_date.
      expect(series).toMatchObject([
        { key: "7|social_1", since: "2026-02-19", until: "2026-02-28" },
        { key: "7|social_2", since: "2026-01-01", until: "2026-02-28" },
      ]);
    });
  });
});
