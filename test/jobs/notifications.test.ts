import { createHmac } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { markPartitionSucceeded } from "../../src/warehouse/stream-state.js";
import { etlEnv, runCli } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
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

// Two worker processes and one webhook that wants every event: each thing that happens is told
// once, whichever worker finds it, signed, and never with the key. What happens: the key refused
// as they start, a stream stale by the alert's rule, a backfill whose first list adds columns and
// whose unknown artist fails partitions for good, and the workers stopping one after the other.

const UNKNOWN_ARTIST = 987_654_321;
const SECRET = "notifications-webhook-secret";
const prefix = uniquePrefix("notifications");
const dir = makeTempDir("notifications");
let sandbox: Sandbox;
let warehouse: TestWarehouse;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const workers: WorkerProcess[] = [];

const env = () =>
  etlEnv(sandbox, warehouse.url, join(dir.path, "etl.config.json"), { WEBHOOK_SECRET: SECRET });

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: "notifications-secret-key-1",
    today: "2026-01-31",
    size: { socialArtists: 2 },
  });
  warehouse = await createTestWarehouse("notifications");
  receiver = await startWebhookReceiver();
  const known = sandbox.data.socialArtists()[0]?.cm_artist ?? 0;
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    requests_per_second: 1000,
    job_attempts: 1,
    // The key accepted again is found within a second, not three minutes.
    credential_recheck_ms: 1000,
    redis_prefix: prefix,
    social_artist_ids: [known, UNKNOWN_ARTIST],
    // Once a year: the catalogue's last success below, three years ago, makes it stale.
    schedules: {
      catalogue: { pattern: "15 3 1 1 *", tz: "UTC" },
      trends: null,
      artist_stats: null,
      royalties: null,
    },
    notifications: [{ url: receiver.url, secret_env: "WEBHOOK_SECRET" }],
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

interface Payload {
  readonly event: string;
  readonly id: string;
  readonly summary: string;
  readonly command: string;
}

const payloads = () => receiver.received.map((r) => JSON.parse(r.body) as Payload);
const told = (event: string) => payloads().filter((p) => p.event === event);

describe("notifications from two workers", () => {
  it("tell each thing once, signed, without the key", async () => {
    await markPartitionSucceeded(warehouse.db, {
      stream: "territories",
      partition: "all",
      checkpoint: {},
    });
    await warehouse.query(
      "update etl.stream_state set last_success_at = now() - interval '3 years' where stream = $1",
      ["territories"],
    );
    sandbox.setKnobs({ refuseCredential: true });
    const spawn = async () => {
      const started = await spawnWorker({ cwd: dir.path, env: env() });
      workers.push(started);
      return started;
    };
    const two = await Promise.all([spawn(), spawn()]);
    await until(() => Promise.resolve(told("credential_refused").length > 0));
    await until(() => Promise.resolve(told("stream_stale").length > 0));
    sandbox.setKnobs({ refuseCredential: false });
    for (const worker of two) await until(async () => (await readiness(worker)).status === 200);

    const backfill = await runCli(
      [
        "backfill",
        "--from",
        "2026-01-29",
        "--to",
        "2026-01-30",
        "--only",
        "trend_items,artist_stats_artists,artist_stats_urls",
        "--wait",
      ],
      { cwd: dir.path, env: env() },
    );
    expect(backfill.stdout + backfill.stderr).toMatch(/failed/);
    await until(() => Promise.resolve(told("run_ended").length > 0));

    // One after the other: the second to stop is the last.
    for (const worker of two) {
      worker.child.kill("SIGTERM");
      await worker.exited;
    }
    await until(() => Promise.resolve(told("last_worker_gone").length > 0));

    const events = payloads().map((p) => p.event);
    expect(new Set(events)).toEqual(
      new Set([
        "credential_refused",
        "stream_stale",
        "schema_changed",
        "run_ended",
        "partitions_failed",
        "last_worker_gone",
      ]),
    );
    // Each once: one stale stream, one backfill, one refusal, one last worker.
    expect(events.sort()).toEqual(
      [
        "credential_refused",
        "last_worker_gone",
        "partitions_failed",
        "run_ended",
        "schema_changed",
        "stream_stale",
      ].sort(),
    );
    const [failed] = told("partitions_failed");
    expect(failed?.summary).toMatch(/^1 partitions of backfill run-\S+ failed for good/);
    expect(failed?.command).toMatch(/^npx etl runs show run-/);
    for (const { headers, body } of receiver.received) {
      const signature = createHmac("sha256", SECRET).update(body).digest("hex");
      expect(headers["x-music-etl-signature"]).toBe(`sha256=${signature}`);
      expect(body).not.toContain(sandbox.apiKey);
    }
  });
});
