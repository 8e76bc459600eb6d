import { describe, expect, it } from "vitest";
import { radioHistoryNote } from "../../src/cli/radio-history-note.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { artistDayPartitions } from "../../src/streams/artist-stats/tracked-artists.js";
import type { DayRange } from "../../src/runner/plan/plan-partitions.js";
import { selectStreams, STREAMS } from "../../src/streams/registry.js";
import type { PlanContext } from "../../src/streams/stream.js";
import { daysBetween } from "../../src/time/calendar.js";

const TODAY = "2026-03-01";
const config = (radioHistoryDays: number | null) =>
  etlConfigSchema.parse({
    start_date: "2026-01-01",
    artist_stats: { radio_history_days: radioHistoryDays },
  });

/** Days of the range the radio streams plan, as a run would: the truth the note must tell. */
async function plannedDays(radioHistoryDays: number, range: Required<DayRange>) {
  const context = {
    config: config(radioHistoryDays),
    today: TODAY,
    days: daysBetween(range.from, range.to),
    trackedArtistIds: () => Promise.resolve([7]),
  } as unknown as PlanContext;
  return [...(await artistDayPartitions(context))].map((p) => p.day);
}

describe("the radio history note", () => {
  it("names the radio streams and the days of the range they leave out, as planned", async () => {
    const range = { from: "2026-02-01", to: "2026-02-28" };
    const note = radioHistoryNote(config(10), STREAMS, range, TODAY);
    expect(note).toBe(
      "artist_stats_radio_airplays, artist_stats_radio: 2026-02-01..2026-02-18 left out (18 days): " +
        "artist_stats.radio_history_days keeps 10 days, from 2026-02-19",
    );
    const planned = await plannedDays(10, range);
    expect(planned[0]).toBe("2026-02-19");
    expect(daysBetween(range.from, range.to).length - planned.length).toBe(18);
  });

  it("counts a range wholly before the kept days, and one given --from alone up to yesterday", () => {
    expect(
      radioHistoryNote(config(10), STREAMS, { from: "2026-01-01", to: "2026-01-31" }, TODAY),
    ).toMatch(/: 2026-01-01\.\.2026-01-31 left out \(31 days\)/);
    expect(radioHistoryNote(config(10), STREAMS, { from: "2026-02-17" }, TODAY)).toMatch(
      /: 2026-02-17\.\.2026-02-18 left out \(2 days\)/,
    );
  });

  it("says nothing where every day asked for is kept", () => {
    const range = { from: "2026-02-01", to: "2026-02-28" };
    expect(radioHistoryNote(config(null), STREAMS, range, TODAY)).toBeNull();
    expect(radioHistoryNote(config(28), STREAMS, range, TODAY)).toBeNull();
    expect(radioHistoryNote(config(10), selectStreams(["trend_totals"]), range, TODAY)).toBeNull();
    // An incremental run's days are its lookback's, not a range asked for.
    expect(radioHistoryNote(config(10), STREAMS, {}, TODAY)).toBeNull();
  });

  it("names only the radio streams of the run", () => {
    const range = { from: "2026-02-01", to: "2026-02-28" };
    expect(
      radioHistoryNote(config(10), selectStreams(["artist_stats_radio"]), range, TODAY),
    ).toMatch(/^artist_stats_radio: /);
  });
});
