import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { PLAN_SLICE, planPartitions } from "../../src/streams/plan-partitions.js";
import { defineStream, type Partition } from "../../src/streams/stream.js";
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
function hourlyStream(name: string) {
  const made = { count: 0 };
  const stream = defineStream<Partition, never>({
    name,
    family: "trends",
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
    read: () => ({ records: [], next: null }),
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

  it("plans, when incremental, what never succeeded, the lookback days and what has no day", async () => {
    const { stream } = hourlyStream("incremental");
    const days = daysBetween("2026-01-01", addDays(TODAY, -1));
    // Every other day succeeded before, so synced and unsynced days alternate in every slice.
    const synced = days.filter((_, i) => i % 2 === 0);
    for (const day of synced) {
      for (let hour = 0; hour < HOURS; hour++) {
        await markPartitionSucceeded(warehouse.db, "incremental", `${day}|${hour}`, { day });
      }
    }
    await markPartitionSucceeded(warehouse.db, "incremental", "cursor", {});
    const planned: string[] = [];
    for await (const slice of planPartitions(deps("2026-01-01"), stream, {})) {
      planned.push(...slice.map((p) => p.key));
    }
    const lookback = days.slice(-3);
    const dueDays = days.filter((day) => !synced.includes(day) || lookback.includes(day));
    expect(planned).toEqual([
      ...dueDays.flatMap((day) => Array.from({ length: HOURS }, (_, hour) => `${day}|${hour}`)),
      "cursor",
    ]);
  });
});
