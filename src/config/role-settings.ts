import { z } from "zod";
import { SALE_TYPES, SELECTION_TYPES } from "../api/enums.js";

const SALE_SCOPES = SELECTION_TYPES.flatMap((selection) =>
  SALE_TYPES.map((sale) => `${selection}.${sale}`),
);

/**
 * The roles of the analytics views by name, with the scopes each is resolved in apart (none but
 * the whole table: [""]); src/analytics/roles.ts says what each means.
 */
export const ROLE_SCOPES = {
  trend_item_units: SALE_SCOPES,
  trend_item_label: [...SELECTION_TYPES],
  product_title: [""],
  asset_title: [""],
  reported_change: [""],
  playlist_followers: [""],
  placement_removed_at: [""],
} as const satisfies Record<string, readonly string[]>;

export type RoleName = keyof typeof ROLE_SCOPES;

/** Every key `roles` takes: a role's name (all its scopes), or its name and one scope. */
const ROLE_KEYS: readonly string[] = Object.entries(ROLE_SCOPES).flatMap(([name, scopes]) => [
  name,
  ...scopes.filter((scope) => scope !== "").map((scope) => `${name}.${scope}`),
]);

/**
 * `{"trend_item_units": "quantity", "product_title": "releaseTitle"}`: the upstream's field (or
 * the column) that carries a role, where the data cannot tell it or tells it wrong. A role's own
 * scope (`trend_item_units.product.download`) wins over its name alone; both win over inference.
 */
export const roleSettingsSchema = z
  .record(z.string(), z.string().trim().min(1, "must name a field"))
  .default({})
  .superRefine((settings, context) => {
    for (const key of Object.keys(settings)) {
      if (ROLE_KEYS.includes(key)) continue;
      context.addIssue({
        code: "custom",
        path: [key],
        message: `names no role; roles are ${Object.keys(ROLE_SCOPES).join(", ")}, optionally with a scope (trend_item_units.product.stream, trend_item_label.asset)`,
      });
    }
  });
