import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { nodeEntry } from "../helpers/cli.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const run = promisify(execFile);
const prefix = uniquePrefix("budget-processes");
const dir = makeTempDir("budget-processes");
const RATE = 20;
const PER_PROCESS = 60;
let sandbox: Sandbox;

beforeAll(async () => {
  // The sandbox would answer 429 above 20/s: a budget that leaks shows up as 429s too.
  sandbox = await startSandbox({ knobs: { requestsPerSecond: RATE, latencyMs: 20 } });
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    requests_per_second: RATE,
    max_concurrency: 8,
    redis_prefix: prefix,
  });
});

afterAll(async () => {
  await sandbox.close();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

function clientProcess() {
  return run(process.execPath, nodeEntry("test/helpers/budget-client.ts"), {
    cwd: dir.path,
    env: {
      PATH: process.env.PATH ?? "",
      MUSIC_API_URL: sandbox.url,
      MUSIC_API_KEY: sandbox.apiKey,
      REDIS_URL,
      LOG_LEVEL: "warn",
      REQUESTS: String(PER_PROCESS),
    },
  });
}

describe("request budget shared by two processes", () => {
  it(`keeps both together within ${RATE} requests in every second, and close to it`, async () => {
    const [a, b] = await Promise.all([clientProcess(), clientProcess()]);
    const stats = sandbox.stats();
    expect(stats.requests).toBe(2 * PER_PROCESS);
    expect(stats.rateLimited).toBe(0);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(RATE);
    expect(stats.peakConcurrency).toBeLessThanOrEqual(8);

    // Rate over the full seconds of the run (the first and last are partial).
    const seconds = Object.keys(stats.perSecond).map(Number).sort();
    const full = seconds.slice(1, -1).map((s) => stats.perSecond[s] ?? 0);
    const rate = full.reduce((sum, n) => sum + n, 0) / full.length;
    console.log(
      `two processes, budget ${RATE} req/s: ${stats.requests} requests, ${rate.toFixed(1)} req/s over full seconds, max ${stats.maxPerSecond} in one second (${a.stdout.trim()} / ${b.stdout.trim()})`,
    );
    // Sends are spaced 1/R apart and the window is 1.05 s, so the steady rate is R / 1.05.
    expect(rate).toBeGreaterThanOrEqual(0.85 * RATE);
  });
});
