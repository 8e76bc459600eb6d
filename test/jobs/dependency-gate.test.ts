import { describe, expect, it } from "vitest";
import { DependencyGate } from "../../src/jobs/dependency-gate.js";
import { createLogger } from "../../src/logging/logger.js";

// A failure asks whether its dependency answers since it failed: a probe that was already under
// way may have looked before, and must not be taken for the answer.

describe("a dependency gate's probe", () => {
  it("asked while one is under way, is one begun after it, shared by every such caller", async () => {
    let postgresUp = true;
    let looks = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const gate = new DependencyGate({
      probes: {
        postgres: async () => {
          looks += 1;
          const upWhenAsked = postgresUp;
          if (looks === 1) await held;
          if (!upWhenAsked) throw new Error("connection refused");
        },
        redis: async () => {},
      },
      where: { postgres: "127.0.0.1:5432", redis: "127.0.0.1:6379" },
      logger: createLogger({ level: "silent", secrets: [] }),
    });
    try {
      const earlier = gate.probe();
      // Postgres goes away while the first probe, which found it up, has not ended.
      postgresUp = false;
      const afterFailures = [gate.probe(), gate.probe()];
      release();
      expect(await earlier).toBe(true);
      expect(await Promise.all(afterFailures)).toEqual([false, false]);
      expect(looks).toBe(2);
      expect(gate.open).toBe(false);
    } finally {
      await gate.stop();
    }
  });
});
