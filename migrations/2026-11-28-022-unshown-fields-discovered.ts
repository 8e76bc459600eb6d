import { type Kysely, sql } from "kysely";

/**
 * The catalogue's, the royalties' and the trend list's tables keep typed columns for what the
 * spec shows (a product's id and upc, an asset's id and isrc), their keys and their scope (an
 * income's month): the others were named by our guesses, and stayed null against upstreams that
 * name the fields otherwise. Every other field is a discovered column now (migration 020), named
 * as the upstream names it, added and filled from each row's `raw` by the next sync or
 * `etl replay`; until then, the values are in `raw`. The sales views read a list item's count and
 * name, and a product's and a track's title, from `raw` by the names they document, and keep
 * their columns (BI queries on them go on working).
 */

/** The columns each table declared from a guess of the upstream's field names. */
const GUESSED: Readonly<Record<string, readonly string[]>> = {
  "catalogue.products": [
    "title",
    "label_name",
    "label_id",
    "release_date",
    "artist_id",
    "artist_name",
    "genre",
    "format",
  ],
  "catalogue.assets": ["title", "duration_seconds", "track_number", "explicit"],
  "royalties.incomes": [
    "period",
    "source",
    "dsp_name",
    "territory_code",
    "amount",
    "currency",
    "created_at",
  ],
  "royalties.invoices": ["invoice_number", "period", "issued_at", "currency", "total", "lines"],
  "sales.trend_items": ["item_name", "count", "percentage"],
};

/** An item's count in `raw` when it is a whole number (sent as one or as its text), else null. */
const COUNT = sql`case when raw ->> 'count' ~ '^-?[0-9]{1,18}$' then (raw ->> 'count')::bigint end`;

/** A text of `raw`, non-empty, else null. */
const textAt = (field: string) => sql`nullif(raw ->> ${sql.lit(field)}, '')`;

/**
 * Streams and downloads side by side, per day and entity of one selection type. A sale type
 * listed that day whose items carry no readable count is null, not 0: unknown, not none.
 */
function dailySales(selectionType: string) {
  const total = (sale: string) =>
    sql`(case when bool_or(sale_type = ${sql.lit(sale)})
              then sum(units) filter (where sale_type = ${sql.lit(sale)}) else 0 end)::bigint`;
  return sql`
    select day,
           item_id,
           case when item_id ~ '^[0-9]{1,18}$' then item_id::bigint end as numeric_id,
           max(reported_name) as reported_name,
           ${total("stream")} as streams,
           ${total("download")} as downloads
      from (select day, item_id, sale_type, ${textAt("name")} as reported_name, ${COUNT} as units
              from sales.trend_items
             where selection_type = ${sql.lit(selectionType)}) items
     group by day, item_id`;
}

const VIEWS = {
  "analytics.daily_sales_by_dsp": sql`
    select s.day, s.numeric_id as dsp_id, d.name as dsp_name, s.reported_name, s.streams, s.downloads
      from (${dailySales("dsp")}) s
      left join catalogue.dsps d on d.dsp_id = s.numeric_id`,
  "analytics.daily_sales_by_territory": sql`
    select s.day, s.item_id as territory_code, t.name as territory_name, s.reported_name,
           s.streams, s.downloads
      from (${dailySales("territory")}) s
      left join catalogue.territories t on t.code = s.item_id`,
  "analytics.daily_sales_by_product": sql`
    select s.day, s.numeric_id as product_id, p.upc, nullif(p.raw ->> 'title', '') as title,
           s.reported_name, s.streams, s.downloads
      from (${dailySales("product")}) s
      left join catalogue.products p on p.product_id = s.numeric_id`,
  "analytics.asset_daily_streams": sql`
    select s.day, s.numeric_id as asset_id, a.isrc, nullif(a.raw ->> 'title', '') as title,
           a.product_id, s.reported_name, s.streams, s.downloads
      from (${dailySales("asset")}) s
      left join catalogue.assets a on a.asset_id = s.numeric_id`,
};

const UNSHOWN =
  "a field the spec does not show; an upstream that names it otherwise has it in sales.trend_items' discovered columns";
const COLUMN_COMMENTS: readonly (readonly [string, string, string])[] = [
  ...Object.keys(VIEWS).flatMap((view) => [
    [
      view,
      "reported_name",
      `The entity's name as the sales trends reported it that day: the list item's name in raw (${UNSHOWN}).`,
    ] as const,
    [
      view,
      "streams",
      `Streams that day: the stream list items' count in raw, a whole number (${UNSHOWN}). 0 when the upstream listed only downloads for the entity that day; null when it listed streams without a readable count.`,
    ] as const,
    [
      view,
      "downloads",
      `Downloads that day: the download list items' count in raw, as streams. 0 when the upstream listed only streams for the entity that day; null when it listed downloads without a readable count.`,
    ] as const,
  ]),
  [
    "analytics.daily_sales_by_product",
    "title",
    "The product's title: title in catalogue.products' raw (a field the spec does not show); null when the product is not in the catalogue or has no title by that name (see reported_name).",
  ],
  [
    "analytics.asset_daily_streams",
    "title",
    "The track's title: title in catalogue.assets' raw (a field the spec does not show); null when the asset is not in the catalogue or has no title by that name (see reported_name).",
  ],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  // The same columns as before, read from raw: the weekly and monthly views built on
  // daily_sales_by_dsp stay, and so do the grants.
  for (const [view, query] of Object.entries(VIEWS)) {
    await sql`create or replace view ${sql.table(view)} as ${query}`.execute(db);
  }
  for (const [view, column, text] of COLUMN_COMMENTS) {
    const [schema, name] = view.split(".") as [string, string];
    await sql`comment on column ${sql.id(schema, name, column)} is ${sql.lit(text)}`.execute(db);
  }
  for (const [table, columns] of Object.entries(GUESSED)) {
    await sql`alter table ${sql.table(table)} ${sql.join(
      columns.map((column) => sql`drop column ${sql.ref(column)}`),
    )}`.execute(db);
  }
}

export function down(): Promise<void> {
  // The dropped columns' values are in raw, and in the discovered columns made since: a guessed
  // column brought back would be empty, and would hide nothing but the upstream's own names.
  return Promise.reject(new Error("2026-11-28-022-unshown-fields-discovered cannot be undone"));
}
