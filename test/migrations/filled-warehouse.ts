import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { startSandbox } from "../../sandbox/index.js";
import { failures, type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";

/** The run date (the sandbox's "now") and the days synced: fixed, so every fact is deterministic. */
export const TODAY = "2026-01-31";
export const RANGE = { from: "2026-01-01", to: "2026-01-04" } as const;

/**
 * A database of the test file's own, filled by a full sync of every stream of the sandbox (as in
 * test/streams/full-sync.test.ts), with the sandbox still running to read the expected facts.
 */
export async function startFilledWarehouse(label: string): Promise<SyncHarness> {
  // The tracking config names the sandbox's own artists: read them from a sandbox of the same seed.
  const probe = await startSandbox({ today: TODAY });
  const tracking = sandboxTracking(probe.data);
  await probe.close();
  const harness = await startSyncHarness(label, { today: TODAY, etl: tracking });
  try {
    const summaries = await harness.sync(RANGE);
    const failed = failures(summaries);
    if (failed.length > 0) throw new Error(`the full sync failed: ${failed.join(", ")}`);
    return harness;
  } catch (error) {
    await harness.close();
    throw error;
  }
}
