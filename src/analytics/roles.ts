import { ROLE_SCOPES, type RoleName } from "../config/role-settings.js";

/**
 * A meaning the analytics views need of a table, whatever the upstream calls the field that
 * carries it: a list item's units, a title, a reported change. Each role resolves to one typed
 * column of its table per scope (resolve-roles.ts): set in the configuration, else inferred from
 * the data by what the API guarantees, with its evidence. A view reads the column a role
 * resolved to, never a field by its name.
 */
export interface Role {
  /** Its name, and the key of `roles` in etl.config.json that sets it. */
  readonly name: RoleName;
  /** The table whose typed columns carry it. */
  readonly table: string;
  /** What it means, for the evidence, the warnings and the views' comments. */
  readonly meaning: string;
  /** The values it takes: a candidate column must hold them. */
  readonly values: RoleValues;
  /**
   * The parts of the table it is resolved in apart (`product.stream`: one selection and sale
   * type), or the one scope "" for the whole table. An upstream may name a field otherwise in
   * one part of its answers.
   */
  readonly scopes: readonly string[];
  /** Columns that are never a candidate: the table's keys and scope, the pipeline's own. */
  readonly excluded: readonly string[];
  /**
   * Words of the field names that usually carry it, for where the data cannot tell two
   * candidates apart: a hint between candidates the data found equal, never a reason alone.
   */
  readonly hint: RegExp;
  /**
   * Whether a view's figure is missing without it. A role that only refines a figure (a change
   * the views can compute, a title beside the catalogue's id) is no warning when the upstream
   * sends no field for it.
   */
  readonly required: boolean;
}

export type RoleValues = "count" | "text" | "number" | "instant";

/** The pipeline's own columns, in every table. */
const OWN = ["raw", "synced_at"];

export const TREND_ITEM_UNITS: Role = {
  name: "trend_item_units",
  table: "sales.trend_items",
  meaning: "a list item's units (streams or downloads)",
  values: "count",
  scopes: ROLE_SCOPES.trend_item_units,
  excluded: ["day", "selection_type", "sale_type", "item_id", ...OWN],
  hint: /count|units|quantity|qty|streams|downloads|total|plays|sales/i,
  required: true,
};

export const TREND_ITEM_LABEL: Role = {
  name: "trend_item_label",
  table: "sales.trend_items",
  meaning: "a list item's label (the entity's name as the trends report it)",
  values: "text",
  scopes: ROLE_SCOPES.trend_item_label,
  excluded: TREND_ITEM_UNITS.excluded,
  hint: /name|title|label/i,
  required: false,
};

export const PRODUCT_TITLE: Role = {
  name: "product_title",
  table: "catalogue.products",
  meaning: "a product's title",
  values: "text",
  scopes: ROLE_SCOPES.product_title,
  excluded: ["product_id", "upc", ...OWN],
  hint: /title|name/i,
  required: false,
};

export const ASSET_TITLE: Role = {
  name: "asset_title",
  table: "catalogue.assets",
  meaning: "an asset's (track's) title",
  values: "text",
  scopes: ROLE_SCOPES.asset_title,
  excluded: ["asset_id", "product_id", "isrc", ...OWN],
  hint: /title|name/i,
  required: false,
};

export const REPORTED_CHANGE: Role = {
  name: "reported_change",
  table: "artist_stats.platform_stats",
  meaning: "a series point's change against the day before, as the upstream reports it",
  values: "number",
  scopes: ROLE_SCOPES.reported_change,
  excluded: ["artist_id", "source", "metric", "day", "value", ...OWN],
  hint: /diff|change|delta|growth/i,
  required: false,
};

export const PLAYLIST_FOLLOWERS: Role = {
  name: "playlist_followers",
  table: "artist_stats.playlist_placements",
  meaning: "a playlist's followers",
  values: "count",
  scopes: ROLE_SCOPES.playlist_followers,
  excluded: ["artist_id", "kind", "platform", "status", "playlist_key", "snapshot_date", ...OWN],
  hint: /follow|subscri|fans|listeners|audience|reach/i,
  required: false,
};

export const PLACEMENT_REMOVED_AT: Role = {
  name: "placement_removed_at",
  table: "artist_stats.playlist_placements",
  meaning: "when a track was taken off a playlist",
  values: "instant",
  scopes: ROLE_SCOPES.placement_removed_at,
  excluded: PLAYLIST_FOLLOWERS.excluded,
  hint: /remov|deleted|dropped|left|ended|until/i,
  required: false,
};

/** Every role the analytics views use, in the order they are resolved and shown. */
export const ROLES: readonly Role[] = [
  TREND_ITEM_UNITS,
  TREND_ITEM_LABEL,
  PRODUCT_TITLE,
  ASSET_TITLE,
  REPORTED_CHANGE,
  PLAYLIST_FOLLOWERS,
  PLACEMENT_REMOVED_AT,
];

/** A role's configuration key for one scope: `trend_item_units.product.stream`. */
export function roleKey(role: Role, scope: string): string {
  return scope === "" ? role.name : `${role.name}.${scope}`;
}
