import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { type OperatorServer, startOperatorServer } from "../../src/operator/operator-server.js";
import { capturedLog } from "../helpers/captured-log.js";
import { runCli } from "../helpers/cli.js";
import { keysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { PG_HOST_URL } from "../helpers/warehouse.js";

const TOKEN = "operator-token-for-tests-0123";

/** An address of this machine other than the loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === "IPv4" && !address.internal)?.address;
}

const status = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  await response.body?.cancel();
  return response.status;
};

describe("the operator port", () => {
  const { logger, lines } = capturedLog([TOKEN]);
  let guarded: OperatorServer;

  beforeAll(async () => {
    guarded = await startOperatorServer({
      port: 0,
      token: TOKEN,
      metrics: createEtlMetrics(),
      checks: {},
      queues: [],
      logger,
    });
  });

  afterAll(() => guarded?.close());

  it("listens on the loopback by default, and its log line says so", async () => {
    const port = Number(new URL(guarded.url).port);
    expect(await status(`http://127.0.0.1:${port}/livez`)).toBe(200);
    const external = externalAddress();
    if (external !== undefined) {
      await expect(fetch(`http://${external}:${port}/livez`)).rejects.toThrow();
    }
    const listening = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === "operator server listening");
    expect(listening).toMatchObject({
      listening: `127.0.0.1:${port}`,
      reachableFrom: "this address only",
    });
  });

  it("says every interface when it listens on them", async () => {
    const server = await startOperatorServer({
      host: "0.0.0.0",
      port: 0,
      metrics: createEtlMetrics(),
      checks: {},
      queues: [],
      logger,
    });
    try {
      const last = JSON.parse(lines.at(-1) ?? "{}") as Record<string, unknown>;
      expect(last).toMatchObject({ reachableFrom: "every interface" });
      const external = externalAddress();
      if (external !== undefined) {
        expect(await status(`http://${external}:${new URL(server.url).port}/livez`)).toBe(200);
      }
    } finally {
      await server.close();
    }
  });

  it.each(["/metrics", "/queues"])("asks for OPERATOR_TOKEN on %s", async (path) => {
    const url = guarded.url + path;
    expect(await status(url)).toBe(401);
    expect(await status(url, { authorization: "Bearer wrong-token-0123456789" })).toBe(401);
    expect(await status(url, { authorization: `Bearer ${TOKEN}` })).toBe(200);
    const basic = Buffer.from(`anyone:${TOKEN}`).toString("base64");
    expect(await status(url, { authorization: `Basic ${basic}` })).toBe(200);
    expect(lines.join("")).not.toContain(TOKEN);
  });

  it.each(["/livez", "/readyz"])("leaves %s open for probes", async (path) => {
    expect(await status(guarded.url + path)).toBe(200);
  });
});

describe("a worker whose port is taken", () => {
  const dir = makeTempDir("operator-port");
  const prefix = uniquePrefix("operator-port");
  let taken: Server;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    dir.write("etl.config.json", { start_date: "2026-01-01", redis_prefix: prefix });
  });

  afterAll(async () => {
    await new Promise<void>((done) => taken.close(() => done()));
    dir.remove();
  });

  it("exits 2 suggesting WORKER_PORT=0, before it writes anything to Redis", async () => {
    const port = (taken.address() as AddressInfo).port;
    const result = await runCli(["worker"], {
      cwd: dir.path,
      env: {
        MUSIC_API_URL: "http://127.0.0.1:9",
        MUSIC_API_KEY: "operator-port-key-0123456789",
        DATABASE_URL: `${PG_HOST_URL}/postgres`,
        REDIS_URL,
        WORKER_PORT: String(port),
        LOG_LEVEL: "warn",
      },
    });
    expect(result.code, result.stderr).toBe(2);
    const fatal = result.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.level === 60);
    expect(fatal?.msg).toContain(`WORKER_PORT: port ${port} on 127.0.0.1 is taken`);
    expect(fatal?.msg).toContain("or to 0 to pick one");
    expect(await keysWithPrefix(prefix)).toEqual([]);
  });
});
