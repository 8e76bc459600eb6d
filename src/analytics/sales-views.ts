import { sql } from "kysely";
import type { AnalyticsObject } from "./analytics-object.js";
import type { ResolvedRoles } from "./resolved-roles.js";
import { ASSET_TITLE, PRODUCT_TITLE, TREND_ITEM_LABEL, TREND_ITEM_UNITS } from "./roles.js";
import { itemDays, itemMonths } from "./sales-rollups.js";

const SALES_NOTE =
  "One row per (day, entity) the upstream reported sales for; an entity without sales that day has no row. Read from the daily roll-up (sales.trend_item_days), a day whose items changed since from the items themselves: exact either way. Filter on day or on the entity's id: both reach an index.";

const MONTHLY_NOTE =
  "One row per (month, entity) the upstream reported sales for. Read from the monthly roll-up (sales.trend_item_months), a month with a day changed since from its days: exact either way. Filter on month_start or on the entity's id: both reach an index. For a range of days, or the name the trends reported, read the daily view.";

/** An entity's columns of the catalogue, and the views that join them. */
interface SalesView {
  /** The daily view's name, and the monthly one's where there is one. */
  readonly name: string;
  readonly monthly?: string;
  readonly selection: string;
  readonly entity: string;
  /** The entity's columns, from the roll-up's `s` and what `join` brings. */
  readonly select: (roles: ResolvedRoles) => ReturnType<typeof sql>;
  readonly join: ReturnType<typeof sql>;
  readonly columns: (roles: ResolvedRoles) => Record<string, string>;
}

function units(roles: ResolvedRoles, selection: string, sale: string): string {
  return roles.source(TREND_ITEM_UNITS, [`${selection}.${sale}`]);
}

function dailyColumns(roles: ResolvedRoles, selection: string): Record<string, string> {
  return {
    day: "The day the figures cover (UTC calendar day of the upstream's report).",
    reported_name: `The entity's name as the sales trends reported it that day: ${roles.source(TREND_ITEM_LABEL, [selection])}.`,
    streams: `Streams that day, the sum of the stream list items' units: ${units(roles, selection, "stream")}. 0 when the upstream listed only downloads for the entity that day; null when it listed streams without a readable whole number.`,
    downloads: `Downloads that day, the sum of the download list items' units: ${units(roles, selection, "download")}. 0 when the upstream listed only streams for the entity that day; null when it listed downloads without a readable whole number.`,
  };
}

function monthlyColumns(roles: ResolvedRoles, selection: string): Record<string, string> {
  return {
    month_start: "The month's first day (UTC calendar days of the upstream's reports).",
    streams: `Streams in the month, the sum of its days' (${units(roles, selection, "stream")}); null when one day's is unknown.`,
    downloads: `Downloads in the month, the sum of its days' (${units(roles, selection, "download")}); null when one day's is unknown.`,
    days_listed: "Days of the month the upstream listed the entity on.",
  };
}

const VIEWS: readonly SalesView[] = [
  {
    name: "analytics.daily_sales_by_dsp",
    selection: "dsp",
    entity: "DSP (store or streaming platform), with its name from catalogue.dsps",
    select: () => sql`s.numeric_id as dsp_id, d.name as dsp_name`,
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
    select: () => sql`s.item_id as territory_code, t.name as territory_name`,
    join: sql`left join catalogue.territories t on t.code = s.item_id`,
    columns: () => ({
      territory_code: "Two-letter country code (catalogue.territories.code).",
      territory_name:
        "The country's name in catalogue.territories; null when the territory look-ups did not return it (see reported_name).",
    }),
  },
  {
    name: "analytics.daily_sales_by_product",
    monthly: "analytics.monthly_sales_by_product",
    selection: "product",
    entity: "product (release), with its UPC and title from catalogue.products",
    select: (roles) =>
      sql`s.numeric_id as product_id, p.upc, ${roles.value(PRODUCT_TITLE, "", "p")} as title`,
    join: sql`left join catalogue.products p on p.product_id = s.numeric_id`,
    columns: (roles) => ({
      product_id: "The product's id (catalogue.products.product_id).",
      upc: "The product's UPC or EAN in catalogue.products; null when the product is not in the catalogue (not found by the configured UPC look-ups).",
      title: `The product's title: ${roles.source(PRODUCT_TITLE)}. Null when the product is not in the catalogue.`,
    }),
  },
  {
    name: "analytics.asset_daily_streams",
    monthly: "analytics.monthly_sales_by_asset",
    selection: "asset",
    entity: "asset (track), with its ISRC and title from catalogue.assets",
    select: (roles) =>
      sql`s.numeric_id as asset_id, a.isrc, ${roles.value(ASSET_TITLE, "", "a")} as title,
          a.product_id`,
    join: sql`left join catalogue.assets a on a.asset_id = s.numeric_id`,
    columns: (roles) => ({
      asset_id: "The asset's id (catalogue.assets.asset_id).",
      isrc: "The track's ISRC in catalogue.assets; null when the asset is not in the catalogue.",
      title: `The track's title: ${roles.source(ASSET_TITLE)}. Null when the asset is not in the catalogue.`,
      product_id:
        "The product the asset belongs to (catalogue.products.product_id); null when the asset is not in the catalogue.",
    }),
  },
];

const SOURCE = (selection: string) =>
  `from sales.trend_items (selection type ${selection}): the typed columns the roles resolved to (etl.roles; \`etl roles\`)`;

function dailyView(roles: ResolvedRoles, view: SalesView): AnalyticsObject {
  return {
    name: view.name,
    kind: "view",
    definition: sql`select s.day, ${view.select(roles)}, s.reported_name, s.streams, s.downloads
      from (${itemDays(roles, view.selection)}) s ${view.join}`,
    comment: `Streams and downloads per day and ${view.entity}, side by side, ${SOURCE(view.selection)}. ${SALES_NOTE}`,
    columns: { ...dailyColumns(roles, view.selection), ...view.columns(roles) },
  };
}

function monthlyView(roles: ResolvedRoles, view: SalesView, name: string): AnalyticsObject {
  return {
    name,
    kind: "view",
    definition: sql`select s.month_start, ${view.select(roles)}, s.streams, s.downloads,
             s.days_listed
      from (${itemMonths(roles, view.selection)}) s ${view.join}`,
    comment: `Streams and downloads per month and ${view.entity}, side by side, ${SOURCE(view.selection)}. ${MONTHLY_NOTE}`,
    columns: { ...monthlyColumns(roles, view.selection), ...view.columns(roles) },
  };
}

/** The daily and monthly sales views, built from the roles. */
export function salesViews(roles: ResolvedRoles): AnalyticsObject[] {
  return VIEWS.flatMap((view) => [
    dailyView(roles, view),
    ...(view.monthly ? [monthlyView(roles, view, view.monthly)] : []),
  ]);
}
