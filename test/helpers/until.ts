import { vi } from "vitest";
import { HANG_MS } from "./hang-limit.js";

/**
 * Waits until `condition` holds, looking every `intervalMs`, through vitest's waitFor: fails the
 * test when it does not within `timeoutMs` (by default only a hang's: see HANG_MS).
 */
export function until(
  condition: () => Promise<boolean>,
  timeoutMs = HANG_MS,
  intervalMs = 100,
): Promise<void> {
  return vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`condition not met within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
