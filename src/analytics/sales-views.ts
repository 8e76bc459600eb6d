import { sql } from "kysely";
import type { AnalyticsObject } from "./analytics-object.js";
import type { ResolvedRoles } from "./resolved-roles.js";
import { ASSET_TITLE, PRODUCT_TITLE, TREND_ITEM_LABEL, TREND_ITEM_UNITS } from "./roles.js";

const SALES_NOTE =
  "One row per (day, entity) the upstream reported sales for; an entity without sales that day has no row. Filter on day: the filter reaches sales.trend_items' index.";

/** An entity's columns of the catalogue, and the view that joins them. */
interface SalesView {
  readonly name: string;
  readonly selection: string;
  readonly entity: string;
  readonly select: (roles: ResolvedRoles) => ReturnType<typeof sql>;
  readonly join: ReturnType<typeof sql>;
  readonly columns: (roles: ResolvedRoles) => Record<string, string>;
}

/**
 * Streams and downloads side by side, per day and entity of one selection type, from the typed
 * columns the units and label roles resolved to. A sale type listed that day whose items carry
 * no readable units (or whose units are not resolved) is null, not 0: unknown, not none.
 */
function dailySales(roles: ResolvedRoles, selection: string) {
  const scopes = [`${selection}.stream`, `${selection}.download`];
  const units = roles.scopedValue(
    TREND_ITEM_UNITS,
    sql`${sql.lit(selection)} || '.' || sale_type`,
    scopes,
  );
  const total = (sale: string) =>
    sql`(case when bool_or(sale_type = ${sql.lit(sale)})
              then sum(units) filter (where sale_type = ${sql.lit(sale)}) else 0 end)::bigint`;
  return sql`
    select day, item_id,
           case when item_id ~ '^[0-9]{1,18}$' then item_id::bigint end as numeric_id,
           max(reported_name) as reported_name,
           ${total("stream")} as streams,
           ${total("download")} as downloads
      from (select day, item_id, sale_type,
                   ${roles.value(TREND_ITEM_LABEL, selection)} as reported_name,
                   ${units} as units
              from sales.trend_items
             where selection_type = ${sql.lit(selection)}) items
     group by day, item_id`;
}

function salesColumns(roles: ResolvedRoles, selection: string): Record<string, string> {
  const units = (sale: string) => roles.source(TREND_ITEM_UNITS, [`${selection}.${sale}`]);
  return {
    day: "The day the figures cover (UTC calendar day of the upstream's report).",
    reported_name: `The entity's name as the sales trends reported it that day: ${roles.source(TREND_ITEM_LABEL, [selection])}.`,
    streams: `Streams that day, the sum of the stream list items' units: ${units("stream")}. 0 when the upstream listed only downloads for the entity that day; null when it listed streams without a readable whole number.`,
    downloads: `Downloads that day, the sum of the download list items' units: ${units("download")}. 0 when the upstream listed only streams for the entity that day; null when it listed downloads without a readable whole number.`,
  };
}

const VIEWS: readonly SalesView[] = [
  {
    name: "analytics.daily_sales_by_dsp",
    selection: "dsp",
    entity: "DSP (store or streaming platform), with its name from catalogue.dsps",
    select: () =>
      sql`s.day, s.numeric_id as dsp_id, d.name as dsp_name, s.reported_name, s.streams, s.downloads`,
    join: sql`left join catalogue.dsps d on d.dsp_id = s.numeric_id`,
    columns: () => ({
      dsp_id: "The DSP's id (catalogue.dsps.dsp_id).",
      dsp_name:
        "The DSP's name in catalogue.dsps; null when the DSP look-ups did not return it (see reported_name).",
    }),
  },
  {
    name: "analytics.daily_sales_by_territory",
    selection: "territory",
    entity: "territory (country), with its name from catalogue.territories",
    select: () =>
      sql`s.day, s.item_id as territory_code, t.name as territory_name, s.reported_name,
          s.streams, s.downloads`,
    join: sql`left join catalogue.territories t on t.code = s.item_id`,
    columns: () => ({
      territory_code: "Two-letter country code (catalogue.territories.code).",
      territory_name:
        "The country's name in catalogue.territories; null when the territory look-ups did not return it (see reported_name).",
    }),
  },
  {
    name: "analytics.daily_sales_by_product",
    selection: "product",
    entity: "product (release), with its UPC and title from catalogue.products",
    select: (roles) =>
      sql`s.day, s.numeric_id as product_id, p.upc, ${roles.value(PRODUCT_TITLE, "", "p")} as title,
          s.reported_name, s.streams, s.downloads`,
    join: sql`left join catalogue.products p on p.product_id = s.numeric_id`,
    columns: (roles) => ({
      product_id: "The product's id (catalogue.products.product_id).",
      upc: "The product's UPC or EAN in catalogue.products; null when the product is not in the catalogue (not found by the configured UPC look-ups).",
      title: `The product's title: ${roles.source(PRODUCT_TITLE)}. Null when the product is not in the catalogue (see reported_name).`,
    }),
  },
  {
    name: "analytics.asset_daily_streams",
    selection: "asset",
    entity: "asset (track), with its ISRC and title from catalogue.assets",
    select: (roles) =>
      sql`s.day, s.numeric_id as asset_id, a.isrc, ${roles.value(ASSET_TITLE, "", "a")} as title,
          a.product_id, s.reported_name, s.streams, s.downloads`,
    join: sql`left join catalogue.assets a on a.asset_id = s.numeric_id`,
    columns: (roles) => ({
      asset_id: "The asset's id (catalogue.assets.asset_id).",
      isrc: "The track's ISRC in catalogue.assets; null when the asset is not in the catalogue.",
      title: `The track's title: ${roles.source(ASSET_TITLE)}. Null when the asset is not in the catalogue (see reported_name).`,
      product_id:
        "The product the asset belongs to (catalogue.products.product_id); null when the asset is not in the catalogue.",
    }),
  },
];

/** The daily sales views, built from the roles. */
export function salesViews(roles: ResolvedRoles): AnalyticsObject[] {
  return VIEWS.map((view) => ({
    name: view.name,
    kind: "view",
    definition: sql`select ${view.select(roles)} from (${dailySales(roles, view.selection)}) s ${view.join}`,
    comment: `Streams and downloads per day and ${view.entity}, side by side, from sales.trend_items (selection type ${view.selection}): the typed columns the roles resolved to (etl.roles; \`etl roles\`). ${SALES_NOTE}`,
    columns: { ...salesColumns(roles, view.selection), ...view.columns(roles) },
  }));
}
