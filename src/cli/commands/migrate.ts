import { displayUrl } from "../../config/display-url.js";
import { loadAppConfig } from "../load-app-config.js";
import { createWarehouse } from "../../warehouse/database.js";
import { ensureDatabase } from "../../warehouse/ensure-database.js";
import { describeHolders } from "../../warehouse/lock-holders.js";
import { DEFAULT_LOCK_WAIT_MS, migrateToLatest } from "../../warehouse/migrate.js";
import { settleAfterRun } from "../../analytics/settle-after-run.js";
import { settledExitCode, settlementLines } from "../role-lines.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import { wholeNumberOption } from "../whole-number-option.js";

export interface MigrateCommandOptions {
  /** --lock-timeout: seconds to wait for a lock at most. */
  readonly lockTimeout?: string;
}

/** Creates the database when missing, then applies every pending migration. */
export async function migrateCommand(
  options: MigrateCommandOptions,
  out: Output,
): Promise<ExitCode> {
  const seconds = wholeNumberOption("--lock-timeout", options.lockTimeout, 1, 3600);
  const lockWaitMs = seconds === undefined ? DEFAULT_LOCK_WAIT_MS : seconds * 1000;
  const { env, etl } = loadAppConfig({ upstream: false });
  const created = await ensureDatabase(env.DATABASE_URL);
  if (created) out.line(`created database ${displayUrl(env.DATABASE_URL)}`);
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 2 });
  try {
    const { applied, newer } = await migrateToLatest(db, {
      lockWaitMs,
      onLockWait: (holders, waitMs) =>
        out.line(
          `waiting up to ${Math.ceil(waitMs / 1000)} s for the migration lock, held by ${describeHolders(holders)}`,
        ),
    });
    for (const name of applied) out.line(`applied ${name}`);
    if (newer.length > 0) {
      out.line(
        `the warehouse is ahead of this release (${newer.join(", ")}, applied by a newer one): left as it is`,
      );
      return ExitCode.ok;
    }
    out.line(
      applied.length === 0 ? "the warehouse is up to date" : `${applied.length} migrations applied`,
    );
    // The analytics views are built from the roles, resolved from what the warehouse holds.
    const settlement = await settleAfterRun(db, etl.roles, null);
    for (const line of settlementLines(settlement)) out.line(line);
    return settledExitCode(ExitCode.ok, settlement);
  } finally {
    await db.destroy();
  }
}
