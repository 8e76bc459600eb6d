import { SALE_TYPES, SELECTION_TYPES, type SelectionType } from "../../src/api/enums.js";
import type { ReconcileScope } from "./reconcile.js";

/**
 * The analytics layer's acceptance checks, against the sandbox's truth and the warehouse's own
 * tables: the sales views add up to the day's totals, the product and asset views carry the
 * catalogue's titles, and every reading check holds its three readings. Each function returns one
 * readable line per difference (empty when the views are right), as warehouseDifferences does.
 */
export type AnalyticsScope = Pick<ReconcileScope, "warehouse" | "data" | "config" | "days">;

/** The sales view of each selection type; label has none. */
const SALES_VIEWS: readonly (readonly [SelectionType, string])[] = [
  ["dsp", "analytics.daily_sales_by_dsp"],
  ["territory", "analytics.daily_sales_by_territory"],
  ["product", "analytics.daily_sales_by_product"],
  ["asset", "analytics.asset_daily_streams"],
];

const MEASURES = [
  { column: "streams", total: "stream_count" },
  { column: "downloads", total: "download_count" },
] as const;

/** A view's sums of one day: how many rows, the sums (null when no row had a value), nulls. */
interface DaySums {
  readonly day: string;
  readonly rows: number;
  readonly streams: string | null;
  readonly downloads: string | null;
  readonly null_streams: number;
  readonly null_downloads: number;
}

/** What a view's sum of one day is, as a failure line says it. */
function describeSum(sums: DaySums | undefined, measure: "streams" | "downloads"): string {
  if (!sums) return "no rows";
  const nulls = measure === "streams" ? sums.null_streams : sums.null_downloads;
  const sum = sums[measure];
  if (sum === null) return `sum NULL (all ${sums.rows} rows null)`;
  return nulls > 0 ? `sum ${sum} (${nulls} of ${sums.rows} rows null)` : `sum ${sum}`;
}

/**
 * For every day of the range and every selection type with a view: the view's streams and
 * downloads add up exactly to the day's totals, as the sandbox serves them and as
 * sales.trend_totals holds them, read from the roll-ups (no day is left stale after a run). A null
 * sum, or a row whose measure is null, is a difference.
 */
export async function salesViewDifferences(scope: AnalyticsScope): Promise<string[]> {
  const { warehouse, data, days } = scope;
  const stored = new Map(
    (
      await warehouse.query<{ key: string; stream_count: string; download_count: string }>(
        `select day::text || '|' || selection_type as key, stream_count::text,
                download_count::text
           from sales.trend_totals where day = any($1::date[])`,
        [days],
      )
    ).map((row) => [row.key, row]),
  );
  const differences: string[] = [];
  // A settled run leaves no day to roll up: the views below read the roll-ups, not the items.
  const [stale] = await warehouse.query<{ n: number }>(
    "select count(*)::int as n from sales.trend_item_stale_days",
  );
  if (stale?.n !== 0) differences.push(`${stale?.n} days left to roll up after the run`);
  for (const [selection, view] of SALES_VIEWS) {
    const sums = new Map(
      (
        await warehouse.query<DaySums>(
          `select day::text as day, count(*)::int as rows,
                  sum(streams)::text as streams, sum(downloads)::text as downloads,
                  count(*) filter (where streams is null)::int as null_streams,
                  count(*) filter (where downloads is null)::int as null_downloads
             from ${view} where day = any($1::date[]) group by day`,
          [days],
        )
      ).map((row) => [row.day, row]),
    );
    for (const day of days) {
      const served = data.trendTotals(day, day, selection);
      const held = stored.get(`${day}|${selection}`);
      for (const { column, total } of MEASURES) {
        const daySums = sums.get(day);
        const sum = daySums ? daySums[column] : "0";
        const nulls = daySums ? daySums[`null_${column}`] : 0;
        const upstream = String(served[total]);
        const warehouseTotal = held?.[total] ?? "no row";
        if (sum === upstream && sum === warehouseTotal && nulls === 0) continue;
        differences.push(
          `${view} ${day} ${column}: ${describeSum(daySums, column)}, upstream totals ${upstream}, sales.trend_totals ${warehouseTotal}`,
        );
      }
    }
  }
  return differences;
}

