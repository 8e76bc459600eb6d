import { createServer } from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { redisCheck } from "../../src/operator/health-checks.js";
import { type OperatorServer, startOperatorServer } from "../../src/operator/operator-server.js";
import { createWarehouse, pingWarehouse, type Warehouse } from "../../src/warehouse/database.js";
import { PG_HOST_URL } from "../helpers/warehouse.js";
import { type PrivateRedis, privateRedis } from "../helpers/private-redis.js";

const logger = createLogger({ level: "silent", secrets: [] });

interface Health {
  readonly status: string;
  readonly checks: Record<string, string>;
}

async function health(server: OperatorServer): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${server.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Health };
}

async function alive(server: OperatorServer): Promise<number> {
  const response = await fetch(`${server.url}/livez`);
  await response.body?.cancel();
  return response.status;
}

async function pollHealth(server: OperatorServer, status: number): Promise<Health> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const result = await health(server);
    if (result.status === status || Date.now() > deadline) {
      expect(result.status).toBe(status);
      return result.body;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("/readyz and /livez against Postgres and a Redis that goes away", () => {
  let redisServer: PrivateRedis;
  let redis: Redis;
  let db: Warehouse;
  let server: OperatorServer;

  beforeAll(async () => {
    redisServer = await privateRedis();
    await redisServer.start();
    // Without an offline queue and with one retry, a ping fails at once while Redis is gone.
    redis = new Redis({
      host: "127.0.0.1",
      port: redisServer.port,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    redis.on("error", () => undefined);
    await redis.connect();
    db = createWarehouse(`${PG_HOST_URL}/postgres`, { maxConnections: 2 });
    server = await startOperatorServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createEtlMetrics(),
      checks: { postgres: () => pingWarehouse(db), redis: () => redisCheck(redis) },
      queues: [],
      logger,
    });
  });

  afterAll(async () => {
    await server?.close();
    redis?.disconnect();
    await db?.destroy();
    await redisServer?.kill();
  });

  it("ready while both answer, 503 naming redis while it is down, ready again once it is back; alive throughout", async () => {
    expect(await health(server)).toEqual({
      status: 200,
      body: { status: "ok", checks: { postgres: "ok", redis: "ok" } },
    });

    await redisServer.kill();
    const down = await pollHealth(server, 503);
    expect(down.status).toBe("unavailable");
    expect(down.checks.postgres).toBe("ok");
    expect(down.checks.redis).not.toBe("ok");
    expect(down.checks.redis?.length).toBeGreaterThan(0);
    expect(await alive(server)).toBe(200);

    await redisServer.start();
    expect(await pollHealth(server, 200)).toEqual({
      status: "ok",
      checks: { postgres: "ok", redis: "ok" },
    });
  });
});

/** A loopback port nothing listens on: it was free a moment ago, and is closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("/readyz while Postgres cannot be reached", () => {
  const warehouses: Warehouse[] = [];
  const servers: OperatorServer[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(warehouses.map((db) => db.destroy()));
  });

  it.each([
    [
      "a closed port",
      async () => `postgres://127.0.0.1:${await closedPort()}/music_etl`,
      /ECONNREFUSED/,
    ],
    [
      "a database that does not exist",
      () => Promise.resolve(`${PG_HOST_URL}/music_etl_no_such_database`),
      /does not exist/,
    ],
  ])("is 503 naming postgres for %s, and alive", async (_, url, problem) => {
    const db = createWarehouse(await url(), { maxConnections: 1 });
    warehouses.push(db);
    const server = await startOperatorServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createEtlMetrics(),
      checks: { postgres: () => pingWarehouse(db), fine: () => Promise.resolve() },
      queues: [],
      logger,
    });
    servers.push(server);
    const { status, body } = await health(server);
    expect(status).toBe(503);
    expect(body.status).toBe("unavailable");
    expect(body.checks.fine).toBe("ok");
    expect(body.checks.postgres).toMatch(problem);
    expect(await alive(server)).toBe(200);
  });
});

describe("/readyz check handling", () => {
  let server: OperatorServer;
  let checksRun = 0;

  beforeAll(async () => {
    server = await startOperatorServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createEtlMetrics(),
      checks: {
        fine: () => {
          checksRun += 1;
          return Promise.resolve();
        },
        hangs: () => new Promise<void>(() => undefined),
        leaky: () =>
          Promise.reject(new Error("connect to postgres://etl:hunter2@db.internal:5432/x failed")),
        refused: () =>
          Promise.reject(new AggregateError([new Error("connect ECONNREFUSED ::1:5432")], "")),
      },
      queues: [],
      logger,
      checkTimeoutMs: 200,
    });
  });

  afterAll(() => server?.close());

  it("times a hanging check out, and says a failure without URLs or passwords", async () => {
    // The hanging check never answers: only its timeout ends the probe, which says so.
    const result = await health(server);
    expect(result).toEqual({
      status: 503,
      body: {
        status: "unavailable",
        checks: {
          fine: "ok",
          hangs: "timed out after 200 ms",
          leaky: "connect to [url] failed",
          refused: "connect ECONNREFUSED ::1:5432",
        },
      },
    });
  });

  it("stays alive whatever the checks say, without running them", async () => {
    const before = checksRun;
    expect(await alive(server)).toBe(200);
    expect(checksRun).toBe(before);
  });

  it("answers 404 elsewhere", async () => {
    const response = await fetch(`${server.url}/nothing-here`);
    expect(response.status).toBe(404);
    await response.body?.cancel();
  });
});
