import type { Queue } from "bullmq";
import { createEtlQueue } from "../../jobs/etl-queue.js";
import { scheduleCatchUp } from "../../jobs/schedule-catch-up.js";
import { streamSchedules } from "../../jobs/stream-schedules.js";
import { reconcileSchedulers } from "../../jobs/schedulers.js";
import { type SchedulerWatch, watchSchedulers } from "../../jobs/scheduler-watch.js";
import { type CredentialGate, credentialGateOf } from "../../jobs/credential-gate.js";
import { type DependencyGate, dependencyGateOf } from "../../jobs/dependency-gate.js";
import { type EtlWorker, startEtlWorker } from "../../jobs/start-worker.js";
import { watchStaleStreams } from "../../jobs/stale-watch.js";
import { type AppContext, createAppContext } from "../../app-context.js";
import { displayUrl } from "../../config/display-url.js";
import type { AppConfig } from "../../config/load-config.js";
import { loadAppConfig } from "../load-app-config.js";
import { createLogger, type Logger } from "../../logging/logger.js";
import { createEtlMetrics, type EtlMetrics } from "../../metrics/etl-metrics.js";
import type { MetricSources } from "../../metrics/metric-sources.js";
import { describeRate } from "../../http/auto-rate.js";
import { type OperatorServer, startOperatorServer } from "../../operator/operator-server.js";
import { PageSizes } from "../../streams/page-sizes.js";
import { STREAMS } from "../../streams/registry.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { describeHolders } from "../../warehouse/lock-holders.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { recordStreamSettings } from "../../warehouse/recorded-settings.js";
import { streamSettings } from "../../runner/stream-settings.js";
import { loadPageSizes } from "../../warehouse/page-size-facts.js";
import { streamOverviews } from "../../warehouse/stream-overview.js";
import { disagreementCounts } from "../../warehouse/reading-checks.js";
import { schemaChangeCounts } from "../../warehouse/schema-changes.js";
import { catchUpLine } from "../catch-up-line.js";
import { errorMessage } from "../../errors.js";
import { utcToday } from "../../time/calendar.js";
import { settleAfterRun } from "../../analytics/settle-after-run.js";
import { logSettlement } from "../../jobs/log-settlement.js";
import { ExitCode } from "../exit-codes.js";
import { listenForStop } from "../stop-signal.js";

/**
 * The long-running worker: serves /livez, /readyz, /metrics and /queues at once, waits for
 * Postgres and Redis (naming them, retrying with backoff, not ready meanwhile), reconciles the
 * job schedulers with the config (and re-creates them should Redis lose them while it runs), then processes runs and partitions `worker_concurrency` at a
 * time under the shared request budget, pausing while the upstream refuses the key or Postgres
 * or Redis does not answer. On SIGTERM or SIGINT it stops taking jobs, gives active ones
 * `shutdown_grace_ms` to finish (then hands them back to the queue) and exits 0.
 */
export async function workerCommand(): Promise<ExitCode> {
  const parts = await assembleWorker(loadAppConfig());
  const { config, logger, db, context, queue, dependencies } = parts;
  const { env, etl } = config;
  const stopping = listenForStop();
  let schedulers: SchedulerWatch | undefined;
  let server: OperatorServer | undefined;
  let stale: { stop(): void } | undefined;
  try {
    // Before anything is written to Redis: a port already taken ends the worker with nothing done.
    server = await serveOperator(parts);
    // Not ready, and taking nothing, until both answer; a stop meanwhile ends the wait.
    await dependencies.waitUntilOpen(stopping.signal).catch(() => undefined);
    if (stopping.signal.aborted) return ExitCode.ok;
    await prepareWarehouse(env.DATABASE_URL, db, logger);
    logSettlement(logger, await settleAfterRun(db, etl.roles, null));
    await recordStreamSettings(db, streamSettings(etl, STREAMS));
    const changes = await reconcileSchedulers(queue, etl);
    logger.info({ schedulers: changes }, "job schedulers reconciled with the config");
    // Redis may lose them while the worker runs (restarted empty, flushed): it re-creates them.
    schedulers = watchSchedulers({ queue, config: etl, logger });
    const worker = await startProcessing(parts);
    logger.info(
      {
        operator: server?.url,
        concurrency: etl.worker_concurrency,
        requestsPerSecond: describeRate(etl.requests_per_second),
      },
      "worker started",
    );
    void reportCatchUp(db, etl, logger);
    stale = watchStaleStreams({ db, notifier: context.notifier, logger });
    const signal = await stopping.received;
    logger.info({ signal, graceMs: etl.shutdown_grace_ms }, "stopping: taking no new jobs");
    await worker.stop(etl.shutdown_grace_ms);
    logger.info("worker stopped");
    await notifyIfLastWorker(queue, context.notifier);
    return ExitCode.ok;
  } finally {
    stale?.stop();
    await schedulers?.stop();
    await dependencies.stop();
    await server?.close();
    await queue.close();
    await context.close();
    await db.destroy();
  }
}

/**
 * Tells that the last worker is gone when this one stopped and no other is connected to the
 * queue: nothing runs the schedules now. A worker that dies is not told of (the EtlWorkerDown
 * alert is), nor one that stops while others run.
 */
async function notifyIfLastWorker(queue: Queue, notifier: AppContext["notifier"]): Promise<void> {
  if (!notifier.wants("last_worker_gone") || (await queue.getWorkersCount()) > 0) return;
  const at = new Date();
  notifier.notify({
    event: "last_worker_gone",
    key: at.toISOString(),
    at,
    summary: "the last worker stopped: no schedule runs, and queued jobs wait, until one starts",
    command: "npx etl worker",
  });
}

