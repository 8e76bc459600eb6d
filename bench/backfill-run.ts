import { QueueEvents } from "bullmq";
import { QUEUE_NAME } from "../jobs/etl-queue.js";
import { makeTempDir } from "../test/helpers/temp-dir.js";
import { withDatabaseClient } from "../test/helpers/warehouse.js";
import { spawnWorker, type WorkerProcess } from "../test/helpers/worker-process.js";
import { peakRssMiB, runEtl, type SandboxProcess } from "./processes.js";
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
  const dir = makeTempDir("bench");
  const env = {
    MUSIC_API_URL: options.sandbox.url,
    MUSIC_API_KEY: options.sandbox.apiKey,
    DATABASE_URL: options.scratch.databaseUrl,
    REDIS_URL,
    ETL_CONFIG: dir.write("etl.config.json", {
      ...options.etl,
      redis_prefix: options.scratch.redisPrefix,
      schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
    }),
  };
  const events = new QueueEvents(QUEUE_NAME, {
    connection: { url: REDIS_URL },
    prefix: `${options.scratch.redisPrefix}bull`,
  });
  let stalled = 0;
  events.on("stalled", () => void (stalled += 1));
  let worker: WorkerProcess | undefined;
  try {
    const migrated = await runEtl(["migrate"], env);
    if (migrated.code !== 0) throw new Error(`etl migrate failed:\n${migrated.lines.join("\n")}`);
    await events.waitUntilReady();
    worker = await spawnWorker({ cwd: dir.path, env });
    const args = ["backfill", "--from", options.range.from, "--to", options.range.to, "--wait"];
    if (options.only) args.push("--only", options.only);
    const started = performance.now();
    const backfill = await runEtl(args, env);
    const wallSeconds = (performance.now() - started) / 1000;
    if (backfill.code !== 0) console.error(backfill.lines.slice(-20).join("\n"));
    const workerPeakRssMiB = peakRssMiB(worker.child.pid ?? 0);
    const metrics = await (await fetch(`${worker.operatorUrl}/metrics`)).text();
    const phases = sumBy(metrics, "etl_phase_seconds_total", "phase");
    const [stored] = await withDatabaseClient(
      async (c) =>
        (
          await c.query<{ n: string }>(
            `select coalesce(sum(n_live_tup), 0)::text as n from pg_stat_user_tables
              where schemaname in ('catalogue', 'sales', 'artist_stats', 'royalties')`,
          )
        ).rows,
      options.scratch.database,
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
    worker?.child.kill("SIGTERM");
    await worker?.exited;
    await events.close();
    dir.remove();
  }
}
