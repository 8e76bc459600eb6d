import type { z } from "zod";
import type { Operation } from "../api/operation.js";
import type { RecordList, ObjectAnswer } from "../api/results.js";
import type { StreamFamily } from "../config/families.js";
import type { JsonRecord } from "../json/json-record.js";
import type { Row } from "../warehouse/row.js";
import { type AnyPaging, NO_PAGING, type ParamsOf } from "./paging.js";
import type { Partition, ReadContext } from "./partition.js";
import type { PartitionSet } from "./partition-set.js";
import { listRecords, objectRecords } from "./record-selectors.js";
import { fieldsRead } from "../columns/fields-read.js";
import {
  defineStream,
  type TableOutput,
  type PageRecords,
  type PagedOperation,
  type Stream,
} from "./stream.js";

/** Where a record's row stands: its partition, its index in the partition, the run's date. */
export interface RowPlace<P extends Partition> {
  readonly partition: P;
  readonly position: number;
  readonly today: string;
}

/**
 * How a table keeps what a partition returns:
 * - upsert: merged by key, nothing deleted;
 * - replace: merged by key, then the partition's rows (its scope) that were not returned are
 *   deleted; `{replaceWithin}`: only the rows of the values of those columns that were returned
 *   (a list covering some months replaces those months);
 * - snapshot: like replace within the partition and the run's date (`snapshot_date`, added to
 *   every row): each day keeps its own copy of what the upstream only shows as "now".
 */
export type WriteMode =
  "upsert" | "replace" | "snapshot" | { readonly replaceWithin: readonly string[] };

/**
 * Where a page's records are in the answer as the operation parsed it: "list" (a RecordList's
 * objects, paged by the stream's paging), "object" (a ObjectAnswer: one record, or one per element
 * of a list), or a function for answers whose records are made from it (a series' points).
 */
export type RecordSelector<T, R> =
  | (T extends RecordList ? "list" : never)
  | (T extends ObjectAnswer ? "object" : never)
  | ((parsed: T, context: ReadContext) => PageRecords<R>);

/** A list inside each record, stored in a table of its own (a product's assets), merged by key. */
export interface NestedTable<R> {
  readonly table: string;
  readonly key: readonly string[];
  readonly records: (record: R) => readonly JsonRecord[];
  /** The child's columns; the builder adds the partition's scope and the child as `raw`. */
  readonly columns: (child: JsonRecord, parent: R) => Row;
}

/** The parameters of each of the operations a partition may choose, less the paging's. */
type ParamsBesides<I, Q> = I extends unknown ? Omit<I, keyof Q> : never;

/** An operation, or one the partition chooses (the audience's three domains, two playlist kinds). */
type OperationOf<P, S extends z.ZodType, T, Q> =
  (Operation<S, T> & PagedOperation<S, Q>) | ((partition: P) => Operation<S, T>);

/**
 * A stream of one upstream operation, declared as data: one request per page, one table, each
 * record mapped once into a row. The builder adds the partition's scope columns and `raw` (the
 * record as received), quarantines items that are no record, and warns of what a page leaves
 * uncertain. `defineStream` stays for the streams that need more than one request a page.
 */
export interface EndpointDeclaration<
  P extends Partition,
  S extends z.ZodType,
  T,
  R,
  G extends AnyPaging,
> {
  readonly name: string;
  readonly family: StreamFamily;
  readonly partitions: PartitionSet<P>;
  readonly operation: OperationOf<P, S, T, ParamsOf<G>>;
  /** The operation's parameters for a partition; the paging adds its own (offset, page...). */
  readonly params: (partition: P) => ParamsBesides<z.input<S>, ParamsOf<G>>;
  /** How the list goes on from page to page (default: one unpaged request). */
  readonly paging?: G;
  readonly records: RecordSelector<T, R>;
  /** What `raw` keeps of a record that the selector made (default: the record itself). */
  readonly raw?: (record: R) => unknown;
  /**
   * Fields of `raw` the selector makes the records of, each row holding one of its elements (a
   * chart series' `totals`): held by the rows, so no column of their own.
   */
  readonly madeFrom?: readonly string[];
  readonly table: string;
  readonly key: readonly string[];
  /**
   * A replace or a snapshot deletes within each partition's scope: partitions that own no rows
   * (the look-ups') take an upsert only, and the declaration throws otherwise.
   */
  readonly mode: WriteMode;
  /** The record's columns, each read once from it; the scope's columns and `raw` are added. */
  readonly columns: (record: R, place: RowPlace<P>) => Row;
  readonly nested?: readonly NestedTable<R>[];
  /** Requests a partition takes when known before fetching (default: 1 when unpaged). */
  readonly requests?: (partition: P) => number;
  /** What to remember once the partition succeeds. */
  readonly checkpoint?: (partition: P) => unknown;
}

function mainOutput<P extends Partition, R>(
  declared: Pick<
    EndpointDeclaration<P, z.ZodType, unknown, R, AnyPaging>,
    "table" | "key" | "mode"
  >,
  scope: (partition: P) => Row,
  rows: TableOutput<P, R>["rows"],
): TableOutput<P, R> {
  const target = { table: declared.table, key: declared.key };
  const { mode } = declared;
  if (mode === "upsert") return { target, mode, rows };
  if (mode === "replace" || mode === "snapshot") return { target, mode, scope, rows };
  return { target, mode: "replace", replaceWithin: mode.replaceWithin, rows };
}

