import { sql } from "kysely";
import type { AnalyticsObject } from "./analytics-object.js";
import type { ResolvedRoles } from "./resolved-roles.js";
import { ASSET_TITLE, PRODUCT_TITLE } from "./roles.js";

const NOTE =
  "Join a sales view's figures, summed by id first, to it for the names: the names of ten rows are read, not of one per day.";

/**
 * The catalogue's products and assets as the views name them: their ids and codes, and the title
 * from the column its role resolved to, whatever the upstream calls it.
 */
export function catalogueViews(roles: ResolvedRoles): AnalyticsObject[] {
  return [
    {
      name: "analytics.products",
      kind: "view",
      definition: sql`select product_id, upc, ${roles.value(PRODUCT_TITLE)} as title
        from catalogue.products`,
      comment: `The catalogue's products (releases), one row each, from catalogue.products. ${NOTE}`,
      columns: {
        product_id: "The product's id (catalogue.products.product_id).",
        upc: "Its UPC or EAN.",
        title: `Its title: ${roles.source(PRODUCT_TITLE)}.`,
      },
    },
    {
      name: "analytics.assets",
      kind: "view",
      definition: sql`select asset_id, isrc, ${roles.value(ASSET_TITLE)} as title, product_id
        from catalogue.assets`,
      comment: `The catalogue's assets (tracks), one row each, from catalogue.assets. ${NOTE}`,
      columns: {
        asset_id: "The asset's id (catalogue.assets.asset_id).",
        isrc: "Its ISRC.",
        title: `Its title: ${roles.source(ASSET_TITLE)}.`,
        product_id: "The product it belongs to (catalogue.products.product_id).",
      },
    },
  ];
}
