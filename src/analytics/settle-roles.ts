import type { Kysely } from "kysely";
import { AnalyticsBusyError } from "../errors.js";
import { SCHEMA_LOCK_WAIT, type SchemaLockWait, withLockWait } from "../warehouse/lock-wait.js";
import { errorMessage } from "../errors.js";
import { buildAnalytics } from "./build-analytics.js";
import { type Resolution, warns } from "./role-decision.js";
import { recordResolutions, type RoleChange } from "./role-records.js";
import { ResolvedRoles } from "./resolved-roles.js";
import { type RoleSettings, resolveRoles } from "./resolve-roles.js";
import { roleKey, ROLES } from "./roles.js";
import {
  markRollupsIfRolesChanged,
  NO_ROLL_UP,
  type RollUp,
  rollUpStaleDays,
} from "./sales-rollups.js";

/** What settling the roles found and did. */
export interface Settlement {
  readonly resolutions: readonly Resolution[];
  /** The roles whose column or way of resolution changed: events. */
  readonly changes: readonly RoleChange[];
  /** The views and functions built again. */
  readonly rebuilt: readonly string[];
  /** One line per role a view's figure lacks or is unsure of: warnings. */
  readonly warnings: readonly string[];
  /** The sales roll-ups' stale days summed again. */
  readonly rolledUp: RollUp;
}

/**
 * The stale days rolled up, or the warning of a roll-up that could not be made: the views stay
 * exact (they read a stale day from the items), only slower, and the next settlement tries again.
 */
async function rollUp(
  db: Kysely<unknown>,
  wait: SchemaLockWait,
): Promise<{ rolledUp: RollUp; warnings: string[] }> {
  try {
    return { rolledUp: await rollUpStaleDays(db, wait), warnings: [] };
  } catch (error) {
    return {
      rolledUp: NO_ROLL_UP,
      warnings: [
        `the sales roll-ups could not be summed; the views read the stale days from the list items until the next run does: ${errorMessage(error)}`,
      ],
    };
  }
}

/** The warning of each resolution the views cannot rely on. */
export function roleWarnings(
  resolutions: readonly Pick<Resolution, "role" | "scope" | "how" | "summary">[],
): string[] {
  return resolutions.flatMap((r) => {
    const role = ROLES.find((x) => x.name === r.role);
    if (!role || !warns(role, r)) return [];
    return [`role ${roleKey(role, r.scope)} ${r.how}: ${r.summary}`];
  });
}

/**
 * Resolves every role from the warehouse as it is (no request), records the resolutions, and
 * builds again the views and the readings' check whose definition changed, all in one
 * transaction: a reader sees the old views or the new, with the roles that made them (and every
 * day of the sales roll-ups stale if their columns changed). One settlement at a time; readers
 * holding the views are waited for (SCHEMA_LOCK_WAIT), never failed. Then rolls up the days the
 * run wrote (a roll-up that cannot be made is a warning, not the settlement's failure). Run after every run, by replay, and by `etl migrate`.
 */
export async function settleRoles<DB>(
  db: Kysely<DB>,
  settings: RoleSettings,
  runId: string | null = null,
  wait: SchemaLockWait = SCHEMA_LOCK_WAIT,
): Promise<Settlement> {
  const warehouse = db as Kysely<unknown>;
  const resolutions = await resolveRoles(warehouse, settings);
  const roles = new ResolvedRoles(resolutions);
  const { changes, rebuilt } = await withLockWait(
    warehouse,
    "analytics",
    wait,
    async (trx) => ({
      changes: await recordResolutions(trx, resolutions, runId),
      rebuilt: [
        ...(await buildAnalytics(trx, roles)),
        ...(await markRollupsIfRolesChanged(trx, roles)),
      ],
    }),
    (attempts, cause) => new AnalyticsBusyError(attempts, cause),
  );
  const { rolledUp, warnings } = await rollUp(warehouse, wait);
  return {
    resolutions,
    changes,
    rebuilt,
    warnings: [...roleWarnings(resolutions), ...warnings],
    rolledUp,
  };
}
