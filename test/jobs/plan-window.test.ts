import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { savedPlanState } from "../../src/jobs/job-types.js";
import { type PlanPosition, planWindow, type WindowPlan } from "../../src/jobs/plan-window.js";
import { NO_PAGING } from "../../src/streams/paging.js";
import { rangeDays } from "../../src/runner/plan/plan-partitions.js";
import { STREAMS } from "../../src/streams/registry.js";
import { defineStream, type Stream } from "../../src/streams/stream.js";
import { type Partition } from "../../src/streams/partition.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

const TODAY = "2026-03-01";
const RANGE = { from: "2026-02-20", to: "2026-02-28" };
let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("plan_window");
});

afterAll(() => warehouse.drop());

/** A stream of `perDay` partitions a day (plus `undated` without one), daily or not. */
function stream(name: string, options: { perDay?: number; undated?: number; daily?: boolean }) {
  return defineStream<Partition, never>({
    name,
    family: "trends",
    paging: NO_PAGING,
    ...(options.daily === false ? {} : { daily: true }),
    partitions: ({ days }) => [
      ...Array.from({ length: options.undated ?? 0 }, (_, i) => ({ key: `${name}|${i}` })),
      ...days.flatMap((day) =>
        Array.from({ length: options.perDay ?? 0 }, (_, i) => ({ key: `${day}|${i}`, day })),
      ),
    ],
    fetch: () => Promise.resolve([]),
    read: () => ({ records: [] }),
    outputs: [],
  });
}

function windowPlan(): WindowPlan {
  const config = etlConfigSchema.parse({ start_date: "2026-01-01" });
  return {
    deps: { db: warehouse.db, config, today: TODAY },
    range: RANGE,
    days: rangeDays(config, TODAY, RANGE).reverse(),
    options: {},
  };
}

/** Plans the streams in windows of `room` until every one is done: the partitions in order. */
async function planAll(
  streams: readonly Stream[],
  room: number,
  positions: Record<string, PlanPosition> = {},
): Promise<{ planned: string[]; windows: number }> {
  const planned: string[] = [];
  let windows = 0;
  let at = positions;
  while (!streams.every((s) => at[s.name]?.done === true)) {
    const before = planned.length;
    at = await planWindow(windowPlan(), streams, at, room, (s, partitions) => {
      planned.push(...partitions.map((p) => `${s.name} ${p.key}`));
      return Promise.resolve();
    });
    expect(planned.length - before).toBeLessThanOrEqual(room);
    windows += 1;
  }
  return { planned, windows };
}

const dayOf = (entry: string) => /\d{4}-\d{2}-\d{2}/.exec(entry)?.[0] ?? "undated";

describe("planning a run's window", () => {
  const trends = stream("a_trends", { perDay: 3 });
  const radio = stream("b_radio", { perDay: 2, undated: 1 });
  const snapshot = stream("c_snapshot", { undated: 4, daily: false });

  it("plans the newest day of every daily stream first, then what has no day, then older days", async () => {
    const { planned } = await planAll([trends, radio, snapshot], 100_000);
    // 9 days × (3 + 2) dated, 1 + 4 undated: each once.
    expect(planned).toHaveLength(9 * 5 + 5);
    expect(new Set(planned).size).toBe(planned.length);
    // A daily stream's own partition without a day, then the newest day of both daily streams,
    // then the snapshot, then the older days: never up.
    expect(planned[0]).toBe("b_radio b_radio|0");
    const days = planned.slice(1).map(dayOf);
    expect(days.slice(0, 5)).toEqual(Array(5).fill("2026-02-28"));
    expect(days.slice(5, 9)).toEqual(Array(4).fill("undated"));
    const older = days.slice(9);
    expect(older).toEqual([...older].sort().reverse());
    expect(older[0]).toBe("2026-02-27");
    expect(older.at(-1)).toBe("2026-02-20");
  });

  it("plans the same partitions in the same order, a small window at a time", async () => {
    const whole = await planAll([trends, radio, snapshot], 100_000);
    const windowed = await planAll([trends, radio, snapshot], 4);
    expect(windowed.planned).toEqual(whole.planned);
    // 50 partitions, at most 4 a window: at least 13 windows, and every position saved between.
    expect(windowed.windows).toBeGreaterThanOrEqual(13);
  });

  it("starts a stream that becomes ready later at its own newest day", async () => {
    // The trends alone for a few windows (the other's artists not known yet), then both.
    let positions: Record<string, PlanPosition> = {};
    const early: string[] = [];
    for (let i = 0; i < 3; i++) {
      positions = await planWindow(windowPlan(), [trends], positions, 4, (s, partitions) => {
        early.push(...partitions.map((p) => `${s.name} ${p.key}`));
        return Promise.resolve();
      });
    }
    const later: string[] = [];
    await planWindow(windowPlan(), [trends, radio], positions, 6, (s, partitions) => {
      later.push(...partitions.map((p) => `${s.name} ${p.key}`));
      return Promise.resolve();
    });
    expect(early.map(dayOf)).toEqual(
      ["2026-02-28", "2026-02-27", "2026-02-26", "2026-02-25"].flatMap((day) => Array(3).fill(day)),
    );
    // The radio's undated partition and its newest days come before the trends' older days.
    expect(later.slice(0, 5)).toEqual([
      "b_radio b_radio|0",
      "b_radio 2026-02-28|0",
      "b_radio 2026-02-28|1",
      "b_radio 2026-02-27|0",
      "b_radio 2026-02-27|1",
    ]);
  });
});

describe("the streams' declarations", () => {
  it("mark daily exactly the streams whose partitions carry a day", async () => {
    const config = etlConfigSchema.parse({
      start_date: "2026-01-01",
      charts: [{ country_code: "US", genre: "Pop" }],
    });
    for (const s of STREAMS) {
      const partitions: Partition[] = [];
      const made = await s.partitions({
        db: warehouse.db,
        config,
        today: TODAY,
        days: ["2026-02-28"],
        checkpoints: () => Promise.resolve(new Map()),
        trackedArtistIds: () => Promise.resolve([7]),
        catalogueArtistLinks: () => Promise.resolve([]),
      });
      for await (const partition of made) partitions.push(partition);
      const dated = partitions.some((p) => p.day !== undefined);
      expect({ stream: s.name, daily: s.daily === true }).toEqual({ stream: s.name, daily: dated });
    }
  });
});

describe("a run's planning saved by the release before (positions named cursors)", () => {
  it("is taken up from where it stood", () => {
    const positions = { trend_items: { day: 3, offset: 1000, done: false } };
    const earlier = {
      today: "2026-01-06",
      totals: { trend_items: 40 },
      cursors: positions,
      queued: 7,
    };
    expect(savedPlanState(earlier)).toEqual({
      today: "2026-01-06",
      totals: { trend_items: 40 },
      positions,
      queued: 7,
    });
    const now = { today: "2026-01-06", totals: {}, positions, queued: 7 };
    expect(savedPlanState(now)).toBe(now);
    expect(savedPlanState(undefined)).toBeUndefined();
  });
});
