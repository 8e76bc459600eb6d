import { defineConfig } from "vitest/config";
import { HANG_MS } from "./test/helpers/hang-limit.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The fault suite runs on its own: npm run test:faults.
    exclude: ["test/faults/**", "node_modules/**"],
    // Only a hang is cut short: no test measures time (test/helpers/hang-limit.ts).
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    pool: "forks",
    // A fork runs its files one after another with the modules it has imported: each file had
    // cost a fresh process and its imports again (the suite 375 s against 304 s here, import 100 s
    // against 16 s of CPU, on a machine the suite keeps busy). A file still has its own database,
    // Redis prefix and sandbox, no test sets process.env or mocks a module, and the project's
    // module state is caches of pure results.
    isolate: false,
    globalSetup: ["test/helpers/template-warehouse.ts", "test/helpers/test-build.ts"],
    // The ten slowest files and tests after every run: where the suite's time goes.
    reporters: ["default", "./test/helpers/slowest-reporter.ts"],
    // The files wait on Postgres, Redis, the sandbox and worker processes more than they
    // compute, and each has a database and key prefix of its own: three at a time keep a 2-core
    // machine busy (the suite took about 10 minutes two at a time, under 7 three at a time). No
    // test measures time, so a busier machine makes the suite slower, never red.
    maxWorkers: 3,
  },
});
