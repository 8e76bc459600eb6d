import { UsageError } from "../errors.js";
import type { Warehouse } from "../warehouse/database.js";
import { runIdsStarting } from "../warehouse/runs.js";

/** How many of the runs an ambiguous start names are listed. */
const LISTED = 5;

/**
 * The run a user names: its whole id, or a start of it that only it has (the first characters
 * after "run-" are enough, as `etl runs` lists them); null when no run's id starts so. A start
 * several runs share is a usage error that lists them.
 */
export async function namedRunId(db: Warehouse, given: string): Promise<string | null> {
  const ids = await runIdsStarting(db, given, LISTED + 1);
  if (ids.includes(given)) return given;
  if (ids.length <= 1) return ids[0] ?? null;
  const many = ids.length > LISTED ? `more than ${LISTED}` : String(ids.length);
  throw new UsageError(
    `"${given}" starts ${many} run ids (${ids.slice(0, LISTED).join(", ")}): give more of it`,
  );
}
