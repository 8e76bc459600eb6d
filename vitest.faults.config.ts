import { defineConfig } from "vitest/config";
import { HANG_MS } from "./test/helpers/hang-limit.js";

// The fault suite: long, timing-sensitive cases that run one at a time (npm run test:faults).
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    // Only a hang is cut short: no test measures time (test/helpers/hang-limit.ts).
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    fileParallelism: false,
    pool: "forks",
    globalSetup: ["test/helpers/template-warehouse.ts", "test/helpers/test-build.ts"],
  },
});
