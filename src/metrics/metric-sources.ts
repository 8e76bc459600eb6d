import type { CurrentRate } from "../http/auto-rate.js";
import type { OutageStanding } from "../http/upstream-outage.js";
import type { DisagreementCount } from "../warehouse/reading-checks.js";
import type { SchemaChangeCount } from "../warehouse/schema-changes.js";

/** BullMQ's `queue.getJobCounts()`: job state → count. */
export type QueueCountsSource = () => Promise<Record<string, number>>;

/** Where one stream stands, from etl.stream_state. */
export interface StreamSample {
  readonly stream: string;
  /** Its family, whose schedule sets how stale it may get; null for a stream no longer declared. */
  readonly family: string | null;
  readonly lastSuccessAt: Date | null;
  /** The latest day (YYYY-MM-DD) a daily partition of the stream synced; null when not daily. */
  readonly lastDay: string | null;
  /** Partitions that failed for good: last attempt failed, and no job will try again. */
  readonly failedPartitions: number;
  /** Records of the stream waiting in quarantine (etl.rejected_records). */
  readonly rejectedRecords: number;
  /** Partitions whose last success left a list uncertain (truncated, no list, ambiguous). */
  readonly uncertainPartitions: number;
  /** Partitions whose latest load left values or records its readers could not read. */
  readonly unreadPartitions: number;
}

export type StreamsSource = () => Promise<readonly StreamSample[]>;

/** The rate the shared request budget allows now (RequestBudget.currentRate). */
export type RequestRateSource = () => Promise<CurrentRate>;

/** Whether the upstream refuses the worker's credential now (CredentialGate.refused). */
export type CredentialSource = () => boolean;

/** What the worker last found of one of its dependencies (DependencyGate.standings). */
export interface DependencySample {
  /** postgres or redis. */
  readonly name: string;
  readonly up: boolean;
  /** Since when it has been as it is (up or away); null until first probed. */
  readonly since: Date | null;
}

export type DependenciesSource = () => readonly DependencySample[];

/** How many columns of each table were added, or widened, from the first (etl.schema_changes). */
export type SchemaChangesSource = () => Promise<readonly SchemaChangeCount[]>;

/** How many days' trends readings disagree, by selection and sale type (etl.reading_checks). */
export type DisagreementsSource = () => Promise<readonly DisagreementCount[]>;

/** What the gauges read when Prometheus scrapes; set by the process once it has them. */
export interface MetricSources {
  /** Read from Redis: while it is away, etl_queue_jobs keeps the counts last read. */
  readonly queueCounts?: QueueCountsSource;
  /** BullMQ's count of the workers connected to the queue, read from Redis. */
  readonly workers?: () => Promise<number>;
  /** Read from Postgres: while it is away, the etl_stream_ gauges keep the values last read. */
  readonly streams?: StreamsSource;
  /** Read from Postgres: while it is away, etl_schema_changes_total keeps the counts last read. */
  readonly schemaChanges?: SchemaChangesSource;
  /** Read from Postgres: while it is away, etl_reading_disagreements keeps the counts last read. */
  readonly disagreements?: DisagreementsSource;
  readonly requestRate?: RequestRateSource;
  readonly credentialRefused?: CredentialSource;
  readonly dependencies?: DependenciesSource;
  /** Read from Redis: the upstream's outage, null while it is not declared down. */
  readonly upstreamOutage?: () => Promise<OutageStanding | null>;
  /** How many retries of this process waited for the retry budget. */
  readonly retriesWaited?: () => number;
}
