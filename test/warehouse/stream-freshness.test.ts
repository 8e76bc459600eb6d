import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { STALE_AFTER_INTERVALS } from "../../src/config/schedule-interval.js";
import { STREAMS } from "../../src/streams/registry.js";
import { addDays, daysBetween, utcToday } from "../../src/time/calendar.js";
import { markPartitionFailed, markPartitionSucceeded } from "../../src/warehouse/stream-state.js";
import { recordStreamSettings, streamFreshness } from "../../src/warehouse/recorded-settings.js";
import { streamSettings } from "../../src/runner/stream-settings.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;
const TODAY = utcToday();
const YESTERDAY = addDays(TODAY, -1);
const START = addDays(TODAY, -10);

beforeAll(async () => {
  warehouse = await createTestWarehouse("stream_freshness");
  const config = etlConfigSchema.parse({
    start_date: START,
    // Trends hourly (the default); the artist statistics every 15 minutes; royalties off.
    schedules: {
      artist_stats: { pattern: "*/15 * * * *", tz: "UTC" },
      royalties: null,
    },
    artist_stats: { radio_history_days: 3 },
  });
  await recordStreamSettings(warehouse.db, streamSettings(config, STREAMS));
});

afterAll(() => warehouse.drop());

async function missingDays(stream: string): Promise<string[]> {
  const rows = await warehouse.query<{ day: string }>(
    "select day::text as day from analytics.stream_missing_days where stream = $1 order by day",
    [stream],
  );
  return rows.map((row) => row.day);
}

async function freshness(stream: string) {
  const [row] = await warehouse.query<{
    family: string;
    schedule: string | null;
    stale_after_seconds: number | null;
    stale: boolean;
    missing_days: number | null;
    partitions: number;
  }>(
    `select family, schedule, stale_after_seconds, stale, missing_days, partitions
       from analytics.stream_freshness where stream = $1`,
    [stream],
  );
  return row;
}

describe("a stream's gaps and staleness, for analysts", () => {
  it("lists the days from start_date to yesterday a daily stream never synced", async () => {
    const synced = [START, addDays(START, 1), addDays(START, 5), YESTERDAY];
    for (const day of synced) {
      await markPartitionSucceeded(warehouse.db, {
        stream: "trend_totals",
        partition: `${day}|dsp`,
        checkpoint: { day },
      });
    }
    // A day whose only partition failed, never having succeeded, is missing too.
    await markPartitionFailed(warehouse.db, "trend_totals", `${addDays(START, 2)}|dsp`, "no");
    const expected = daysBetween(START, YESTERDAY).filter((day) => !synced.includes(day));
    expect(await missingDays("trend_totals")).toEqual(expected);
    expect(await freshness("trend_totals")).toMatchObject({
      family: "trends",
      schedule: "5 * * * * UTC",
      missing_days: expected.length,
    });
    // A stream that is not daily has no missing days; one never run has every day missing.
    expect(await freshness("dsps")).toMatchObject({ missing_days: null, partitions: 0 });
    expect(await missingDays("trend_items")).toEqual(daysBetween(START, YESTERDAY));
  });

  it("counts a radio stream's days from radio_history_days only", async () => {
    expect(await missingDays("artist_stats_radio")).toEqual(
      daysBetween(addDays(TODAY, -3), YESTERDAY),
    );
  });

  it("calls a stream stale by the alert's rule: no success for twice its schedule's interval", async () => {
    const stream = "artist_stats_urls";
    await markPartitionSucceeded(warehouse.db, { stream, partition: "7", checkpoint: {} });
    expect(await freshness(stream)).toMatchObject({
      schedule: "*/15 * * * * UTC",
      stale_after_seconds: STALE_AFTER_INTERVALS * 900,
      stale: false,
    });
    const setLastSuccess = (minutesAgo: number) =>
      warehouse.query(
        `update etl.stream_state set last_success_at = now() - make_interval(mins => $2)
          where stream = $1`,
        [stream, minutesAgo],
      );
    await setLastSuccess(STALE_AFTER_INTERVALS * 15 - 1);
    expect((await freshness(stream))?.stale).toBe(false);
    await setLastSuccess(STALE_AFTER_INTERVALS * 15 + 1);
    expect((await freshness(stream))?.stale).toBe(true);
    // What `etl status` shows is what the view says.
    const status = (await streamFreshness(warehouse.db)).find((s) => s.stream === stream);
    expect(status).toEqual({
      stream,
      schedule: "*/15 * * * * UTC",
      stale: true,
      missingDays: null,
      lastSuccessAt: expect.any(Date),
    });
  });

  it("never calls stale a stream whose family has no schedule", async () => {
    await markPartitionSucceeded(warehouse.db, {
      stream: "invoices",
      partition: "all",
      checkpoint: {},
    });
    await warehouse.query(
      "update etl.stream_state set last_success_at = now() - interval '400 days' where stream = 'invoices'",
    );
    expect(await freshness("invoices")).toMatchObject({
      schedule: null,
      stale_after_seconds: null,
      stale: false,
    });
  });
});
