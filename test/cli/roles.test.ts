import { describe, expect, it } from "vitest";
import { SHAPE_VARIANTS } from "../../sandbox/index.js";
import { etlIn } from "../helpers/cli.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";

// The roles as an operator meets them: a sync against an upstream that names its fields its own
// way resolves them and exits 0; a configuration that names a field for a role wins, and one that
// names none that can carry it is a warning naming the key, exit 4; `etl roles` shows them.

const setting = processSetting("roles-cli", {
  apiKey: "roles-key-1",
  today: "2026-01-31",
  knobs: SHAPE_VARIANTS["renamed-fields"],
});

const RANGE = ["--from", "2026-01-28", "--to", "2026-01-29"];

function env(roles: Record<string, string> = {}): () => Record<string, string> {
  return () =>
    setting.configure({
      start_date: "2026-01-01",
      requests_per_second: 1000,
      max_concurrency: 4,
      dsp_keys: ["all"],
      territory_keys: ["all"],
      schedules: NO_SCHEDULES,
      roles,
    });
}

describe("etl sync and etl roles", () => {
  it("resolve the roles from an upstream's own names, say so, and exit 0", async () => {
    const sync = await etlIn(setting.dir.path, env())(["sync", "--only", "trends", ...RANGE]);
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(sync.stdout).toContain("roles resolved anew, the views rebuilt");
    expect(sync.stdout).toContain(
      "trend_item_units.product.stream: none (pending) → units (inferred)",
    );
    const roles = await etlIn(setting.dir.path, env())(["roles"]);
    expect(roles.code, roles.stdout + roles.stderr).toBe(0);
    expect(roles.stdout).toMatch(
      /^trend_item_units\.dsp\.stream +units +units +inferred +units: 2 of 2 days/m,
    );
    const [sums] = await setting.warehouse.query<{ streams: string; total: string }>(
      `select (select sum(streams) from analytics.daily_sales_by_dsp)::text as streams,
              (select sum(stream_count) from sales.trend_totals where selection_type = 'dsp')::text as total`,
    );
    expect(sums?.streams).toBe(sums?.total);
  });

  it("follow the configuration, and warn, exit 4, where it names no field that can carry a role", async () => {
    const wrong = await etlIn(
      setting.dir.path,
      env({ trend_item_units: "quantity" }),
    )(["roles", "--resolve"]);
    expect(wrong.code, wrong.stdout + wrong.stderr).toBe(4);
    expect(wrong.stdout).toContain(
      'role trend_item_units.dsp.stream unresolved: roles.trend_item_units.dsp.stream names "quantity", which is no column of sales.trend_items',
    );
    const [nulls] = await setting.warehouse.query<{ n: number }>(
      "select count(*)::int as n from analytics.daily_sales_by_dsp where streams > 0",
    );
    expect(nulls?.n).toBe(0);
    const right = await etlIn(
      setting.dir.path,
      env({ trend_item_units: "units" }),
    )(["roles", "--resolve"]);
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect(right.stdout).toMatch(/^trend_item_units\.dsp\.stream +units +units +configured/m);
  });
});
