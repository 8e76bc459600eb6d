import type { Queue } from "bullmq";
import { credentialGateOf } from "../../src/jobs/credential-gate.js";
import { dependencyGateOf } from "../../src/jobs/dependency-gate.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { type RunProgress, readRunProgress } from "../../src/jobs/run-progress.js";
import { type EtlWorker, startEtlWorker } from "../../src/jobs/start-worker.js";
import { PageSizes } from "../../src/streams/page-sizes.js";
import type { SyncHarness } from "./sync-harness.js";
import { HANG_MS } from "./hang-limit.js";

export interface QueueHarness {
  readonly queue: Queue;
  startWorker(): EtlWorker;
  waitForRun(runId: string, timeoutMs?: number): Promise<RunProgress>;
  close(): Promise<void>;
}

/** A BullMQ queue under the harness's Redis prefix, and in-process workers on it. */
export function startQueueHarness(harness: SyncHarness): QueueHarness {
  const redisUrl = harness.upstream.redisUrl;
  const queue = createEtlQueue(redisUrl, harness.config);
  const workers: EtlWorker[] = [];
  return {
    queue,
    startWorker() {
      const worker = startEtlWorker({
        redisUrl,
        config: harness.config,
        logger: harness.upstream.context.logger,
        deps: {
          queue,
          redis: harness.upstream.context.redis,
          credential: credentialGateOf(harness.upstream.context, harness.config),
          upstream: harness.upstream.context.http.outage,
          notifier: harness.upstream.context.notifier,
          dependencies: dependencyGateOf({
            db: harness.warehouse.db,
            redis: harness.upstream.context.redis,
            databaseUrl: harness.warehouse.url,
            redisUrl,
            logger: harness.upstream.context.logger,
          }),
          runner: {
            db: harness.warehouse.db,
            api: harness.upstream.context.api,
            logger: harness.upstream.context.logger,
            config: harness.config,
            // As the worker command: what one partition learns of page sizes serves the others.
            pageSizes: new PageSizes(),
          },
        },
      });
      workers.push(worker);
      return worker;
    },
    async waitForRun(runId, timeoutMs = HANG_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const progress = await readRunProgress(queue, runId);
        if (progress?.finished) return progress;
        if (Date.now() > deadline)
          throw new Error(`run ${runId} unfinished: ${JSON.stringify(progress)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      for (const worker of workers) await worker.stop(0);
      await queue.close();
    },
  };
}
