import { type Kysely, sql } from "kysely";
import { errorMessage } from "../errors.js";
import type { RoleSettings } from "./resolve-roles.js";
import { NO_ROLL_UP } from "./sales-rollups.js";
import { type Settlement, settleRoles } from "./settle-roles.js";

/**
 * The roles settled after a run that may have changed the data (`runId`'s), as settleRoles does;
 * a settlement that could not be made (the views held by readers through every wait) is a
 * warning of the run, never its failure: the data the run wrote stands, and the next run tries.
 */
export async function settleAfterRun<DB>(
  db: Kysely<DB>,
  settings: RoleSettings,
  runId: string | null,
): Promise<Settlement> {
  try {
    return await settleRoles(db, settings, runId);
  } catch (error) {
    return {
      resolutions: [],
      changes: [],
      rebuilt: [],
      rolledUp: NO_ROLL_UP,
      warnings: [
        `the roles could not be settled, the views stay as they were: ${errorMessage(error)}`,
      ],
    };
  }
}

/**
 * Whether any attempt of the run wrote a row: a scheduled run that found nothing new (most of
 * them) changes no evidence, and a worker settles nothing after it.
 */
export async function runWroteRows<DB>(db: Kysely<DB>, runId: string): Promise<boolean> {
  const { rows } = await sql<{ wrote: boolean }>`
    select exists (select 1 from etl.attempts where run = ${runId} and rows_written > 0) as wrote
  `.execute(db);
  return rows[0]?.wrote ?? false;
}
