import { vi } from "vitest";

/**
 * Waits until `condition` holds, looking every `intervalMs`, through vitest's waitFor: fails the
 * test when it does not within `timeoutMs`.
 */
export function until(
  condition: () => Promise<boolean>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<void> {
  return vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`condition not met within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
