import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

/** The public contract: BI users and outside checks depend on these tables, keys and columns. */
const CONTRACT: Record<string, { key: string[]; columns: string[] }> = {
  "catalogue.products": { key: ["product_id"], columns: ["upc", "raw", "synced_at"] },
  "catalogue.assets": { key: ["asset_id"], columns: ["product_id", "isrc", "raw"] },
  "catalogue.artists": {
    key: ["artist_id"],
    columns: ["name", "organization_id", "proprietary_id", "social_artist_id", "raw"],
  },
  "catalogue.territories": { key: ["code"], columns: ["name", "raw"] },
  "catalogue.dsps": { key: ["dsp_id"], columns: ["name", "code", "state", "raw"] },
  "sales.trend_totals": {
    key: ["day", "selection_type"],
    columns: ["stream_count", "download_count", "stream_percentage", "download_percentage"],
  },
  "sales.trend_items": {
    key: ["day", "selection_type", "sale_type", "item_id"],
    columns: ["raw"],
  },
  "sales.trend_chart_points": {
    key: ["day", "selection_type", "sale_type", "series_position"],
    columns: ["series", "total"],
  },
  "artist_stats.artists": { key: ["artist_id"], columns: ["name", "raw"] },
  "artist_stats.platform_stats": {
    key: ["artist_id", "source", "metric", "day"],
    columns: ["value", "raw"],
  },
  "artist_stats.cm_stats": { key: ["artist_id", "snapshot_date", "element"], columns: ["raw"] },
  "artist_stats.urls": { key: ["artist_id", "domain", "url"], columns: [] },
  "artist_stats.audience_stats": {
    key: ["artist_id", "domain", "snapshot_date", "element"],
    columns: ["raw"],
  },
  "artist_stats.social_audience_stats": {
    key: ["artist_id", "domain", "audience_type", "stats_type", "snapshot_date", "position"],
    columns: ["raw"],
  },
  "artist_stats.video_market_coverage": {
    key: ["artist_id", "snapshot_date", "element"],
    columns: ["raw"],
  },
  "artist_stats.playlist_placements": {
    key: ["artist_id", "kind", "platform", "status", "playlist_key", "snapshot_date"],
    columns: ["raw"],
  },
  "artist_stats.radio_airplays": {
    key: ["artist_id", "snapshot_date", "position"],
    columns: ["raw"],
  },
  "artist_stats.radio": { key: ["artist_id", "snapshot_date", "position"], columns: ["raw"] },
  "artist_stats.chart_entries": {
    key: ["chart_date", "country_code", "genre", "rank"],
    columns: ["raw"],
  },
  "royalties.payouts": {
    key: ["payout_id"],
    columns: [
      "user_id",
      "amount",
      "currency",
      "fees",
      "net_amount",
      "wallet",
      "status",
      "method",
      "reference",
      "created_at",
      "processed_at",
      "notes",
      "idempotency_key",
      "raw",
      "first_seen_at",
      "last_seen_at",
    ],
  },
  "royalties.payout_status_history": { key: ["payout_id", "observed_at"], columns: ["status"] },
  "royalties.incomes": { key: ["income_key"], columns: ["raw", "synced_at"] },
  "royalties.invoices": { key: ["invoice_key", "snapshot_date"], columns: ["raw"] },
  "etl.attempts": {
    key: ["attempt_id"],
    columns: [
      "stream",
      "partition",
      "started_at",
      "finished_at",
      "status",
      "requests",
      "rows_written",
      "error",
    ],
  },
  "etl.stream_state": { key: ["stream", "partition"], columns: ["checkpoint", "last_success_at"] },
};

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("contract");
});

afterAll(() => warehouse.drop());

describe("the warehouse contract", () => {
  it.each(Object.entries(CONTRACT))(
    "%s has its key and required columns",
    async (table, { key, columns }) => {
      const [schema, name] = table.split(".");
      const primaryKey = await warehouse.query<{ column: string }>(
        `select a.attname as column
         from pg_index i
         join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
         join lateral unnest(i.indkey) with ordinality as k(attnum, ord) on true
         join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        where i.indisprimary and n.nspname = $1 and c.relname = $2
        order by k.ord`,
        [schema, name],
      );
      expect(primaryKey.map((r) => r.column)).toEqual(key);
      const present = await warehouse.query<{ column_name: string }>(
        "select column_name from information_schema.columns where table_schema = $1 and table_name = $2",
        [schema, name],
      );
      const names = present.map((r) => r.column_name);
      expect(names).toEqual(expect.arrayContaining(columns));
      if (schema !== "etl") expect(names).toContain("synced_at");
    },
  );

  it("keeps money with every decimal it came with, counts as bigint, days as date and instants as timestamptz", async () => {
    const types = await warehouse.query<{ column: string; type: string }>(
      `select table_schema || '.' || table_name || '.' || column_name as column,
              case when data_type = 'numeric' and numeric_precision is not null
                     then 'numeric(' || numeric_precision || ',' || numeric_scale || ')'
                   else data_type end as type
         from information_schema.columns
        where (table_schema, table_name, column_name) in (
          ('royalties', 'payouts', 'amount'), ('royalties', 'payouts', 'fees'), ('royalties', 'payouts', 'net_amount'),
          ('royalties', 'payouts', 'wallet'), ('sales', 'trend_totals', 'stream_count'), ('sales', 'trend_items', 'day'),
          ('royalties', 'payouts', 'created_at'), ('etl', 'attempts', 'started_at'))
        order by 1`,
    );
    expect(Object.fromEntries(types.map((t) => [t.column, t.type]))).toEqual({
      "etl.attempts.started_at": "timestamp with time zone",
      "royalties.payouts.amount": "numeric",
      "royalties.payouts.created_at": "timestamp with time zone",
      "royalties.payouts.fees": "numeric",
      "royalties.payouts.net_amount": "numeric",
      "royalties.payouts.wallet": "numeric",
      "sales.trend_items.day": "date",
      "sales.trend_totals.stream_count": "bigint",
    });
  });
});
