import { defineConfig } from "vitest/config";

// The fault suite: long, timing-sensitive cases that run one at a time (npm run test:faults).
export default defineConfig({
  test: {
    include: ["test/faults/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    pool: "forks",
    globalSetup: ["test/helpers/template-warehouse.ts", "test/helpers/test-build.ts"],
  },
});
