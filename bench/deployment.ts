import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { makeTempDir } from "../test/helpers/temp-dir.js";
import { fingerprints, type TableFingerprint } from "../test/faults/table-fingerprints.js";
import { type TestWarehouse, withDatabaseClient } from "../test/helpers/warehouse.js";
import { spawnWorker, type WorkerProcess } from "../test/helpers/worker-process.js";
import {
  built,
  imageNodeOptions,
  PEAK_MEMORY_PRELOAD,
  peakRssMiB,
  reportedPeakRssBytes,
  runEtl,
  type SandboxProcess,
  startSandboxProcess,
} from "./processes.js";
import { type RedisPeak, sampleRedis } from "./redis-sampler.js";
import { createScratch, REDIS_URL, type Scratch } from "./scratch.js";

export interface BackfillMeasure {
  readonly wallSeconds: number;
  readonly exitCode: number | null;
  /** Peak resident set size of the worker process. */
  readonly workerPeakRssMiB: number;
  /** Partition-seconds per phase, from the worker's etl_phase_seconds_total. */
  readonly phases: { fetch: number; normalise: number; write: number };
  /** Jobs BullMQ found stalled (lock lost) during the run. */
  readonly stalled: number;
  /** Upstream requests during the run, as the sandbox counted them. */
  readonly requests: number;
  /** Rows the partitions wrote, from etl.attempts. */
  readonly rowsWritten: number;
  /** The request rate in force at the end and where it came from (etl_request_rate_limit). */
  readonly rate: { readonly requestsPerSecond: number; readonly source: string } | null;
  /** What Redis held at its peak during the run. */
  readonly redis: RedisPeak;
  /** Partitions attempted (etl.attempts rows) by the end of the measure. */
  readonly attempts: number;
  /**
   * Seconds from the last partition's end to the run's end recorded in etl.runs: the roles
   * settled and the sales roll-ups summed, which the worker does after the run's job completed
   * (so after `--wait` returned) and before it records the end. Null when the run was not waited
   * for, or its end was not recorded within RUN_END_WAIT_MS.
   */
  readonly runEndSeconds: number | null;
}

export interface SyncMeasure {
  readonly wallSeconds: number;
  readonly exitCode: number | null;
  readonly requests: number;
  readonly rowsWritten: number;
  readonly partitions: number;
  /** The command's peak resident set size (bench/peak-memory.js); null if it reported none. */
  readonly peakRssMiB: number | null;
}

/** One installation of the pipeline on a scratch database, against a sandbox process. */
export interface Deployment {
  /**
   * `etl backfill --wait` worked off by one `etl worker` process started for it; with
   * `stopAfter`, the backfill queued and measured until that many partitions were attempted
   * (a year of a 10× account takes an hour), then the worker stopped.
   */
  backfill(
    range: { from: string; to: string },
    options?: { only?: string; stopAfter?: number },
  ): Promise<BackfillMeasure>;
  /** `etl sync` (incremental, or over `range`), the way a cron runs it. */
  sync(range?: { from: string; to: string }): Promise<SyncMeasure>;
  /** `etl replay` (in-process): every stream derived again from the stored responses. */
  replay(): Promise<SyncMeasure>;
  /** `etl plan --from --to`: what it prints. */
  plan(range: { from: string; to: string }): Promise<string[]>;
  /** Rows in the warehouse's own tables, counted exactly. */
  storedRows(): Promise<number>;
  /** Every data table's row count and content digest: equal when the data is. */
  dataPrints(): Promise<Map<string, TableFingerprint>>;
  /** Empties the data tables (not etl): what a replay then derives is all it derives. */
  emptyDataTables(): Promise<void>;
  /** The stored responses: how many, their bodies' size as received, and on disk. */
  responseStorage(): Promise<{
    rows: number;
    bodyBytes: number;
    diskBytes: number;
    lastId: number;
  }>;
  /** Responses stored after `lastId`, by stream. */
  newResponses(lastId: number): Promise<Record<string, number>>;
  close(): void;
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

function rateInForce(metrics: string): BackfillMeasure["rate"] {
  const match = /^etl_request_rate_limit\{source="([^"]*)"\} (\S+)$/m.exec(metrics);
  return match ? { source: match[1] ?? "", requestsPerSecond: Number(match[2]) } : null;
}

/** The worker's count of stalled jobs; a worker that does not export it is an error, not a 0. */
function stalledJobs(metrics: string): number {
  const value = /^etl_jobs_stalled_total (\S+)$/m.exec(metrics)?.[1];
  if (value === undefined) throw new Error("the worker exports no etl_jobs_stalled_total");
  return Number(value);
}

