import { recordedRoles } from "../../analytics/role-records.js";
import { NO_ROLL_UP } from "../../analytics/sales-rollups.js";
import { settleRoles } from "../../analytics/settle-roles.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { ExitCode } from "../exit-codes.js";
import { loadAppConfig } from "../load-app-config.js";
import type { Output } from "../output.js";
import { recordedRoleLines, roleTable, settledExitCode, settlementLines } from "../role-lines.js";

export interface RolesOptions {
  /** Resolve them again now from the warehouse and the config, with no request. */
  readonly resolve?: boolean;
}

/**
 * `etl roles`: which typed column each meaning of the analytics views resolved to, how, and on
 * what evidence (etl.roles), and the warnings of those the views cannot rely on; `--resolve`
 * resolves them again first, as a run's end does, so an edit of the config's `roles` takes
 * effect without a sync. Exits 4 when a role is unresolved or ambiguous.
 */
export async function rolesCommand(options: RolesOptions, out: Output): Promise<ExitCode> {
  const { env, etl } = loadAppConfig({ upstream: false });
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 2 });
  try {
    await migrateToLatest(db);
    const settled = options.resolve ? await settleRoles(db, etl.roles) : null;
    const changes = settled?.changes ?? [];
    const rolledUp = settled?.rolledUp ?? NO_ROLL_UP;
    const recorded = await recordedRoles(db);
    for (const line of roleTable(recorded)) out.line(line);
    const { summary, warnings } = recordedRoleLines(recorded);
    out.line("");
    out.line(summary);
    for (const line of settlementLines({ changes, warnings, rolledUp })) out.line(line);
    return settledExitCode(ExitCode.ok, { warnings });
  } finally {
    await db.destroy();
  }
}
