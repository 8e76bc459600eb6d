import { createEtlQueue } from "../../jobs/etl-queue.js";
import { streamSchedules } from "../../jobs/schedule-interval.js";
import { reconcileSchedulers } from "../../jobs/schedulers.js";
import { type SchedulerWatch, watchSchedulers } from "../../jobs/scheduler-watch.js";
import { credentialGateOf } from "../../jobs/credential-gate.js";
import { startEtlWorker } from "../../jobs/start-worker.js";
import { createAppContext } from "../../app-context.js";
import { loadConfig } from "../../config/load-config.js";
import { createLogger } from "../../logging/logger.js";
import { createEtlMetrics } from "../../metrics/etl-metrics.js";
import { redisCheck } from "../../operator/health-checks.js";
import { startOperatorServer } from "../../operator/operator-server.js";
import { PageSizes } from "../../streams/page-sizes.js";
import { STREAMS } from "../../streams/registry.js";
import { createWarehouse, pingWarehouse } from "../../warehouse/database.js";
import { ensureDatabase } from "../../warehouse/ensure-database.js";
import { describeHolders } from "../../warehouse/lock-holders.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { loadPageSizes } from "../../warehouse/page-sizes.js";
import { streamStatuses } from "../../warehouse/stream-status.js";
import { ExitCode } from "../exit-codes.js";
import { listenForStop } from "../stop-signal.js";

/**
 * The long-running worker: reconciles the job schedulers with the config (and re-creates them
 * should Redis lose them while it runs), processes runs and partitions `worker_concurrency` at a
 * time under the shared request budget, and serves /livez, /readyz, /metrics and /queues. On
 * SIGTERM or SIGINT it stops taking jobs, gives active ones `shutdown_grace_ms` to finish (then
 * hands them back to the queue) and exits 0.
 */
export async function workerCommand(): Promise<ExitCode> {
  const config = loadConfig();
  const { env, etl } = config;
  const logger = createLogger({ level: env.LOG_LEVEL, secrets: [env.MUSIC_API_KEY ?? ""] });
  await ensureDatabase(env.DATABASE_URL);
  const db = createWarehouse(env.DATABASE_URL);
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
  const metrics = createEtlMetrics({
    logger,
    streams: STREAMS.map((stream) => stream.name),
    schedules: streamSchedules(etl),
  });
  const context = await createAppContext(config, {
    logger,
    http: { onAttempt: (event) => metrics.observeAttempt(event) },
  });
  const queue = createEtlQueue(env.REDIS_URL, etl, (error) =>
    logger.warn({ err: error.message }, "queue connection error"),
  );
  // The probe's own connection: it fails at once while Redis is away instead of queueing pings.
  const healthRedis = context.redis.duplicate({
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  healthRedis.on("error", () => undefined);
  const stopping = listenForStop();
  const credential = credentialGateOf({ ...context, logger }, etl);
  let schedulers: SchedulerWatch | undefined;
  try {
    const changes = await reconcileSchedulers(queue, etl);
    logger.info({ schedulers: changes }, "job schedulers reconciled with the config");
    // Redis may lose them while the worker runs (restarted empty, flushed): it re-creates them.
    schedulers = watchSchedulers({ queue, config: etl, logger });
    const families = new Map(STREAMS.map((stream) => [stream.name, stream.family]));
    metrics.setSources({
      requestRate: () => context.budget.currentRate(),
      queueCounts: () => queue.getJobCounts(),
      streams: async () =>
        (await streamStatuses(db)).map((s) => ({
          stream: s.stream,
          family: families.get(s.stream) ?? null,
          lastSuccessAt: s.lastSuccessAt,
          lastDay: s.lastDay,
          failedPartitions: s.failed.length,
        })),
      credentialRefused: () => credential.refused,
    });
    const server = await startOperatorServer({
      port: env.WORKER_PORT,
      metrics,
      checks: {
        postgres: () => pingWarehouse(db),
        redis: () => redisCheck(healthRedis),
        upstream_credential: () => credential.health(),
      },
      queues: [queue],
      logger,
    });
    const worker = startEtlWorker({
      redisUrl: env.REDIS_URL,
      config: etl,
      logger,
      deps: {
        queue,
        redis: context.redis,
        credential,
        runner: {
          db,
          api: context.api,
          logger,
          config: etl,
          pageSizes: new PageSizes({ known: await loadPageSizes(db) }),
        },
        onPartition: (outcome) => metrics.observePartition(outcome),
        onStalled: () => metrics.observeStalledJob(),
      },
    });
    logger.info(
      {
        operator: server.url,
        concurrency: etl.worker_concurrency,
        requestsPerSecond: etl.requests_per_second,
      },
      "worker started",
    );
    const signal = await stopping.received;
    logger.info({ signal, graceMs: etl.shutdown_grace_ms }, "stopping: taking no new jobs");
    await worker.stop(etl.shutdown_grace_ms);
    await server.close();
    logger.info("worker stopped");
    return ExitCode.ok;
  } finally {
    await schedulers?.stop();
    healthRedis.disconnect();
    await queue.close();
    await context.close();
    await db.destroy();
  }
}
