import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestBudget } from "../../src/http/request-budget.js";
import { type PrivateRedis, privateRedis } from "../helpers/private-redis.js";

// A Redis of its own: its command counts are this file's alone.
let server: PrivateRedis;
let redis: Redis;
const request = { operation: "test.op", method: "GET", path: "/x" };

beforeAll(async () => {
  server = await privateRedis();
  await server.start();
  redis = new Redis(server.url);
});

afterAll(async () => {
  redis.disconnect();
  await server.kill();
});

/** Calls Redis has answered, by command (INFO commandstats), since the last CONFIG RESETSTAT. */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await redis.info("commandstats");
  return Object.fromEntries(
    [...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, name, calls]) => [
      name,
      Number(calls),
    ]),
  );
}

function budget(maxConcurrency: number): RequestBudget {
  return new RequestBudget({
    redis,
    keyPrefix: "calls:",
    apiUrl: "http://upstream.test",
    apiKey: "calls-key",
    requestsPerSecond: 100_000,
    maxConcurrency,
    leaseMs: 5_000,
    maxPauseMs: 10_000,
  });
}

describe("the request budget's calls to Redis", () => {
  it("sends the acquire and release scripts by their hash, each text only once", async () => {
    const shared = budget(4);
    await redis.call("SCRIPT", "FLUSH");
    await redis.config("RESETSTAT");
    for (let i = 0; i < 20; i++) await (await shared.acquire(request)).release();
    const calls = await commandCalls();
    // One acquire and one release a request.
    expect(calls.evalsha).toBe(40);
    // The first EVALSHA of each met NOSCRIPT and loaded it.
    expect(calls.eval).toBe(2);
  });

  it("waits for its own release without polling when it holds every slot", async () => {
    const shared = budget(2);
    const held = [await shared.acquire(request), await shared.acquire(request)];
    await redis.config("RESETSTAT");
    const third = shared.acquire(request);
    // Two hundred milliseconds: twenty polls at the 10 ms a slot held elsewhere is polled at.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await held[0]?.release();
    await (await third).release();
    await held[1]?.release();
    const calls = await commandCalls();
    // The grant after the release and the three releases: no try while every slot is its own.
    expect(calls.evalsha).toBe(4);
  });
});
