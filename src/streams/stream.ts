/**
 * The contract a stream is declared against, and the words it is written in. Each word names one
 * thing, in the code, the tables and the docs:
 *
 * - **run**: one piece of work asked for (a scheduled run, a backfill, a retry, a `sync`, a
 *   `replay`) over some streams and days; `etl.runs.run_id`, `runId`.
 * - **attempt**: one sync of one partition within a run, or one replay of an earlier sync's landed
 *   responses; a failed attempt is followed by another. `etl.attempts`, a row each, its id
 *   `attempt_id` (`attemptId`, `startAttempt`); `etl.schema_changes.attempt_id`. BullMQ counts a
 *   job's runs as its attempts (`job_attempts`, `attemptsMade`): the queue's own word, said as a
 *   job's attempts.
 * - **try**: one sending of one HTTP request; a retry is another try of the same request, within
 *   one attempt. `HttpTryEvent`, `onTry`.
 * - **operation**: one upstream call declared as data: its name, its parameters' schema, its
 *   request, how its answer is opened (`Operation`, `defineOperation`, `listEndpoint`,
 *   `objectEndpoint`). A command calls one (`api.call`: its result); the extract stage sends one
 *   (`api.send`, `page.send`: its answer).
 * - **endpoint**: an upstream path with what serves it here: its operation and stream, one module
 *   (`src/streams/<family>/<endpoint>.ts`), and its sandbox route (`sandbox/endpoints/…`).
 * - **answer**: what the upstream sent back to a try; `Answer` is one the client returned, as
 *   received: its status, body and bytes. An **object answer** is one object rather than a list
 *   (`ObjectAnswer`).
 * - **landed response**: an answer stored as received, in the transaction of the rows read from
 *   it: what a replay reads (`etl.responses`).
 * - **page**: the answers one cursor's requests brought; the **cursor** says where a page starts,
 *   and the extract loop keeps it (`Paging`, `fetchPages`).
 * - **stream**: one endpoint landing in one table (a few for nested lists), declared once
 *   (`Stream`, `endpointStream`); a **family** is the streams that share a schedule, a lookback
 *   and settings (`src/config/families.ts`).
 * - **partition**: the unit a stream is synced, checkpointed, locked and retried by (`Partition`);
 *   a **partition set** is what a stream's partitions range over (`PartitionSet`).
 * - **scope**: the rows something applies to, said by the columns and values they share. A
 *   partition's scope is what every row of it carries, within which a replace or a snapshot
 *   deletes what the partition no longer returns (`PartitionSet.scope`); a role's, the selection
 *   and sale type its column is resolved for (`etl.roles.scope`, a config key's `.<scope>`).
 * - **window**: the days one request of a date series asks for (`since`/`until`,
 *   `windowPaging`). The queue's bound on the partitions it holds is the **plan window**
 *   (`plan_window`), the request budget's second the **rate window**: other words.
 * - **write mode**: how a partition's rows land: `upsert`, `replace`, `snapshot`, `replaceWithin`
 *   (`WriteMode`).
 * - **replay**: loading rows again from landed responses, with no request (`replayPartition`).
 * - **quarantine**: the records that yielded no storable row, kept with their landed response
 *   (`etl.rejected_records`).
 * - **discovered column**: a typed column made from a field no stream declares, named as the
 *   upstream names it and widened as values need (`etl.discovered_columns`).
 * - **role**: a meaning the analytics views need (an item's units, a title), resolved to a typed
 *   column per selection and sale type (`src/analytics/roles.ts`); a **roll-up** sums the items
 *   a day or a month at a time. The reader role `grant-reader` makes is Postgres's word.
 * - **gate**: what keeps a worker from taking jobs while something it needs is away (Postgres,
 *   Redis, the credential, the upstream: `src/jobs/*-gate.ts`).
 */
import type { z } from "zod";
import type { CatalogueArtistLink } from "../warehouse/artist-links.js";
import type { ApiClient, CallOptions, Answer } from "../api/api-client.js";
import type { ListPage } from "../api/list-page.js";
import type { Operation } from "../api/operation.js";
import type { EtlConfig } from "../config/etl-config-schema.js";
import type { Warehouse } from "../warehouse/database.js";
import type { Row, TableKey } from "../warehouse/row.js";
import type { StreamFamily } from "../config/families.js";
import type { AnyPaging, CursorOf, NO_PAGING, Paging, ParamsOf } from "./paging.js";
import type { Cursor, PageWarning, Partition, ReadContext } from "./partition.js";

