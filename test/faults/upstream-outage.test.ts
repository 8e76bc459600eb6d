import { createHmac } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { daysBetween } from "../../src/time/calendar.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { trendItemDifferences } from "../helpers/reconcile-trends.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { until } from "../helpers/until.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";
import {
  endProcesses,
  readiness,
  spawnWorker,
  type WorkerProcess,
} from "../helpers/worker-process.js";

// Two worker processes and an upstream that stops answering mid-backfill, for longer than the
// retries and the job attempts (five probes, about a minute): one outage for both, probed with a
// doubling wait, at most one request every 1.5 s on average reaching the dead upstream, and the
// backfill completes by itself with every partition succeeded and the data exact. A webhook
// hears of the outage once as it begins and once as it ends.

const prefix = uniquePrefix("outage_workers");
const dir = makeTempDir("outage-workers");
const MAX_CONCURRENCY = 4;
const fileConfig = {
  start_date: "2026-01-01",
  requests_per_second: 1000,
  max_concurrency: MAX_CONCURRENCY,
  worker_concurrency: 2,
  job_attempts: 2,
  job_backoff_ms: 200,
  max_retries: 1,
  redis_prefix: prefix,
  schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
};
const SECRET = "outage-webhook-secret";
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const workers: WorkerProcess[] = [];

const env = () =>
  etlEnv(sandbox, warehouse.url, join(dir.path, "etl.config.json"), { WEBHOOK_SECRET: SECRET });

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: "outage-secret-key-1", today: "2026-01-31" });
  warehouse = await createTestWarehouse("outage_workers");
  receiver = await startWebhookReceiver();
  dir.write("etl.config.json", {
    ...fileConfig,
    notifications: [
      { url: receiver.url, events: ["upstream_down", "upstream_up"], secret_env: "WEBHOOK_SECRET" },
    ],
  });
});

afterAll(async () => {
  await endProcesses(workers);
  await receiver.close();
  await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

const PROBES = /(\d+) probes failed/;

describe("an upstream down mid-backfill", () => {
  it("is one outage for both workers, probed ever later, and the backfill ends exact", async () => {
    sandbox.setKnobs({ requestsPerSecond: null, latencyMs: 20 });
    const spawn = async () => {
      const started = await spawnWorker({ cwd: dir.path, env: env() });
      workers.push(started);
      return started;
    };
    const two = await Promise.all([spawn(), spawn()]);
    const days = daysBetween("2026-01-03", "2026-01-08");
    // Side by side with the CLI processes below, and for as long as the outage lasts.
    const running = runCli(
      [
        "backfill",
        "--from",
        days[0] ?? "",
        "--to",
        days.at(-1) ?? "",
        "--only",
        "trend_items",
        "--wait",
      ],
      { cwd: dir.path, env: env(), atOnce: true, timeoutMs: 280_000 },
    );
    await until(async () => {
      const [row] = await warehouse.query<{ n: number }>(
        "select count(*)::int as n from etl.attempts where status = 'succeeded'",
      );
      return (row?.n ?? 0) >= 10;
    });
    sandbox.setKnobs({ down: true });
    const before = sandbox.stats().requests;
    const wentDown = performance.now();

    // Declared once, for both: each worker's /readyz names it, and etl status prints one line.
    await until(async () =>
      (await Promise.all(two.map(readiness))).every((r) =>
        PROBES.test(r.body.checks.upstream ?? ""),
      ),
    );
    const status = await runCli(["status"], { cwd: dir.path, env: env() });
    await until(
      async () =>
        Number(PROBES.exec((await readiness(two[0])).body.checks.upstream ?? "")?.[1] ?? 0) >= 5,
      120_000,
    );
    const probed = (await readiness(two[1])).body.checks.upstream ?? "";
    const failedProbes = Number(PROBES.exec(probed)?.[1]);
    const sentWhileDown = sandbox.stats().requests - before;
    const downSeconds = (performance.now() - wentDown) / 1000;
    sandbox.setKnobs({ down: false });

    const result = await running;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(
      status.stdout.split("\n").filter((line) => /the upstream is down since/.test(line)),
    ).toHaveLength(1);
    // What failed before the declaration (the window both workers share, what their slots had in
    // flight), then only the probes: the first after 2 s, the next 4 s later, and so on.
    expect(sentWhileDown).toBeLessThanOrEqual(16 + MAX_CONCURRENCY + failedProbes + 1);
    expect(sentWhileDown).toBeLessThanOrEqual(downSeconds / 1.5);
    const failedPartitions = await warehouse.query(
      "select stream, partition from etl.stream_state where last_status <> 'succeeded'",
    );
    expect(failedPartitions).toEqual([]);
    expect(await trendItemDifferences(warehouse, sandbox, days)).toEqual([]);
    for (const worker of two) {
      await until(async () => (await readiness(worker)).status === 200);
    }
    // One notification as it began, one as it ended, from the two workers together; signed, and
    // never carrying the key.
    await until(() => Promise.resolve(receiver.received.length >= 2));
    const events = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
    expect(events.sort()).toEqual(["upstream_down", "upstream_up"]);
    for (const { headers, body } of receiver.received) {
      const signature = createHmac("sha256", SECRET).update(body).digest("hex");
      expect(headers["x-music-etl-signature"]).toBe(`sha256=${signature}`);
      expect(body).not.toContain(sandbox.apiKey);
    }
  });
});
