import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rollUpStaleDays } from "../../src/analytics/sales-rollups.js";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { renamedFieldsSync } from "../helpers/shape-variant-suite.js";
import type { SyncHarness } from "../helpers/sync-harness.js";

// The sales views read roll-ups, and are exactly what the list items say at every moment: after
// a sync, after the items changed and before they are rolled up again, after they are, and after
// the units' column changed. Against the renamed-fields upstream: the units are its `units`.

const RANGE = { from: "2026-01-03", to: "2026-01-05" };

let harness: SyncHarness;

const VIEWS = [
  { selection: "dsp", daily: "analytics.daily_sales_by_dsp", id: "dsp_id::text" },
  { selection: "territory", daily: "analytics.daily_sales_by_territory", id: "territory_code" },
  {
    selection: "product",
    daily: "analytics.daily_sales_by_product",
    monthly: "analytics.monthly_sales_by_product",
    id: "product_id::text",
  },
  {
    selection: "asset",
    daily: "analytics.asset_daily_streams",
    monthly: "analytics.monthly_sales_by_asset",
    id: "asset_id::text",
  },
] as const;

/** The items' own figures per `period` (`day`, or its month) and entity, through `units`. */
function fromItems(selection: string, period: string, units: string): string {
  return `select ${period} as period, item_id as id,
                 coalesce(sum(${units}) filter (where sale_type = 'stream'), 0) as streams,
                 coalesce(sum(${units}) filter (where sale_type = 'download'), 0) as downloads
            from sales.trend_items where selection_type = '${selection}' group by 1, 2`;
}

/**
 * Every row where a sales view differs from the items' own sums (`units` the column they are
 * read through), daily and monthly, and how many rows each view compared.
 */
async function viewsAgainstItems(units = "units") {
  const differences: string[] = [];
  let compared = 0;
  for (const view of VIEWS) {
    const pairs = [
      { name: view.daily, period: "day", grain: "day" },
      ...("monthly" in view
        ? [{ name: view.monthly, period: "date_trunc('month', day)::date", grain: "month_start" }]
        : []),
    ];
    for (const pair of pairs) {
      const rows = await harness.warehouse.query<{ line: string | null }>(
        `select case when v.id is null or i.id is null
                       or v.streams is distinct from i.streams
                       or v.downloads is distinct from i.downloads
                     then concat_ws(' ', '${pair.name}', coalesce(v.period, i.period)::text,
                                    coalesce(v.id, i.id), v.streams || '/' || v.downloads,
                                    'against', i.streams || '/' || i.downloads) end as line
           from (select ${pair.grain} as period, ${view.id} as id, streams, downloads
                   from ${pair.name}) v
           full join (${fromItems(view.selection, pair.period, units)}) i
             on i.period = v.period and i.id = v.id`,
      );
      compared += rows.length;
      differences.push(...rows.flatMap((r) => (r.line ? [r.line] : [])));
    }
  }
  return { differences, compared };
}

async function count(sqlText: string): Promise<number> {
  const [row] = await harness.warehouse.query<{ n: number | string }>(sqlText);
  return Number(row?.n ?? -1);
}

const STALE = "select count(*)::int as n from sales.trend_item_stale_days";

beforeAll(async () => {
  harness = await renamedFieldsSync("analytics_rollups", RANGE);
});

afterAll(() => harness?.close());

