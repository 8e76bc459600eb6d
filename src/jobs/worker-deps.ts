import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RunnerDeps } from "../runner/attempt-record.js";
import type { PartitionOutcome } from "../runner/partition-outcome.js";
import type { CredentialGate } from "./credential-gate.js";
import type { DependencyGate } from "./dependency-gate.js";
import type { UpstreamOutage } from "../http/upstream-outage.js";
import type { Notifier } from "../notify/notifier.js";

/** What the processors need; `today` is taken when each job starts. */
export interface WorkerDeps {
  readonly runner: Omit<RunnerDeps, "today" | "signal">;
  readonly queue: Queue;
  /** For the partition locks. */
  readonly redis: Redis;
  /** Aborted when the worker is told to stop: active partitions give their job back. */
  readonly shutdown: AbortSignal;
  /** Closed while the upstream refuses the credential: the worker then takes no job. */
  readonly credential: CredentialGate;
  /** Closed while Postgres or Redis does not answer: the worker then takes no job. */
  readonly dependencies: DependencyGate;
  /** Declared down while most requests fail: the worker then takes no job. */
  readonly upstream: UpstreamOutage;
  /** Told of runs that ended failed or needing attention, and of what else an operator hears of. */
  readonly notifier: Notifier;
  readonly onPartition?: (outcome: PartitionOutcome) => void;
  /** A job found stalled by this worker (its lock expired while active) went back to the queue. */
  readonly onStalled?: () => void;
}