/** The titles the sandbox serves for the products the config looks up, and for their assets. */
function servedTitles({ data, config }: AnalyticsScope) {
  const products = data.products().filter((p) => config.upcs.some((upc) => p.upc.includes(upc)));
  const titled = (title: unknown): title is string => typeof title === "string" && title !== "";
  return {
    product: new Map(products.filter((p) => titled(p.title)).map((p) => [String(p.id), p.title])),
    asset: new Map(
      products
        .flatMap((p) => p.assets.filter((a) => titled(a.title)))
        .map((a) => [String(a.id), a.title]),
    ),
  };
}

/** The product and asset views, with the column of the entity's id. */
const TITLED_VIEWS = [
  { kind: "product", view: "analytics.daily_sales_by_product", id: "product_id" },
  { kind: "asset", view: "analytics.asset_daily_streams", id: "asset_id" },
] as const;

/**
 * Every product and asset of the catalogue the sync looks up that has a title upstream and
 * appears in its view on a day of the range has exactly that title there. A view in which no
 * such entity appears compares nothing, and says so.
 */
export async function viewTitleDifferences(scope: AnalyticsScope): Promise<string[]> {
  const titles = servedTitles(scope);
  const differences: string[] = [];
  for (const { kind, view, id } of TITLED_VIEWS) {
    const rows = await scope.warehouse.query<{ id: string; title: string | null }>(
      `select distinct ${id}::text as id, title from ${view}
        where day = any($1::date[]) and ${id} is not null order by 1`,
      [scope.days],
    );
    const compared = rows.filter((row) => titles[kind].has(row.id));
    if (compared.length === 0) {
      differences.push(`${view}: no ${kind} of the looked-up catalogue appears, nothing compared`);
    }
    for (const row of compared) {
      const served = titles[kind].get(row.id);
      if (row.title === served) continue;
      differences.push(
        `${view} ${kind} ${row.id}: title ${JSON.stringify(row.title)}, upstream ${JSON.stringify(served)}`,
      );
    }
  }
  return differences;
}

const READINGS = ["total", "items_sum", "chart_total"] as const;

type ReadingRow = {
  readonly key: string;
  readonly agree: boolean | null;
  readonly missing: string | null;
} & Record<(typeof READINGS)[number], string | null>;

/**
 * For every day of the range, selection and sale type: analytics.reading_checks has a row, and
 * it holds all three readings (the totals, the list's sum and the chart's Total), none null,
 * and they agree: the sandbox's three readings of a day are one figure.
 */
export async function readingCheckDifferences(scope: AnalyticsScope): Promise<string[]> {
  const rows = await scope.warehouse.query<ReadingRow>(
    `select concat_ws(' ', day, selection_type, sale_type) as key,
            total::text, items_sum::text, chart_total::text, agree, missing
       from analytics.reading_checks where day = any($1::date[])`,
    [scope.days],
  );
  const checks = new Map(rows.map((row) => [row.key, row]));
  const differences: string[] = [];
  for (const day of scope.days) {
    for (const selection of SELECTION_TYPES) {
      for (const sale of SALE_TYPES) {
        const key = `${day} ${selection} ${sale}`;
        const check = checks.get(key);
        if (!check) {
          differences.push(`analytics.reading_checks ${key}: no check`);
          continue;
        }
        const missing = READINGS.filter((reading) => check[reading] === null);
        const readings = READINGS.map((reading) => `${reading} ${check[reading] ?? "null"}`);
        if (missing.length > 0) {
          differences.push(
            `analytics.reading_checks ${key}: ${missing.join(", ")} null (${readings.join(", ")}; ${check.missing ?? "no reason given"})`,
          );
        } else if (check.agree !== true) {
          differences.push(
            `analytics.reading_checks ${key}: agree ${String(check.agree)} (${readings.join(", ")})`,
          );
        }
      }
    }
  }
  return differences;
}