describe("the sales roll-ups", () => {
  it("are rolled up by the sync, every day of every selection type, and the views read them", async () => {
    expect(await count(STALE)).toBe(0);
    expect(
      await count(
        `select count(*)::int as n from (select distinct selection_type, day, item_id
                                            from sales.trend_items) i`,
      ),
    ).toBe(await count("select count(*)::int as n from sales.trend_item_days"));
    const { differences, compared } = await viewsAgainstItems();
    expect(compared).toBeGreaterThan(100);
    expect(differences).toEqual([]);
  });

  it("follow a change of the items at once: a day written since is read from the items until rolled up", async () => {
    const rolledUp = `select sum(streams)::bigint as n from sales.trend_item_days
                       where selection_type = 'product' and day = '${RANGE.from}'`;
    const before = await count(rolledUp);
    await harness.warehouse.query(
      `update sales.trend_items set units = units * 3
        where selection_type = 'product' and sale_type = 'stream' and day = $1`,
      [RANGE.from],
    );
    await harness.warehouse.query(
      `delete from sales.trend_items
        where selection_type = 'asset' and day = $1 and item_id in
              (select item_id from sales.trend_items where selection_type = 'asset' and day = $1
                order by item_id limit 3)`,
      [RANGE.to],
    );
    // Both days marked, the roll-up as it was: the views answer from the items.
    expect(await count(STALE)).toBeGreaterThanOrEqual(2);
    expect(await count(rolledUp)).toBe(before);
    expect((await viewsAgainstItems()).differences).toEqual([]);

    const rolled = await rollUpStaleDays(harness.warehouse.db);
    expect(rolled).toEqual({ days: 2, months: 2 });
    expect(await count(STALE)).toBe(0);
    expect(await count(rolledUp)).toBe(before * 3);
    expect((await viewsAgainstItems()).differences).toEqual([]);
  });

  it("are summed again through a new units column when the role changes, every day", async () => {
    await harness.warehouse.query("alter table sales.trend_items add column doubled bigint");
    await harness.warehouse.query("update sales.trend_items set doubled = units * 2");
    try {
      const settled = await settleRoles(harness.warehouse.db, { trend_item_units: "doubled" });
      expect(settled.rebuilt).toContain("sales.trend_item_days");
      expect(settled.rolledUp.days).toBe(
        await count(
          "select count(*)::int as n from (select distinct selection_type, day from sales.trend_items) d",
        ),
      );
      expect((await viewsAgainstItems("doubled")).differences).toEqual([]);
    } finally {
      await settleRoles(harness.warehouse.db, {});
      await harness.warehouse.query("alter table sales.trend_items drop column doubled");
    }
    expect((await viewsAgainstItems()).differences).toEqual([]);
  });

  it("count a list the entity is missing from as 0, and an item without readable units as unknown", async () => {
    const day = RANGE.from;
    // Two products listed in both lists that day, each with its units: what changes is ours.
    const [a, b] = await harness.warehouse.query<{ id: string }>(
      `select s.item_id as id from sales.trend_items s
         join sales.trend_items d on d.day = s.day and d.selection_type = s.selection_type
          and d.item_id = s.item_id and d.sale_type = 'download' and d.units is not null
        where s.selection_type = 'product' and s.day = $1 and s.sale_type = 'stream'
          and s.units is not null order by s.item_id limit 2`,
      [day],
    );
    expect(b).toBeDefined();
    const [label] = await harness.warehouse.query<{ column: string }>(
      `select column_name as column from etl.roles
        where role = 'trend_item_label' and scope = 'product'`,
    );
    expect(label?.column).toBeTruthy();
    const figures = async () =>
      harness.warehouse.query<{
        id: string;
        name: string | null;
        streams: string | null;
        downloads: string | null;
      }>(
        `select product_id::text as id, reported_name as name, streams::text, downloads::text
           from analytics.daily_sales_by_product
          where day = $1 and product_id::text = any($2) order by 1`,
        [day, [a?.id, b?.id]],
      );
    const item = async (id: string | undefined, sale: string) => {
      const [row] = await harness.warehouse.query<{ units: string; name: string | null }>(
        `select units::text, ${label?.column}::text as name from sales.trend_items
          where selection_type = 'product' and day = $1 and sale_type = $2 and item_id = $3`,
        [day, sale, id],
      );
      return row;
    };
    const aStream = await item(a?.id, "stream");
    const bDownloads = (await item(b?.id, "download"))?.units;
    const bStreams = (await item(b?.id, "stream"))?.units;
    const bName = (await figures()).find((row) => row.id === b?.id)?.name;
    await harness.warehouse.query(
      `create table public.missing_item as select * from sales.trend_items
        where selection_type = 'product' and day = $1 and sale_type = 'download' and item_id = $2`,
      [day, a?.id],
    );
    try {
      await harness.warehouse.query(
        `delete from sales.trend_items where selection_type = 'product' and day = $1
            and sale_type = 'download' and item_id = $2`,
        [day, a?.id],
      );
      await harness.warehouse.query(
        `update sales.trend_items set units = null where selection_type = 'product'
            and day = $1 and sale_type = 'stream' and item_id = $2`,
        [day, b?.id],
      );
      // A's name is now its stream item's alone.
      const expected = [
        { id: a?.id, name: aStream?.name, streams: aStream?.units, downloads: "0" },
        { id: b?.id, name: bName, streams: null, downloads: bDownloads },
      ];
      // Read from the items while the day is stale, then from the roll-up: the same.
      expect(await figures()).toEqual(expected);
      await rollUpStaleDays(harness.warehouse.db);
      expect(await figures()).toEqual(expected);
      const [month] = await harness.warehouse.query<{ streams: string | null }>(
        `select streams::text from analytics.monthly_sales_by_product
          where month_start = date_trunc('month', $1::date) and product_id::text = $2`,
        [day, b?.id],
      );
      expect(month).toEqual({ streams: null });
    } finally {
      await harness.warehouse.query(
        `update sales.trend_items set units = $3 where selection_type = 'product'
            and day = $1 and sale_type = 'stream' and item_id = $2`,
        [day, b?.id, bStreams],
      );
      await harness.warehouse.query(
        "insert into sales.trend_items select * from public.missing_item",
      );
      await harness.warehouse.query("drop table public.missing_item");
    }
    await rollUpStaleDays(harness.warehouse.db);
    expect((await viewsAgainstItems()).differences).toEqual([]);
  });

  it("count a period back from analytics.latest_sales_day(), the latest day of the lists", async () => {
    const [latest] = await harness.warehouse.query<{ day: string }>(
      "select analytics.latest_sales_day()::text as day",
    );
    expect(latest?.day).toBe(RANGE.to);
    const lastTwo = await count(
      `select count(*)::int as n from analytics.asset_daily_streams
        where day > analytics.latest_sales_day() - 2`,
    );
    expect(lastTwo).toBe(
      await count(
        `select count(distinct (day, item_id))::int as n from sales.trend_items
          where selection_type = 'asset' and day > date '${RANGE.to}' - 2`,
      ),
    );
    expect(lastTwo).toBeGreaterThan(0);
  });

  it("that cannot be summed are a warning naming them, and the views stay exact meanwhile", async () => {
    await harness.warehouse.query(
      `update sales.trend_items set units = units + 1
        where selection_type = 'dsp' and sale_type = 'stream' and day = $1`,
      [RANGE.to],
    );
    // A writer's lock on the daily roll-up: the views can be built, the days not summed.
    const holder = new pg.Client(pgConnectionConfig(harness.warehouse.url));
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("lock table sales.trend_item_days in share mode");
      const settled = await settleRoles(harness.warehouse.db, {}, null, {
        lockTimeoutMs: 50,
        attempts: 2,
      });
      expect(settled.rolledUp).toEqual({ days: 0, months: 0 });
      expect(settled.warnings).toEqual([
        expect.stringMatching(
          /^the sales roll-ups could not be summed; the views read the stale days/,
        ),
      ]);
      expect(await count(STALE)).toBeGreaterThanOrEqual(1);
      expect((await viewsAgainstItems()).differences).toEqual([]);
    } finally {
      await holder.query("rollback");
      await holder.end();
    }
    expect((await rollUpStaleDays(harness.warehouse.db)).days).toBe(1);
    expect((await viewsAgainstItems()).differences).toEqual([]);
  });

  it.each([
    ["the items alone", "sales.trend_items cascade"],
    ["the items and a roll-up in one statement", "sales.trend_items, sales.trend_item_days"],
  ])("are emptied with the items they were rolled up from: a truncate of %s", async (_, tables) => {
    await harness.warehouse.query("begin");
    try {
      // A day written since it was rolled up: a mark beside the roll-ups' rows.
      await harness.warehouse.query(
        `update sales.trend_items set units = units + 1
          where selection_type = 'dsp' and sale_type = 'stream' and day = $1`,
        [RANGE.to],
      );
      expect(await count(STALE)).toBeGreaterThan(0);
      expect(await count("select count(*)::int as n from sales.trend_item_months")).toBeGreaterThan(
        0,
      );
      await harness.warehouse.query(`truncate ${tables}`);
      for (const table of ["trend_item_days", "trend_item_months", "trend_item_stale_days"]) {
        expect(await count(`select count(*)::int as n from sales.${table}`), table).toBe(0);
      }
    } finally {
      await harness.warehouse.query("rollback");
    }
  });
});