function nestedOutput<P extends Partition, R>(
  nested: NestedTable<R>,
  scope: (partition: P) => Row,
): TableOutput<P, R> {
  return {
    target: { table: nested.table, key: nested.key },
    mode: "upsert",
    fieldsRead: () =>
      fieldsRead((child) => {
        nested.columns(child as JsonRecord, {} as R);
        return child;
      }),
    rows: (record, partition) =>
      nested.records(record).map((child) => ({
        ...scope(partition),
        ...nested.columns(child, record),
        raw: child,
      })),
  };
}

/**
 * The fields of a record the stream's columns hold: its own columns', the lists its nested
 * tables take (a product's assets are a table, not a column of the product) and those its
 * records are made from.
 */
function mainFieldsRead<P extends Partition, R>(
  declared: Pick<
    EndpointDeclaration<P, z.ZodType, unknown, R, AnyPaging>,
    "columns" | "nested" | "madeFrom"
  >,
  raw: (record: R) => unknown,
): (partition: P, today: string) => ReadonlySet<string> | null {
  return (partition, today) => {
    const read = fieldsRead((record) => {
      declared.columns(record as R, { partition, position: 0, today });
      for (const nested of declared.nested ?? []) nested.records(record as R);
      return raw(record as R);
    });
    return read && new Set([...read, ...(declared.madeFrom ?? [])]);
  };
}

/**
 * The Stream a declaration describes, for the registry and the runner. An endpoint's module
 * declares its operation, then its stream over it:
 *
 * ```ts
 * export const radioOperation = listEndpoint("/artist-stats/radio", byArtistOnDate);
 *
 * export const radio = endpointStream({
 *   name: "artist_stats_radio",
 *   family: "artist_stats",
 *   partitions: ARTIST_DAYS, // tracked artists × days: its scope is artist_id and snapshot_date
 *   operation: radioOperation,
 *   params: ({ artistId, day }) => ({ artist_id: artistId, date: day }),
 *   records: "list", // the list wherever the answer holds it; its items that are no object
 *   // quarantined
 *   table: "artist_stats.radio",
 *   key: ["artist_id", "snapshot_date", "position"],
 *   mode: "replace", // the day's list replaces the partition's rows
 *   columns: (_spin, { position }) => ({ position }), // every other field is discovered
 * });
 * ```
 *
 * With no `paging`, a partition is one request; `offsetPaging(operation.name, 100, "limit")`
 * pages it by offset (the runner asks each page, keeps the cursor, and stops where the list
 * ends). The types check the declaration: parameters the operation does not take, a paging
 * whose parameters it lacks, or `"list"` for an operation that answers one object do not compile.
 */
export function endpointStream<
  P extends Partition,
  S extends z.ZodType,
  T,
  R = JsonRecord,
  G extends AnyPaging = typeof NO_PAGING,
>(declared: EndpointDeclaration<P, S, T, R, G>): Stream {
  const { partitions, columns, records } = declared;
  const { scope } = partitions;
  if (declared.mode !== "upsert" && partitions.sharesTable) {
    throw new Error(
      `${declared.name}: its partitions own no rows (look-ups share the table): only an upsert may write them`,
    );
  }
  // An operation chosen by the partition is not checked against the paging: its parameters are.
  const operationOf = (partition: P) =>
    (typeof declared.operation === "function"
      ? declared.operation(partition)
      : declared.operation) as Operation<S, T> & PagedOperation<S, ParamsOf<G>>;
  const select = (parsed: T, context: ReadContext): PageRecords<R> => {
    if (records === "list") return listRecords(parsed as RecordList) as PageRecords<R>;
    if (records === "object") return objectRecords(parsed as ObjectAnswer) as PageRecords<R>;
    return records(parsed, context);
  };
  const raw = declared.raw ?? ((record: R): unknown => record);
  const paging = declared.paging ?? NO_PAGING;
  const rows: TableOutput<P, R>["rows"] = (record, partition, position, today) => [
    { ...scope(partition), ...columns(record, { partition, position, today }), raw: raw(record) },
  ];
  return defineStream<P, R, G>({
    name: declared.name,
    family: declared.family,
    ...(partitions.after ? { after: partitions.after } : {}),
    ...(partitions.daily ? { daily: true } : {}),
    paging: paging as G,
    partitions: partitions.plan,
    fetch: async (_context, partition, page) => [
      await page.send(operationOf(partition), declared.params(partition)),
    ],
    read: ([answer], partition, context) => {
      if (!answer) throw new Error("a page without a response");
      return select(operationOf(partition).parse(answer.body), context);
    },
    outputs: [
      { ...mainOutput(declared, scope, rows), fieldsRead: mainFieldsRead(declared, raw) },
      ...(declared.nested ?? []).map((nested) => nestedOutput<P, R>(nested, scope)),
    ],
    ...(declared.requests
      ? { requests: declared.requests }
      : paging.style === "none"
        ? { requests: () => 1 }
        : {}),
    ...(declared.checkpoint ? { checkpoint: declared.checkpoint } : {}),
  });
}
