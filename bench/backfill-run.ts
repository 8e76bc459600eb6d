import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QueueEvents } from "bullmq";
import pg from "pg";
import { QUEUE_NAME } from "../jobs/etl-queue.js";
import { pgConnectionConfig } from "../src/warehouse/pg-connection-config.js";
import { peakRssMiB, runEtl, type SandboxProcess, startWorkerProcess } from "./processes.js";
import { REDIS_URL, type Scratch } from "./scratch.js";

export interface BackfillMeasure {
  readonly wallSeconds: number;
  readonly exitCode: number | null;
  /** Peak resident set size of the worker process. */
  readonly workerPeakRssMiB: number;
  /** Partition-seconds per phase, from the worker's etl_phase_seconds_total. */
  readonly phases: { fetch: number; normalise: number; write: number };
  /** Jobs BullMQ found stalled (lock lost) during the run. */
  readonly stalled: number;
  readonly rows: number;
}

/** Sums a counter of the Prometheus text by one label's value. */
function sumBy(metrics: string, name: string, label: string): Record<string, number> {
  const sums: Record<string, number> = {};
  const pattern = new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, "gm");
  for (const [, labels, value] of metrics.matchAll(pattern)) {
    const key = new RegExp(`${label}="([^"]*)"`).exec(labels ?? "")?.[1] ?? "";
    sums[key] = (sums[key] ?? 0) + Number(value);
  }
  return sums;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client(pgConnectionConfig(url));
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A backfill the way an operator runs one: `etl migrate`, one `etl worker` process, then
 * `etl backfill --wait`.
 */
export async function backfillThroughWorker(options: {
  sandbox: SandboxProcess;
  scratch: Scratch;
  etl: Record<string, unknown>;
  range: { from: string; to: string };
  only?: string;
}): Promise<BackfillMeasure> {
  const dir = mkdtempSync(join(tmpdir(), "music-etl-bench-"));
  const configFile = join(dir, "etl.config.json");
  const etl = {
    ...options.etl,
    redis_prefix: options.scratch.redisPrefix,
    schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
  };
  writeFileSync(configFile, JSON.stringify(etl));
  const env = {
    MUSIC_API_URL: options.sandbox.url,
    MUSIC_API_KEY: options.sandbox.apiKey,
    DATABASE_URL: options.scratch.databaseUrl,
    REDIS_URL,
    ETL_CONFIG: configFile,
  };
  const events = new QueueEvents(QUEUE_NAME, {
    connection: { url: REDIS_URL },
    prefix: `${options.scratch.redisPrefix}bull`,
  });
  let stalled = 0;
  events.on("stalled", () => void (stalled += 1));
  const worker = await (async () => {
    const migrated = await runEtl(["migrate"], env);
    if (migrated.code !== 0) throw new Error(`etl migrate failed:\n${migrated.lines.join("\n")}`);
    await events.waitUntilReady();
    return startWorkerProcess(env);
  })();
  try {
    const args = ["backfill", "--from", options.range.from, "--to", options.range.to, "--wait"];
    if (options.only) args.push("--only", options.only);
    const started = performance.now();
    const backfill = await runEtl(args, env);
    const wallSeconds = (performance.now() - started) / 1000;
    if (backfill.code !== 0) console.error(backfill.lines.slice(-20).join("\n"));
    const workerPeakRssMiB = peakRssMiB(worker.pid);
    const metrics = await (await fetch(`${worker.operatorUrl}/metrics`)).text();
    const phases = sumBy(metrics, "etl_phase_seconds_total", "phase");
    const [stored] = await query<{ n: string }>(
      options.scratch.databaseUrl,
      `select coalesce(sum(n_live_tup), 0)::text as n from pg_stat_user_tables
        where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties')`,
    );
    return {
      wallSeconds,
      exitCode: backfill.code,
      workerPeakRssMiB,
      phases: {
        fetch: phases.fetch ?? 0,
        normalise: phases.normalise ?? 0,
        write: phases.write ?? 0,
      },
      stalled,
      rows: Number(stored?.n ?? 0),
    };
  } finally {
    await worker.stop();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
