import { describe, expect, it } from "vitest";
import { SALE_TYPES, SELECTION_TYPES } from "../../src/api/enums.js";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { disagreementCounts } from "../../src/warehouse/reading-checks.js";
import { etlIn } from "../helpers/cli.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";

// A day whose trends list the upstream cuts short: the sync that reads it succeeds (nothing it
// was sent is missing), its check finds the list short of the totals, and an operator hears of
// it from `etl status` and /metrics, never from an exit code.

const DAY = "2026-01-03";
const setting = processSetting("readings", {
  apiKey: "readings-key-1",
  today: "2026-01-31",
  size: { trendItemsCap: 10 },
  knobs: { shortListDays: [DAY] },
});

const etl = etlIn(setting.dir.path, () =>
  setting.configure({
    start_date: "2026-01-01",
    requests_per_second: 1000,
    schedules: NO_SCHEDULES,
  }),
);

describe("readings that disagree", () => {
  it("are recorded by the sync's check, shown by status and /metrics, and exit 0", async () => {
    const sync = await etl([
      "sync",
      "--only",
      "trend_totals,trend_items,trend_chart_points",
      "--from",
      "2026-01-02",
      "--to",
      "2026-01-04",
    ]);
    expect(sync.code, sync.stdout).toBe(0);

    const rows = await setting.warehouse.query<{ day: string; n: number; gap: string }>(
      `select day::text, count(*)::int as n, sum(items_gap)::text as gap
         from analytics.reading_checks where not agree group by day`,
    );
    const { data } = setting.sandbox;
    const lists = SELECTION_TYPES.flatMap((selection) =>
      SALE_TYPES.map((sale) => data.trendList(DAY, DAY, selection, sale)),
    );
    // The item each list leaves out, as the sandbox cuts it: its last.
    const short = lists.reduce((sum, list) => sum + BigInt(list[list.length - 1]?.count ?? 0), 0n);
    expect(rows).toEqual([{ day: DAY, n: 10, gap: `-${short}` }]);

    const status = await etl(["status"]);
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(
        `^readings disagree: 10 of a day's totals, list and chart, ${DAY}\\.\\.${DAY}; the largest, ${DAY} \\w+ \\w+: the list's items -\\d+ against the total`,
        "m",
      ),
    );

    const metrics = createEtlMetrics();
    metrics.setSources({ disagreements: () => disagreementCounts(setting.warehouse.db) });
    const gauges = (await metrics.registry.metrics())
      .split("\n")
      .filter((line) => line.startsWith("etl_reading_disagreements{"));
    expect(gauges).toHaveLength(10);
    expect(gauges.every((line) => line.endsWith(" 1"))).toBe(true);
  });
});