/** How long a backfill's run may take to be recorded ended after `--wait` returned. */
const RUN_END_WAIT_MS = 600_000;
const RUN_END_POLL_MS = 200;

const WAREHOUSE_SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties"];

/**
 * `etl migrate` on the scratch database, with a config file of `etl` settings. The worker and
 * the CLI run built, with the Docker image's NODE_OPTIONS: the pipeline as deployed.
 */
export async function deploy(options: {
  sandbox: SandboxProcess;
  scratch: Scratch;
  etl: Record<string, unknown>;
}): Promise<Deployment> {
  const { sandbox, scratch } = options;
  const dir = makeTempDir("bench");
  const env = {
    NODE_OPTIONS: imageNodeOptions(),
    MUSIC_API_URL: sandbox.url,
    MUSIC_API_KEY: sandbox.apiKey,
    DATABASE_URL: scratch.databaseUrl,
    REDIS_URL,
    ETL_CONFIG: dir.write("etl.config.json", {
      ...options.etl,
      redis_prefix: scratch.redisPrefix,
      schedules: { catalogue: null, trends: null, artist_stats: null, royalties: null },
    }),
  };
  const query = <T>(text: string) =>
    withDatabaseClient(async (c) => (await c.query<T & object>(text)).rows, scratch.database);
  const now = async () => (await query<{ t: string }>("select now()::text as t"))[0]?.t ?? "";
  const writtenSince = async (mark: string) => {
    const [row] = await query<{ rows: string; partitions: string }>(
      `select coalesce(sum(rows_written), 0)::text as rows, count(*)::text as partitions
         from etl.attempts where started_at >= '${mark}'`,
    );
    return { rows: Number(row?.rows ?? 0), partitions: Number(row?.partitions ?? 0) };
  };
  const requests = async () => (await sandbox.stats()).requests;
  const warehouse: Pick<TestWarehouse, "query"> = {
    query: <T extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      withDatabaseClient(async (c) => (await c.query<T>(text, values)).rows, scratch.database),
  };
  const schemaList = WAREHOUSE_SCHEMAS.map((schema) => `'${schema}'`).join(", ");
  const dataTables = async () =>
    (
      await query<{ name: string }>(
        `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
          where table_type = 'BASE TABLE' and table_schema in (${schemaList})`,
      )
    ).map((table) => table.name);
  // The run's finished_at is its job's end, before the worker settles it: the end is timed by
  // Postgres's clock as it is first seen recorded, against the partitions' on the same clock.
  const runEnd = async (mark: string): Promise<number | null> => {
    for (let waited = 0; waited < RUN_END_WAIT_MS; waited += RUN_END_POLL_MS) {
      const [row] = await query<{ seconds: number }>(
        `select extract(epoch from now() - (select max(finished_at) from etl.attempts
                                             where started_at >= '${mark}'))::float8 as seconds
          where exists (select 1 from etl.runs
                         where queued_at >= '${mark}' and finished_at is not null)`,
      );
      if (row) return row.seconds;
      await sleep(RUN_END_POLL_MS);
    }
    return null;
  };
  const runCommand = async (args: readonly string[]): Promise<SyncMeasure> => {
    const [mark, requestsBefore] = [await now(), await requests()];
    const started = performance.now();
    const run = await runEtl(args, env, PEAK_MEMORY_PRELOAD);
    const wallSeconds = (performance.now() - started) / 1000;
    const peakBytes = reportedPeakRssBytes(run.lines);
    if (run.code !== 0) console.error(run.lines.slice(-20).join("\n"));
    const written = await writtenSince(mark);
    return {
      wallSeconds,
      exitCode: run.code,
      requests: (await requests()) - requestsBefore,
      rowsWritten: written.rows,
      partitions: written.partitions,
      peakRssMiB: peakBytes === null ? null : peakBytes / 1024 / 1024,
    };
  };

  try {
    const migrated = await runEtl(["migrate"], env);
    if (migrated.code !== 0) throw new Error(`etl migrate failed:\n${migrated.lines.join("\n")}`);
  } catch (error) {
    dir.remove();
    throw error;
  }

  return {
    async backfill(range, options = {}) {
      let worker: WorkerProcess | undefined;
      try {
        worker = await spawnWorker({ cwd: dir.path, env, entry: [built("src/cli/main.ts")] });
        const args = ["backfill", "--from", range.from, "--to", range.to];
        if (options.stopAfter === undefined) args.push("--wait");
        if (options.only) args.push("--only", options.only);
        const [mark, requestsBefore] = [await now(), await requests()];
        const redis = await sampleRedis(scratch.redisPrefix);
        const started = performance.now();
        const backfill = await runEtl(args, env);
        if (options.stopAfter !== undefined) {
          while ((await writtenSince(mark)).partitions < options.stopAfter) {
            await sleep(1_000);
          }
        }
        const wallSeconds = (performance.now() - started) / 1000;
        const runEndSeconds = options.stopAfter === undefined ? await runEnd(mark) : null;
        const redisPeak = await redis.stop();
        if (backfill.code !== 0) console.error(backfill.lines.slice(-20).join("\n"));
        const workerPeakRssMiB = peakRssMiB(worker.child.pid ?? 0);
        const metrics = await (await fetch(`${worker.operatorUrl}/metrics`)).text();
        const phases = sumBy(metrics, "etl_phase_seconds_total", "phase");
        const written = await writtenSince(mark);
        return {
          runEndSeconds,
          wallSeconds,
          exitCode: backfill.code,
          workerPeakRssMiB,
          phases: {
            fetch: phases.fetch ?? 0,
            normalise: phases.normalise ?? 0,
            write: phases.write ?? 0,
          },
          // From the worker's own count: a reader of the queue's event stream beside the run
          // would take the machine's time from what it measures.
          stalled: stalledJobs(metrics),
          requests: (await requests()) - requestsBefore,
          rowsWritten: written.rows,
          rate: rateInForce(metrics),
          redis: redisPeak,
          attempts: written.partitions,
        };
      } finally {
        worker?.child.kill("SIGTERM");
        await worker?.exited;
      }
    },

    sync: (range) =>
      runCommand(range ? ["sync", "--from", range.from, "--to", range.to] : ["sync"]),

    replay: () => runCommand(["replay"]),

    async plan(range) {
      const run = await runEtl(["plan", "--from", range.from, "--to", range.to], env);
      if (run.code !== 0) throw new Error(`etl plan failed:\n${run.lines.join("\n")}`);
      return [...run.lines];
    },

    dataPrints: () => fingerprints(warehouse),

    async emptyDataTables() {
      const tables = await dataTables();
      // payout_requests is written by the payouts command, not derived from responses.
      const derived = tables.filter((t) => t !== "royalties.payout_requests");
      await query(`truncate ${derived.join(", ")}`);
    },

    async responseStorage() {
      const [row] = await query<{ rows: string; body: string; disk: string; last: string }>(
        `select count(*)::text as rows, coalesce(sum(octet_length(body)), 0)::text as body,
                pg_total_relation_size('etl.responses')::text as disk,
                coalesce(max(response_id), 0)::text as last
           from etl.responses`,
      );
      return {
        rows: Number(row?.rows ?? 0),
        bodyBytes: Number(row?.body ?? 0),
        diskBytes: Number(row?.disk ?? 0),
        lastId: Number(row?.last ?? 0),
      };
    },

    async newResponses(lastId) {
      const rows = await query<{ stream: string; n: string }>(
        `select stream, count(*)::text as n from etl.responses
          where response_id > ${Math.trunc(lastId)} group by stream`,
      );
      return Object.fromEntries(rows.map((row) => [row.stream, Number(row.n)]));
    },

    async storedRows() {
      const tables = (await dataTables()).map((name) => ({ name }));
      if (tables.length === 0) return 0;
      const [row] = await query<{ n: string }>(
        `select (${tables.map((t) => `(select count(*) from ${t.name})`).join(" + ")})::text as n`,
      );
      return Number(row?.n ?? 0);
    },

    close: () => dir.remove(),
  };
}

/**
 * A scratch database and Redis prefix, a sandbox process and the pipeline deployed against it,
 * for the time of `use`; all three are removed after, whatever `use` did.
 */
export async function withDeployment<T>(
  options: {
    label: string;
    sandbox: Parameters<typeof startSandboxProcess>[0];
    etl: Record<string, unknown>;
  },
  use: (deployment: Deployment, sandbox: SandboxProcess) => Promise<T>,
): Promise<T> {
  const scratch = await createScratch(options.label);
  let sandbox: SandboxProcess | undefined;
  let deployment: Deployment | undefined;
  try {
    sandbox = await startSandboxProcess(options.sandbox);
    deployment = await deploy({ sandbox, scratch, etl: options.etl });
    return await use(deployment, sandbox);
  } finally {
    deployment?.close();
    await sandbox?.stop();
    await scratch.drop();
  }
}
