import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { type OperatorServer, startOperatorServer } from "../../src/operator/operator-server.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";

describe("/queues (Bull Board)", () => {
  const prefix = uniquePrefix("operator-queues");
  const queueName = "etl-dashboard-test";
  let queue: Queue;
  let server: OperatorServer;

  beforeAll(async () => {
    const { hostname, port } = new URL(REDIS_URL);
    queue = new Queue(queueName, { connection: { host: hostname, port: Number(port) }, prefix });
    await queue.add("sync-partition", { stream: "sales_trends", partition: "2026-01-02" });
    server = await startOperatorServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createEtlMetrics(),
      checks: {},
      queues: [queue],
      logger: createLogger({ level: "silent", secrets: [] }),
    });
  });

  afterAll(async () => {
    await server?.close();
    await queue?.close();
    await deleteKeysWithPrefix(prefix);
  });

  it("serves the dashboard page", async () => {
    const response = await fetch(`${server.url}/queues`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/<!DOCTYPE html>/i);
  });

  it("lists the queue with its job, read-only", async () => {
    const response = await fetch(`${server.url}/queues/api/queues`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      queues: { name: string; readOnlyMode: boolean; counts: Record<string, number> }[];
    };
    expect(body.queues).toEqual([
      expect.objectContaining({
        name: queueName,
        readOnlyMode: true,
        counts: expect.objectContaining({ waiting: 1 }),
      }),
    ]);
  });

  it("refuses to change the queue", async () => {
    const response = await fetch(`${server.url}/queues/api/queues/${queueName}/pause`, {
      method: "PUT",
    });
    expect(response.status).toBe(405);
    await response.body?.cancel();
    expect(await queue.isPaused()).toBe(false);
  });
});
