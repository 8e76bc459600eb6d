import { describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { scheduleIntervalSeconds } from "../../src/config/schedule-interval.js";
import { streamSchedules } from "../../src/jobs/stream-schedules.js";
import { STREAMS } from "../../src/streams/registry.js";

const HOUR = 3600;
const DAY = 24 * HOUR;
// A Wednesday, five days before Europe/Paris leaves summer time (Sunday 2026-10-25).
const FROM = new Date("2026-10-21T12:00:00Z");
const interval = (pattern: string, tz = "UTC") => scheduleIntervalSeconds({ pattern, tz }, FROM);

describe("the interval of a schedule", () => {
  it("is the gap between two runs of a regular pattern, seconds included", () => {
    expect(interval("5 * * * *")).toBe(HOUR);
    expect(interval("15 3 * * *")).toBe(DAY);
    expect(interval("*/15 * * * *")).toBe(15 * 60);
    expect(interval("*/10 * * * * *")).toBe(10);
  });

  it("is the longest gap of an irregular one: a weekend, a month, a day with an extra hour", () => {
    expect(interval("0 9 * * 1-5")).toBe(3 * DAY);
    expect(interval("0 0 1 * *")).toBe(30 * DAY);
    expect(interval("30 4 * * *", "Europe/Paris")).toBe(DAY + HOUR);
    expect(interval("30 4 * * *", "UTC")).toBe(DAY);
  });
});

describe("the streams' schedules", () => {
  it("give every stream its family's interval, and none to a family whose schedule is off", () => {
    const config = etlConfigSchema.parse({
      start_date: "2026-01-01",
      schedules: { trends: { pattern: "*/20 * * * *" }, royalties: null },
    });
    const schedules = streamSchedules(config);
    const byStream = new Map(schedules.map((s) => [s.stream, s]));
    expect(byStream.get("trend_items")).toEqual({
      stream: "trend_items",
      family: "trends",
      intervalSeconds: 20 * 60,
    });
    expect(byStream.get("products")?.intervalSeconds).toBe(DAY);
    expect(schedules.some((s) => s.family === "royalties")).toBe(false);
    expect(schedules.map((s) => s.stream).sort()).toEqual(
      STREAMS.filter((s) => s.family !== "royalties")
        .map((s) => s.name)
        .sort(),
    );
  });
});
