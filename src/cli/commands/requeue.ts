import type { Queue } from "bullmq";
import { loadAppConfig } from "../load-app-config.js";
import { UsageError } from "../../errors.js";
import { enqueueRun } from "../../jobs/enqueue-run.js";
import { closeEtlQueue, openEtlQueue } from "../../jobs/etl-queue.js";
import type { RunKind } from "../../jobs/job-types.js";
import { settleRuns } from "../../jobs/settle-runs.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { findRun, lostRuns, recordRunReplaced, type RunRecord } from "../../warehouse/runs.js";
import { ExitCode } from "../exit-codes.js";
import type { ProgressOutput } from "../follow-run.js";
import { namedRunId } from "../named-run.js";
import { runDays, runStreams } from "../run-lines.js";
import { waitForRun } from "../wait-for-run.js";

export interface RequeueOptions {
  readonly lost?: boolean;
  readonly wait?: boolean;
}

const KINDS: readonly string[] = ["schedule", "backfill", "retry"] satisfies RunKind[];

/** Why a run that is not lost is not queued again. */
function notLost(run: RunRecord): string {
  switch (run.status) {
    case "queued":
    case "running":
      return `run ${run.runId} is ${run.status}: its job is in the queue, a worker runs it; nothing queued`;
    default:
      return `run ${run.runId} ${run.status}: requeue queues only lost runs; \`etl backfill\` or \`etl retry-failed\` runs its days again; nothing queued`;
  }
}

/**
 * Queues again a run the queue lost (`etl status` lists them; Redis lost its data): the one named,
 * or with --lost every one not queued again yet. Each is queued as it was asked for, the same
 * kind, streams and days, recorded in etl.runs, and the lost run records it as its replacement
 * (an identical run already queued is joined instead, and recorded so). The queue is asked first
 * which recorded runs it still has, so a run it still holds is never queued twice. With --wait
 * (one run), follows it as `backfill --wait` does.
 */
export async function requeueCommand(
  runId: string | undefined,
  options: RequeueOptions,
  out: ProgressOutput,
): Promise<ExitCode> {
  if ((runId === undefined) === (options.lost !== true)) {
    throw new UsageError("requeue takes a run id or --lost, not both");
  }
  if (options.wait && options.lost) {
    throw new UsageError("--wait follows one run: name it instead of --lost");
  }
  const { env, etl } = loadAppConfig({ upstream: false });
  const queue = await openEtlQueue(env.REDIS_URL, etl);
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
    await settleRuns(db, queue);
    const runs =
      runId === undefined ? await everyLostRun(db, out) : await namedLostRun(db, runId, out);
    if (!Array.isArray(runs)) return runs;
    const { code, last } = await queueAgain(queue, db, runs, out);
    if (!options.wait || !last) return code;
    return await waitForRun(queue, last.runId, last.streams, env.DATABASE_URL, out);
  } finally {
    await db.destroy();
    await closeEtlQueue(queue);
  }
}

async function everyLostRun(db: Warehouse, out: ProgressOutput): Promise<RunRecord[]> {
  const runs = await lostRuns(db);
  if (runs.length === 0) out.line("no lost run: nothing to queue again");
  return runs;
}

/** The run named, when it is lost and not queued again yet; else why not, and the exit code. */
async function namedLostRun(
  db: Warehouse,
  runId: string,
  out: ProgressOutput,
): Promise<RunRecord[] | ExitCode> {
  const named = await namedRunId(db, runId);
  const run = named === null ? undefined : await findRun(db, named);
  if (!run) {
    throw new UsageError(`no run ${runId} in etl.runs (\`etl status\` lists the lost runs)`);
  }
  if (run.status !== "lost") {
    out.line(notLost(run));
    return ExitCode.failure;
  }
  if (run.replacedBy !== null) {
    out.line(`run ${run.runId} was queued again already, as ${run.replacedBy}: nothing queued`);
    return ExitCode.ok;
  }
  return [run];
}

interface FollowedRun {
  readonly runId: string;
  readonly streams: readonly string[];
}

/** Queues each run again and records its replacement; `last` is the one queued last, to follow. */
async function queueAgain(
  queue: Queue,
  db: Warehouse,
  runs: readonly RunRecord[],
  out: ProgressOutput,
): Promise<{ code: ExitCode; last: FollowedRun | undefined }> {
  let last: FollowedRun | undefined;
  let code: ExitCode = ExitCode.ok;
  for (const run of runs) {
    if (!KINDS.includes(run.kind)) {
      out.line(`run ${run.runId} is a ${run.kind} run, which this release cannot queue`);
      code = ExitCode.failure;
      continue;
    }
    const data = { kind: run.kind as RunKind, streams: run.streams, range: run.range };
    const queued = await enqueueRun(queue, data, db);
    await recordRunReplaced(db, run.runId, queued.runId);
    const what = `${run.kind}, ${runDays(run)}, ${runStreams(run.streams)}`;
    out.line(
      queued.added
        ? `lost run ${run.runId} queued again as ${queued.runId} (${what})`
        : `lost run ${run.runId}: the same run is already queued or running as ${queued.runId} (${what}); recorded as its replacement`,
    );
    last = { runId: queued.runId, streams: run.streams };
  }
  return { code, last };
}