/** What the worker is made of, built before it serves anything; workerCommand closes them. */
interface WorkerParts {
  readonly config: AppConfig;
  readonly logger: Logger;
  readonly db: Warehouse;
  readonly metrics: EtlMetrics;
  readonly context: AppContext;
  readonly queue: Queue;
  readonly credential: CredentialGate;
  readonly dependencies: DependencyGate;
}

async function assembleWorker(config: AppConfig): Promise<WorkerParts> {
  const { env, etl } = config;
  const logger = createLogger({
    level: env.LOG_LEVEL,
    secrets: [env.MUSIC_API_KEY ?? "", env.OPERATOR_TOKEN ?? ""].filter(Boolean),
  });
  const db = createWarehouse(env.DATABASE_URL);
  const metrics = createEtlMetrics({
    logger,
    streams: STREAMS.map((stream) => stream.name),
    schedules: streamSchedules(etl),
  });
  const context = await createAppContext(config, {
    logger,
    http: {
      onTry: (event) => metrics.observeTry(event),
      onRateChange: (change) => metrics.observeRateChange(change),
    },
    connectInBackground: true,
  });
  const queue = createEtlQueue(env.REDIS_URL, etl, (error) =>
    logger.warn({ err: error.message }, "queue connection error"),
  );
  const credential = credentialGateOf({ ...context, logger }, etl);
  const dependencies = dependencyGateOf({
    db,
    redis: context.redis,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    logger,
  });
  const parts = { config, logger, db, metrics, context, queue, credential, dependencies };
  metrics.setSources(metricSources(parts));
  return parts;
}

function metricSources({
  db,
  context,
  queue,
  credential,
  dependencies,
}: WorkerParts): MetricSources {
  const families = new Map(STREAMS.map((stream) => [stream.name, stream.family]));
  return {
    requestRate: () => context.budget.currentRate(),
    queueCounts: () => queue.getJobCounts(),
    workers: () => queue.getWorkersCount(),
    streams: async () =>
      (await streamOverviews(db)).map((s) => ({
        stream: s.stream,
        family: families.get(s.stream) ?? null,
        lastSuccessAt: s.lastSuccessAt,
        lastDay: s.lastDay,
        failedPartitions: s.failed.length,
        rejectedRecords: s.rejected,
        uncertainPartitions: s.warned.length,
        unreadPartitions: s.unread.length,
      })),
    schemaChanges: () => schemaChangeCounts(db),
    disagreements: () => disagreementCounts(db),
    credentialRefused: () => credential.refused,
    dependencies: () => dependencies.standings(),
    upstreamOutage: () => context.http.outage.standing(),
    retriesWaited: () => context.http.retries.waited,
  };
}

function serveOperator({
  config: { env },
  metrics,
  dependencies,
  credential,
  context,
  queue,
  logger,
}: WorkerParts): Promise<OperatorServer> {
  return startOperatorServer({
    host: env.WORKER_HOST,
    port: env.WORKER_PORT,
    ...(env.OPERATOR_TOKEN === undefined ? {} : { token: env.OPERATOR_TOKEN }),
    metrics,
    checks: {
      postgres: () => dependencies.health("postgres"),
      redis: () => dependencies.health("redis"),
      upstream_credential: () => credential.health(),
      upstream: () => context.http.outage.health(),
    },
    queues: [queue],
    logger,
  });
}

/** Starts taking runs and partitions (once the gates open). */
async function startProcessing(parts: WorkerParts): Promise<EtlWorker> {
  const { config, logger, db, metrics, context, queue, credential, dependencies } = parts;
  return startEtlWorker({
    redisUrl: config.env.REDIS_URL,
    config: config.etl,
    logger,
    deps: {
      queue,
      redis: context.redis,
      credential,
      dependencies,
      upstream: context.http.outage,
      notifier: context.notifier,
      runner: {
        db,
        api: context.api,
        logger,
        config: config.etl,
        pageSizes: new PageSizes({ known: await loadPageSizes(db) }),
      },
      onPartition: (outcome) => metrics.observePartition(outcome),
      onStalled: () => metrics.observeStalledJob(),
    },
  });
}

/** Says what the schedules take beyond their lookback, if anything; never stops the worker. */
async function reportCatchUp(db: Warehouse, etl: AppConfig["etl"], logger: Logger): Promise<void> {
  try {
    const catchUp = await scheduleCatchUp(db, etl, utcToday());
    if (catchUp) logger.info({ catchUp }, catchUpLine(catchUp, etl));
  } catch (error) {
    logger.debug({ err: errorMessage(error) }, "could not plan the schedules' catch-up");
  }
}

/**
 * Migrates the warehouse, saying whom a migration lock waits for. One that does not exist stops
 * the worker (only migrate creates a database), naming it.
 */
async function prepareWarehouse(url: string, db: Warehouse, logger: Logger): Promise<void> {
  logger.info({ database: displayUrl(url) }, "writing to this warehouse");
  const { newer } = await migrateToLatest(db, {
    onLockWait: (holders, waitMs) =>
      logger.warn(
        { holders: holders.map((holder) => holder.pid), waitMs },
        `waiting for the migration lock, held by ${describeHolders(holders)}`,
      ),
  });
  if (newer.length > 0) {
    logger.warn(
      { migrations: newer },
      "the warehouse was migrated by a newer release: running on it",
    );
  }
}