export interface PlanContext {
  readonly db: Warehouse;
  readonly config: EtlConfig;
  /** The run's date (UTC). */
  readonly today: string;
  /** Days that daily partitions cover: --from..--to, or start_date..yesterday. */
  readonly days: readonly string[];
  /** Checkpoints of those of the given partitions that succeeded before, by partition key. */
  checkpoints(keys: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
  /**
   * The social ids the per-artist streams fetch, ascending: artist_stats.artists in a run, what
   * a run would track in `etl plan` (which must not wait for the stream that writes them).
   */
  trackedArtistIds(): Promise<readonly number[]>;
  /**
   * Catalogue artists linked to a social artist, by catalogue id. Read through the context, as
   * the tracked artists are: a stream module loads no database client, so a command that only
   * names streams (`backfill`) starts without one.
   */
  catalogueArtistLinks(): Promise<readonly CatalogueArtistLink[]>;
}

/**
 * A stream's partitions, in a list or made one at a time: a year of a large account's artist
 * days is millions of them, and the run plans them a slice at a time.
 */
export type Partitions<P> = Iterable<P> | AsyncIterable<P>;

export interface FetchContext {
  readonly api: ApiClient;
  /** Pass to every API call: cancellation and request accounting. */
  readonly call: CallOptions;
  readonly config: EtlConfig;
  readonly today: string;
}

/**
 * An operation that takes every parameter of a paging (`Q`): a stream cannot declare a paging
 * its request would not carry.
 */
export type PagedOperation<S extends z.ZodType, Q> = Operation<S, unknown> &
  ([Exclude<keyof Q, keyof z.input<S>>] extends [never]
    ? unknown
    : { readonly lacksPagingParameters: Exclude<keyof Q, keyof z.input<S>> });

/** The page a fetch asks for, as the stream's paging made it from the cursor. */
export interface PageFetch<Q extends object> {
  /** The paging's parameters of this page (none when the page is a link to follow). */
  readonly params: Q;
  /**
   * Asks `operation` for this page: the stream's `params` with the page's, or the next-page link
   * the previous page gave.
   */
  send<S extends z.ZodType>(
    operation: PagedOperation<S, Q>,
    params: Omit<z.input<S>, keyof Q>,
  ): Promise<Answer>;
}

/** An item of a response that is no record at all (not an object): quarantined with why. */
export interface RejectedItem {
  readonly item: unknown;
  readonly reason: string;
}

/**
 * One page as the load stage reads it from its responses. Where the next page starts is the
 * stream's paging's to say, from `list`.
 */
export interface PageRecords<R> {
  readonly records: readonly R[];
  /** The list the page's body holds, and what it says of the rest (none: a single object). */
  readonly list?: ListPage;
  readonly rejected?: readonly RejectedItem[];
  readonly warnings?: readonly PageWarning[];
}

/**
 * How a stream's records land in one table: a write mode as an endpoint declares it (WriteMode,
 * in endpoint-stream.ts, says what each does), with what the runner needs to apply it. What a
 * replace or a snapshot deletes is required by the type: without it, it would quietly behave as an
 * upsert and keep rows the upstream no longer returns.
 */
export type TableOutput<P extends Partition, R> = OutputRows<P, R> &
  (
    | { readonly mode: "upsert" }
    | {
        readonly mode: "replace" | "snapshot";
        /** The columns and values that identify a partition's rows (`{}`: the whole table). */
        readonly scope: (partition: P) => Row;
      }
    | {
        readonly mode: "replace";
        /** Columns whose values among the rows read scope the deletions. */
        readonly replaceWithin: readonly string[];
      }
  );

interface OutputRows<P extends Partition, R> {
  readonly target: TableKey;
  /**
   * The rows of one record; `position` is the record's index in the partition, `today` the run's
   * date. A key column holding an array gives one row per element (a record listing several
   * links is several rows). A row names every column it writes: that is where the output's
   * columns are declared.
   */
  readonly rows: (record: R, partition: P, position: number, today: string) => readonly Row[];
  /**
   * The fields of a row's `raw` that its declared columns hold (pathKeys) in a partition: no
   * discovered column is made of them. Absent: found by reading `rows` with a recording record
   * (fieldsRead), which cannot tell what other outputs take (a product's assets) nor read the
   * records of a nested table.
   */
  readonly fieldsRead?: (partition: P, today: string) => ReadonlySet<string> | null;
}

/**
 * A stream: the records of one or more endpoints landing in one table (a few for nested lists), declared as data, run by the generic runner. `C` is
 * its cursor: where a page starts (stored as JSON with the page's responses), `Q` the parameters
 * its paging gives a page's request; both are its paging's.
 */
export interface Stream<
  P extends Partition = Partition,
  R = unknown,
  C = Cursor,
  Q extends object = object,
> {
  readonly name: string;
  readonly family: StreamFamily;
  /**
   * Streams whose rows this one's partitions are planned from: a run plans it once they have
   * finished. Every other stream runs alongside the rest, in one pool.
   */
  readonly after?: readonly string[];
  readonly outputs: readonly TableOutput<P, R>[];
  /**
   * Its partitions are per day of the run's range (a partition's `day`): a run plans them one
   * day at a time, newest first, and `etl status` counts the days never synced.
   */
  readonly daily?: boolean;
  /**
   * How its list goes on from page to page: one of paging.ts's styles. The runner's extract loop
   * asks each page as it says and keeps the cursor, asking it where the next page starts from
   * what each page read says of its list.
   */
  readonly paging: Paging<C, Q, P>;
  partitions(context: PlanContext): Partitions<P> | Promise<Partitions<P>>;
  /**
   * Extract: the responses of one page, as received (usually one request: `page.send`,
   * which adds the page's paging to it).
   */
  fetch(context: FetchContext, partition: P, page: PageFetch<Q>): Promise<readonly Answer[]>;
  /** Load: the records of one page from its responses. No I/O: `etl replay` runs it again. */
  read(answers: readonly Answer[], partition: P, context: ReadContext): PageRecords<R>;
  /**
   * The requests a partition takes, where that is known before fetching (a fixed number of
   * unpaged calls, the windows of a series): `etl plan` counts these exactly and estimates the
   * others from earlier runs.
   */
  requests?(partition: P): number;
  /** What to remember once the partition succeeds (default: nothing beyond success). */
  checkpoint?(partition: P): unknown;
}

/**
 * Erases a stream's partition, record and paging types, for lists of streams: the runner hands
 * each page's cursor back to the paging that made it, so the paging may trust its own type. `G`
 * is the type of the stream's paging (unpaged unless said).
 */
export function defineStream<P extends Partition, R, G extends AnyPaging = typeof NO_PAGING>(
  stream: Stream<P, R, CursorOf<G>, ParamsOf<G>>,
): Stream {
  return stream as unknown as Stream;
}
