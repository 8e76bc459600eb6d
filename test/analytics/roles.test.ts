import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settleRoles } from "../../src/analytics/settle-roles.js";
import { rebuildFromRecorded } from "../../src/analytics/build-analytics.js";
import { evolveTable } from "../../src/columns/discovered-columns.js";
import { SCHEMA_LOCK_WAIT } from "../../src/warehouse/lock-wait.js";
import { renamedFieldsSync } from "../helpers/shape-variant-suite.js";
import type { SyncHarness } from "../helpers/sync-harness.js";
import { until } from "../helpers/until.js";
import { withReaderClient } from "../helpers/reader-client.js";

// The roles of the analytics views against an upstream that names every unshown field its own
// way (the sandbox's renamed-fields variant): each resolved from the data to the typed column
// that carries it, the configuration winning, an ambiguity warned of, and a change of column
// rebuilding the views under a reader's open query.

const RANGE = { from: "2026-01-03", to: "2026-01-05" };
const ORIGIN = { stream: "trend_items", partition: "test", attemptId: "0" };

let harness: SyncHarness;

/** Each role and scope, with the column it resolved to and how. */
async function roles(): Promise<Record<string, string>> {
  const rows = await harness.warehouse.query<{ key: string; resolved: string }>(
    `select concat_ws('.', role, nullif(scope, '')) as key,
            coalesce(column_name, '-') || ' ' || how as resolved
       from etl.roles order by 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, r.resolved]));
}

/** Days and selection types whose view's streams or downloads differ from the totals. */
async function salesGaps(): Promise<string[]> {
  const views = [
    ["dsp", "analytics.daily_sales_by_dsp"],
    ["territory", "analytics.daily_sales_by_territory"],
    ["product", "analytics.daily_sales_by_product"],
    ["asset", "analytics.asset_daily_streams"],
  ];
  const gaps: string[] = [];
  for (const [selection, view] of views) {
    const rows = await harness.warehouse.query<{ gap: string }>(
      `select t.day::text || ' ' || $1 || ': ' || coalesce(v.streams::text, 'null') || '/' ||
              coalesce(v.downloads::text, 'null') || ' against ' || t.stream_count || '/' ||
              t.download_count as gap
         from sales.trend_totals t
         left join (select day, sum(streams) as streams, sum(downloads) as downloads
                      from ${view} group by day) v on v.day = t.day
        where t.selection_type = $1 and t.day between $2 and $3
          and (v.streams is distinct from t.stream_count
               or v.downloads is distinct from t.download_count)`,
      [selection, RANGE.from, RANGE.to],
    );
    gaps.push(...rows.map((r) => r.gap));
  }
  return gaps;
}

/**
 * Runs `use` with one more discovered column of sales.trend_items, a copy of the units (as
 * `type`) for the field `field`; then takes it away, the views first set back on the units.
 */
async function withUnitsCopy(
  column: string,
  field: string,
  type: "bigint" | "text",
  use: () => Promise<void>,
): Promise<void> {
  await harness.warehouse.query(`alter table sales.trend_items add column ${column} ${type}`);
  await harness.warehouse.query(`update sales.trend_items set ${column} = units::${type}`);
  await harness.warehouse.query(
    `insert into etl.discovered_columns (table_name, column_name, field, data_type)
     values ('sales.trend_items', $1, $2, $3)`,
    [column, [field], type],
  );
  try {
    await use();
  } finally {
    await harness.warehouse.query(`delete from etl.discovered_columns where column_name = $1`, [
      column,
    ]);
    await settleRoles(harness.warehouse.db, { trend_item_units: "units" });
    await harness.warehouse.query(`alter table sales.trend_items drop column ${column}`);
    await settleRoles(harness.warehouse.db, {});
  }
}

beforeAll(async () => {
  harness = await renamedFieldsSync("analytics_roles", RANGE);
});

afterAll(() => harness?.close());

describe("the roles, against an upstream that names its fields otherwise", () => {
  it("are each inferred to the column that carries the meaning, and the views add up", async () => {
    const resolved = await roles();
    for (const scope of ["dsp", "territory", "label", "product", "asset"]) {
      expect(resolved[`trend_item_units.${scope}.stream`]).toBe("units inferred");
      expect(resolved[`trend_item_units.${scope}.download`]).toBe("units inferred");
      expect(resolved[`trend_item_label.${scope}`]).toBe("label inferred");
    }
    expect(resolved.product_title).toBe("display_title inferred");
    expect(resolved.asset_title).toBe("display_title inferred");
    expect(resolved.reported_change).toBe("daily_diff inferred");
    expect(resolved.playlist_followers).toBe("playlist__follower_count inferred");
    expect(resolved.placement_removed_at).toBe("playlist__removed_at inferred");
    expect(await salesGaps()).toEqual([]);
    const [untitled] = await harness.warehouse.query<{ n: number }>(
      `select count(*)::int as n from analytics.daily_sales_by_product v
         join catalogue.products p using (product_id) where v.title is distinct from p.display_title`,
    );
    expect(untitled?.n).toBe(0);
  });

  it("record their evidence, every candidate with what it matched", async () => {
    const [row] = await harness.warehouse.query<{ evidence: { candidates: unknown[] } }>(
      `select evidence from etl.roles where role = 'trend_item_units' and scope = 'product.stream'`,
    );
    expect(row?.evidence.candidates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ column: "units", verdict: "chosen", matched: 3, checked: 3 }),
        expect.objectContaining({ column: "share", verdict: "lost", matched: 0 }),
      ]),
    );
  });

  it("follow the configuration over the data, and change back, each change an event", async () => {
    const before = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from etl.role_changes",
    );
    const configured = await settleRoles(harness.warehouse.db, { product_title: "labelName" });
    expect(configured.rebuilt).toContain("analytics.daily_sales_by_product");
    expect((await roles()).product_title).toBe("label_name configured");
    const [labelled] = await harness.warehouse.query<{ n: number }>(
      `select count(*)::int as n from analytics.daily_sales_by_product v
         join catalogue.products p using (product_id) where v.title is distinct from p.label_name`,
    );
    expect(labelled?.n).toBe(0);
    await settleRoles(harness.warehouse.db, {});
    expect((await roles()).product_title).toBe("display_title inferred");
    const changes = await harness.warehouse.query<{ change: string }>(
      `select coalesce(from_column, '-') || ' ' || coalesce(from_how, '-') || ' > ' ||
              to_column || ' ' || to_how as change
         from etl.role_changes where role = 'product_title' and change_id > $1 order by change_id`,
      [before[0]?.n ?? 0],
    );
    expect(changes.map((c) => c.change)).toEqual([
      "display_title inferred > label_name configured",
      "label_name configured > display_title inferred",
    ]);
  });

  it("warn of a role two fields fit alike, their names no help, naming both and the key, its figures null", async () => {
    await withUnitsCopy("quantity", "quantity", "bigint", async () => {
      const settled = await settleRoles(harness.warehouse.db, {});
      const warning = settled.warnings.find((w) => w.includes("trend_item_units.dsp.stream"));
      expect(warning).toContain("ambiguous");
      expect(warning).toContain("units, quantity");
      expect(warning).toContain(`"roles": {"trend_item_units.dsp.stream": "<field>"}`);
      const [dsp] = await harness.warehouse.query<{ rows: number; streams: number }>(
        `select count(*)::int as rows, count(*) filter (where streams > 0)::int as streams
           from analytics.daily_sales_by_dsp`,
      );
      expect(dsp?.rows).toBeGreaterThan(0);
      // Null where the DSP was listed for streams, 0 where it was listed for downloads alone.
      expect(dsp?.streams, "streams counted while the role is ambiguous").toBe(0);
      await harness.warehouse.query(`select etl.check_readings($1::date, $2::date, null)`, [
        RANGE.from,
        RANGE.to,
      ]);
      const checks = await harness.warehouse.query<{ agree: boolean | null; missing: string }>(
        `select agree, missing from analytics.reading_checks
          where selection_type = 'dsp' and sale_type = 'stream' and day between $1 and $2`,
        [RANGE.from, RANGE.to],
      );
      expect(checks.length).toBe(3);
      for (const check of checks) {
        expect(check.agree).toBeNull();
        expect(check.missing).toContain("list: its units are ambiguous");
      }
      const settledBy = await settleRoles(harness.warehouse.db, { trend_item_units: "quantity" });
      expect(settledBy.warnings).toEqual([]);
      expect(await salesGaps()).toEqual([]);
    });
  });

  it("read a count sent as whole-number text (kept as text, as codes are) as a number", async () => {
    await withUnitsCopy("unit_text", "unitText", "text", async () => {
      const settled = await settleRoles(harness.warehouse.db, { trend_item_units: "unitText" });
      expect(settled.warnings).toEqual([]);
      expect((await roles())["trend_item_units.asset.stream"]).toBe("unit_text configured");
      expect(await salesGaps()).toEqual([]);
    });
  });

  it("rebuild the views while a reader holds a query on them: the reader never fails", async () => {
    const titles = "select count(title)::int as n from analytics.daily_sales_by_product";
    try {
      await withReaderClient(harness.warehouse, "bi_roles", async (reader) => {
        await reader.query("begin");
        const held = await reader.query<{ n: number }>(titles);
        expect(held.rows[0]?.n).toBeGreaterThan(0);
        const settling = settleRoles(harness.warehouse.db, { product_title: "primaryGenre" });
        // The rebuild waits for the reader's lock on the view, as a schema change does.
        await until(async () => {
          const [waiting] = await harness.warehouse.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`,
          );
          return (waiting?.n ?? 0) > 0;
        });
        expect((await reader.query<{ n: number }>(titles)).rows[0]?.n).toBe(held.rows[0]?.n);
        await reader.query("commit");
        const settled = await settling;
        expect(settled.rebuilt).toContain("analytics.daily_sales_by_product");
        const [genres] = await harness.warehouse.query<{ n: number }>(
          `select count(*)::int as n from analytics.daily_sales_by_product v
             join catalogue.products p using (product_id) where v.title = p.primary_genre`,
        );
        expect(genres?.n).toBeGreaterThan(0);
        // Its grants kept: the view was replaced, not dropped.
        expect((await reader.query<{ n: number }>(titles)).rows[0]?.n).toBeGreaterThan(0);
      });
    } finally {
      await settleRoles(harness.warehouse.db, {});
    }
  });

  it("let a column they read be widened: the views are set aside and made again as they were", async () => {
    const comment = async () =>
      (
        await harness.warehouse.query<{ c: string | null }>(
          "select col_description('analytics.daily_sales_by_dsp'::regclass, 5) as c",
        )
      )[0]?.c;
    const before = await comment();
    const evolved = await evolveTable(
      harness.warehouse.db as never,
      "sales.trend_items",
      [{ field: ["units"], kind: "numeric" }],
      ORIGIN,
    );
    expect(evolved.changes.map((c) => `${c.column} ${c.from} > ${c.to}`)).toEqual([
      "units bigint > numeric",
    ]);
    expect(await salesGaps()).toEqual([]);
    expect(await comment()).toBe(before);
    // To text, where a sum no longer holds: the views are built again from their roles.
    const toText = await evolveTable(
      harness.warehouse.db as never,
      "sales.trend_items",
      [{ field: ["units"], kind: "text" }],
      ORIGIN,
      SCHEMA_LOCK_WAIT,
      rebuildFromRecorded,
    );
    expect(toText.changes.map((c) => `${c.column} ${c.from} > ${c.to}`)).toEqual([
      "units numeric > text",
    ]);
    expect(await salesGaps()).toEqual([]);
    const [weekly] = await harness.warehouse.query<{ n: number }>(
      "select count(*)::int as n from analytics.weekly_sales",
    );
    expect(weekly?.n).toBeGreaterThan(0);
  });
});
