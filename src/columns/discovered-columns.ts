import { createHash } from "node:crypto";
import { type Kysely, type RawBuilder, sql } from "kysely";
import { SchemaChangeBusyError } from "../errors.js";
import { type SchemaLockWait, SCHEMA_LOCK_WAIT, withLockWait } from "../warehouse/lock-wait.js";
import { perTableCache } from "../warehouse/per-table-cache.js";
import { withViewsSetAside } from "../warehouse/views-set-aside.js";
import type { FingerprintsRead } from "../warehouse/attempts.js";
import { freeColumnName, type HolderOf, PIPELINE } from "./free-column-name.js";
import { pathKey } from "./record-fields.js";
import { type ColumnKind, covers, joinKinds } from "./value-kinds.js";
import { storedFieldKind, valueFromRaw } from "./stored-field-values.js";
import {
  addColumns,
  type ChangeOrigin,
  type ChangeToRecord,
  type ColumnToAdd,
  isEmpty,
  recordChanges,
} from "./column-changes.js";

/** A column made from a field the upstream sends: what it holds, and its type now. */
export interface DiscoveredColumn {
  readonly column: string;
  readonly field: readonly string[];
  readonly kind: ColumnKind;
}

/** A table's discovered columns by their field's path (pathKey). */
export type DiscoveredColumns = ReadonlyMap<string, DiscoveredColumn>;

/** A field a table needs a column of, at least as wide as `kind`. */
export interface WantedColumn {
  readonly field: readonly string[];
  readonly kind: ColumnKind;
}

/** A change made to a table, as etl.schema_changes records it. */
export interface SchemaChange {
  /** Its etl.schema_changes row, for the response that asked for it (linkSchemaChanges). */
  readonly changeId: string;
  readonly table: string;
  readonly column: string;
  readonly field: readonly string[];
  readonly change: "added" | "widened";
  readonly from: ColumnKind | null;
  readonly to: ColumnKind;
}

/** A table's discovered columns, as the registry holds them now. */
async function readDiscovered(db: Kysely<unknown>, table: string): Promise<DiscoveredColumns> {
  const { rows } = await sql<{ column_name: string; field: string[]; data_type: ColumnKind }>`
    select column_name, field, data_type from etl.discovered_columns
     where table_name = ${table}`.execute(db);
  return new Map(
    rows.map((row) => [
      pathKey(row.field),
      { column: row.column_name, field: row.field, kind: row.data_type },
    ]),
  );
}

/**
 * A table's discovered columns, read once per process and table: a field this process has not
 * met yet asks for a change, which reads them again behind the change's lock (evolveTable).
 */
const cached = perTableCache(readDiscovered);

export function discoveredColumns<DB>(db: Kysely<DB>, table: string): Promise<DiscoveredColumns> {
  return cached.get(db as Kysely<unknown>, table);
}

/**
 * One fingerprint of the discovered columns of each of `tables`, in order, for the statement
 * closing a partition to read beside what it does (etl.discovered_columns_fingerprints): equal to
 * fingerprintOf the columns a write used when no change was made since.
 */
export function discoveredFingerprintsOf(tables: readonly string[]): FingerprintsRead {
  return {
    tables,
    fingerprints: sql<string[]>`etl.discovered_columns_fingerprints(${[...tables]}::text[])`,
  };
}

const fingerprints = new WeakMap<DiscoveredColumns, string>();

/**
 * The fingerprint Postgres keeps of the same columns (etl.discovered_fingerprint_of): each
 * column's name and type, ordered by the name's UTF-8 bytes (the function's collate "C"). Kept
 * per map: a load's columns are one map until a change.
 */
export function fingerprintOf(columns: DiscoveredColumns): string {
  let fingerprint = fingerprints.get(columns);
  if (fingerprint === undefined) {
    const named = [...columns.values()]
      .map(({ column, kind }) => ({ name: Buffer.from(column), text: `${column} ${kind}` }))
      .sort((a, b) => Buffer.compare(a.name, b.name));
    fingerprint =
      named.length === 0
        ? ""
        : createHash("md5")
            .update(named.map((c) => c.text).join(","))
            .digest("hex");
    fingerprints.set(columns, fingerprint);
  }
  return fingerprint;
}

