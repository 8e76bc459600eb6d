import type { Settlement } from "../analytics/settle-roles.js";
import type { Logger } from "../logging/logger.js";

/**
 * A worker's account of settling the roles: each role whose column changed (the views were
 * rebuilt), and each warning of a role the views cannot rely on, as `etl sync` prints them.
 */
export function logSettlement(logger: Logger, settlement: Settlement, runId?: string): void {
  for (const change of settlement.changes) {
    logger.info(
      {
        runId,
        role: change.role,
        scope: change.scope,
        from: change.fromColumn,
        to: change.toColumn,
        how: change.toHow,
      },
      `role resolved anew, the views rebuilt: ${change.summary}`,
    );
  }
  for (const warning of settlement.warnings) logger.warn({ runId }, warning);
}