/**
 * Brings a table up to its discovered columns, when another process changed them since this one
 * looked (`known`; `seen`, the fingerprint a statement of this transaction read, says whether):
 * each column added or widened since is set again from `raw` for every row (the change filled the
 * rows stored before it; a row written after it without that column would keep the value of the
 * record it replaced). Under the table's write lock, read again: no change commits meanwhile.
 * `db` is the process's warehouse, whose cache learns them. The columns now; null when unchanged.
 */
export async function catchUpWrite<DB>(
  trx: Kysely<DB>,
  db: Kysely<DB>,
  table: string,
  known: DiscoveredColumns,
  seen: string,
): Promise<DiscoveredColumns | null> {
  if (fingerprintOf(known) === seen) return null;
  const changedSince = (now: DiscoveredColumns) =>
    [...now].filter(([key, { kind }]) => known.get(key)?.kind !== kind).map(([, column]) => column);
  const tx = trx as Kysely<unknown>;
  await sql`lock table ${sql.table(table)} in row exclusive mode`.execute(tx);
  const now = await readDiscovered(tx, table);
  for (const { column, field, kind } of changedSince(now)) {
    const value = valueFromRaw(field, kind);
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${value}
      where ${sql.ref(column)} is distinct from ${value}`.execute(tx);
  }
  cached.set(db as Kysely<unknown>, table, now);
  return now;
}

/**
 * What a widened column holds: each row's value taken again from its `raw` where the table keeps
 * one (text as the upstream wrote it, not Postgres's rendering of a timestamp; rows of earlier
 * eras filled too), else cast from the column (bigint to numeric is exact).
 */
function widening(column: DiscoveredColumn, to: ColumnKind, hasRaw: boolean): RawBuilder<unknown> {
  if (hasRaw) return valueFromRaw(column.field, to);
  const ref = sql.ref(column.column);
  if (to === "numeric") return sql`${ref}::numeric`;
  return to === "jsonb" ? sql`to_jsonb(${ref})` : sql`${ref}::text`;
}

/**
 * Who holds a name of the table: the discovered column of a field (`known`, read again as the
 * change adds to it, so the second of two fields that share a name sees the first), else the
 * pipeline where the table has a column of that name (`taken`, read under the change's lock).
 */
function holderIn(taken: ReadonlySet<string>, known: DiscoveredColumns): HolderOf {
  return (name) => {
    for (const column of known.values()) if (column.column === name) return { field: column.field };
    return taken.has(name) ? PIPELINE : undefined;
  };
}

/**
 * A table's columns now, under its lock: every name taken, and whether it keeps `raw`. Read from
 * the catalog itself: information_schema's view of it took longer than the change.
 */
async function tableColumns(db: Kysely<unknown>, table: string): Promise<Set<string>> {
  const { rows } = await sql<{ name: string }>`
    select attname as name from pg_attribute
     where attrelid = ${table}::regclass and attnum > 0 and not attisdropped`.execute(db);
  return new Set(rows.map((row) => row.name));
}

/**
 * Widens a discovered column and records its type; the analytics views read the columns their
 * roles resolved to, and are set aside meanwhile.
 */
async function widen(
  db: Kysely<unknown>,
  table: string,
  column: DiscoveredColumn,
  to: ColumnKind,
  hasRaw: boolean,
  remakeViews: RemakeViews | undefined,
): Promise<void> {
  const name = column.column;
  const alter = () =>
    sql`alter table ${sql.table(table)} alter column ${sql.ref(name)}
      type ${sql.raw(to)} using ${widening(column, to, hasRaw)}`.execute(db);
  await withViewsSetAside(db, table, name, alter, remakeViews);
  await sql`update etl.discovered_columns set data_type = ${to}, changed_at = now()
    where table_name = ${table} and column_name = ${name}`.execute(db);
}

/** Adds or widens the columns `wanted` asks for, under the table's lock; the changes made. */
async function changeUnderLock(
  db: Kysely<unknown>,
  table: string,
  wanted: readonly WantedColumn[],
  origin: ChangeOrigin,
  known: Map<string, DiscoveredColumn>,
  remakeViews: RemakeViews | undefined,
): Promise<TableEvolved> {
  await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(db);
  const taken = await tableColumns(db, table);
  const hasRaw = taken.has("raw");
  // An empty table keeps no values to fill a column from: nothing to scan for each field.
  const stores = hasRaw && !(await isEmpty(db, table));
  const holderOf = holderIn(taken, known);
  const made: ChangeToRecord[] = [];
  const added: ColumnToAdd[] = [];
  for (const { field, kind } of wanted) {
    const column = known.get(pathKey(field));
    // Rows written before (another era, a frozen contract) are filled too: the type holds theirs.
    const stored = stores ? await storedFieldKind(db, table, field) : null;
    const asked = column ? joinKinds(column.kind, kind) : kind;
    const to = stored === null ? asked : joinKinds(asked, stored);
    if (column && to === column.kind) continue;
    let name: string;
    if (column) {
      await widen(db, table, column, to, hasRaw, remakeViews);
      name = column.column;
    } else {
      const named = freeColumnName(field, holderOf);
      added.push({ field, to, named, stored });
      name = named.column;
    }
    made.push({
      column: name,
      field,
      change: column ? "widened" : "added",
      from: column?.kind ?? null,
      to,
    });
    known.set(pathKey(field), { column: name, field, kind: to });
  }
  await addColumns(db, table, added, origin.stream);
  const ids = await recordChanges(db, table, made, origin);
  const changes = made.map((change, i): SchemaChange => ({
    ...change,
    changeId: ids[i] as string,
    table,
  }));
  return { changes, columns: known };
}

/**
 * Builds again, in the change's transaction, the views whose definition depends on a widened
 * column's type (the analytics views: the layer that makes them knows how).
 */
export type RemakeViews = (trx: Kysely<unknown>) => Promise<void>;

/** What a table became: the changes made, and its discovered columns now. */
export interface TableEvolved {
  readonly changes: readonly SchemaChange[];
  readonly columns: DiscoveredColumns;
}

/**
 * Makes `table` hold what `wanted` asks, in a transaction of its own that commits before the rows
 * that need the change are written: the table's exclusive lock is held for the change alone,
 * never behind a write (two writes each holding a table the other's change waits for would stall
 * both). A reader or writer holding the table is waited for `lockTimeoutMs` at a time, so that
 * the work queued behind the change never waits longer than that; it then tries again. A column
 * the views read is widened with them set aside (withViewsSetAside), `remakeViews` making again
 * those its new type needs made anew.
 */
export async function evolveTable(
  db: Kysely<unknown>,
  table: string,
  wanted: readonly WantedColumn[],
  origin: ChangeOrigin,
  wait: SchemaLockWait = SCHEMA_LOCK_WAIT,
  remakeViews?: RemakeViews,
): Promise<TableEvolved> {
  const evolved = await withLockWait(
    db,
    `schema:${table}`,
    wait,
    async (trx) => {
      // Read again: another worker may have made the same change, or a wider one.
      const known = new Map(await readDiscovered(trx, table));
      const needed = wanted.filter(({ field, kind }) => {
        const column = known.get(pathKey(field));
        return !column || !covers(column.kind, kind);
      });
      if (needed.length === 0) return { changes: [], columns: known };
      return changeUnderLock(trx, table, needed, origin, known, remakeViews);
    },
    (attempts, cause) => new SchemaChangeBusyError(table, attempts, cause),
  );
  // Committed: what this process's next partitions start from.
  cached.set(db, table, evolved.columns);
  return evolved;
}
