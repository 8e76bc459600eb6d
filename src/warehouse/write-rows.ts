import { createHash } from "node:crypto";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { jsonText } from "../json/json-body.js";
import { castName } from "./cast-names.js";
import { copyData, copyText } from "./copy-text.js";
import type { Row, TableKey } from "./row.js";
import { type WriterNote, writerNoteCondition } from "./writer-note.js";

/** A warehouse table as the row writer sees it. */
export interface TableTarget extends VersionedTable {
  /** The other columns written (and compared: a row whose values did not change is not written). */
  readonly columns: readonly string[];
}

/**
 * A table, and the version of its columns' types when some may change while the process runs
 * (discovered columns widen): a staging table made for one version is never used for another.
 */
export interface VersionedTable extends TableKey {
  readonly version?: string;
  /** Who writes, for the history of restated values (see writer-note.ts). */
  readonly writer?: WriterNote;
  /** Each column's Postgres type (`udt_name`, or a discovered kind), when known (insertStatement). */
  readonly types?: ReadonlyMap<string, string>;
}

/** Rows of one shape and the target that writes exactly their columns. */
export interface ShapedRows {
  readonly target: TableTarget;
  readonly rows: Row[];
}

/**
 * A batch's rows grouped by the columns they name, each group with its target: a column only some
 * rows name is written for them, never dropped, and left as stored for the others (an upsert does
 * not null it, a copy leaves the column's default). A row names every column it writes. `known`
 * keeps the targets of earlier batches by shape, so each shape's statements are built once.
 */
export function rowsByShape(
  table: VersionedTable,
  rows: readonly Row[],
  known: Map<string, TableTarget>,
): ShapedRows[] {
  const groups = groupByShape(table, rows, known);
  // One shape, as every stream's rows are today: the writers keep the last row of a key. Across
  // shapes they could not, so the batch keeps one row per key, the last, before it is grouped.
  return groups.length <= 1 ? groups : groupByShape(table, dedupeByKey(rows, table.key), known);
}

function groupByShape(
  table: VersionedTable,
  rows: readonly Row[],
  known: Map<string, TableTarget>,
): ShapedRows[] {
  const key = new Set(table.key);
  const groups = new Map<string, ShapedRows>();
  for (const row of rows) {
    const columns = Object.keys(row).filter((column) => !key.has(column));
    const shape = columns.join("\u0000");
    let group = groups.get(shape);
    if (!group) {
      let target = known.get(shape);
      if (!target) {
        target = { ...table, columns };
        known.set(shape, target);
      }
      group = { target, rows: [] };
      groups.set(shape, group);
    }
    group.rows.push(row);
  }
  return [...groups.values()];
}

/** Postgres takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 65_000;
const MAX_ROWS_PER_STATEMENT = 2_000;

// node-postgres sends JS arrays as Postgres arrays: JSON values are sent as text instead.
export function parameter(value: unknown): unknown {
  if (value === undefined) return null;
  return value !== null && typeof value === "object" && !(value instanceof Date)
    ? jsonText(value)
    : value;
}

/** Identity of a row by its key, as text (NUL cannot occur in Postgres text). */
export function keyOf(row: Row, key: readonly string[]): string {
  return key
    .map((column) => {
      const value = row[column];
      return value === null || value === undefined ? "\u0000null" : copyText(value);
    })
    .join("\u0000");
}

/** Rows de-duplicated by key, the last one winning: Postgres refuses to update a row twice. */
export function dedupeByKey(rows: readonly Row[], key: readonly string[]): Row[] {
  const byKey = new Map<string, Row>();
  for (const row of rows) byKey.set(keyOf(row, key), row);
  return [...byKey.values()];
}

/** Below this many rows one INSERT … VALUES beats COPY's extra round trips. */
const COPY_FROM_ROWS = 500;

/**
 * Inserts new rows and updates changed ones. A row whose values are all equal to the stored ones
 * (IS NOT DISTINCT FROM) is left alone, so a re-sync with no upstream change writes nothing.
 * `synced_at` is set on insert (column default) and on a real update. Large batches are copied
 * into a session-local staging table and merged from there in one statement: COPY parses rows
 * several times faster than bound parameters. Returns the number of rows inserted or updated.
 */
export async function upsertRows(
  db: Kysely<unknown>,
  target: TableTarget,
  rows: readonly Row[],
): Promise<number> {
  const unique = dedupeByKey(rows, target.key);
  if (unique.length === 0) return 0;
  if (unique.length < COPY_FROM_ROWS) return insertValues(db, target, unique);
  // The staging table belongs to one connection: pin one unless a transaction already has.
  return db.isTransaction
    ? mergeThroughStaging(db, target, unique)
    : db.connection().execute((connection) => mergeThroughStaging(connection, target, unique));
}

/** Postgres's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = "23505";

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

/**
 * Copies rows believed to be new (their partition never ran before, as in a first backfill)
 * straight into the table: no staging table, no conflict check per row, and COPY's bulk insert,
 * close to COPY's own speed. If a key turns out to be stored already (a crashed attempt wrote
 * part of the partition, or another partition wrote the same entity), the copy is undone to a
 * savepoint and null is returned, nothing written: those rows then need upsertRows. Batches too
 * small for COPY are merged at once, as upsertRows merges them: right whether new or not.
 */
export async function insertNewRows(
  db: Kysely<unknown>,
  target: TableTarget,
  rows: readonly Row[],
): Promise<number | null> {
  const unique = dedupeByKey(rows, target.key);
  if (unique.length < COPY_FROM_ROWS) return insertValues(db, target, unique);
  // A savepoint needs a transaction, and a transaction pins the connection.
  return db.isTransaction
    ? copyUnderSavepoint(db, target, unique)
    : db.transaction().execute((trx) => copyUnderSavepoint(trx, target, unique));
}

async function copyUnderSavepoint(
  db: Kysely<unknown>,
  target: TableTarget,
  rows: readonly Row[],
): Promise<number | null> {
  const all = [...target.key, ...target.columns];
  await sql`savepoint etl_insert_new`.execute(db);
  try {
    await sql`copy ${sql.table(target.table)} (${sql.join(all.map((c) => sql.ref(c)))})
      from stdin ${copyData(rows, all)}`.execute(db);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await sql`rollback to savepoint etl_insert_new`.execute(db);
    return null;
  }
  await sql`release savepoint etl_insert_new`.execute(db);
  return rows.length;
}

/**
 * The ON CONFLICT clause shared by both paths: update only what changed. A replay leaves
 * synced_at as the sync set it: it derives again what was received, and restates nothing.
 */
function onConflict(target: TableTarget) {
  const key = sql`on conflict (${sql.join(target.key.map((c) => sql.ref(c)))})`;
  if (target.columns.length === 0) return sql`${key} do nothing`;
  const { writer } = target;
  const changed = sql`row(${sql.join(target.columns.map((c) => sql`t.${sql.ref(c)}`))})
    is distinct from row(${sql.join(target.columns.map((c) => sql`excluded.${sql.ref(c)}`))})`;
  // The note only for a row that changes: CASE evaluates it after the comparison, not for all.
  const condition = writer
    ? sql`case when ${changed} then ${writerNoteCondition(writer)} else false end`
    : changed;
  return sql`${key} do update set ${sql.join(
    target.columns.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`),
  )}, synced_at = ${writer?.replaying ? sql`t.synced_at` : sql`now()`}
    where ${condition}`;
}

/** An identifier as Postgres reads it, quoted; a schema-qualified name part by part. */
function quoted(name: string): string {
  return name
    .split(".")
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join(".");
}

/**
 * The statement around a batch, once per target. With every column's type known, one text array
 * per column, unnested and cast: the same text whatever the batch's size (`values` takes a
 * placeholder per value, kilobytes more per statement).
 */
type InsertText = { readonly unnest: string } | { readonly head: string; readonly tail: string };

const insertText = new WeakMap<TableTarget, InsertText>();

function insertStatement(db: Kysely<unknown>, target: TableTarget): InsertText {
  let text = insertText.get(target);
  if (!text) {
    const all = [...target.key, ...target.columns];
    const columns = all.map(quoted).join(", ");
    const head = `insert into ${quoted(target.table)} as t (${columns})`;
    const tail = onConflict(target).compile(db).sql;
    const casts = all.map((column) => castName(target.types?.get(column)));
    text = casts.every((cast) => cast !== null)
      ? {
          unnest: `${head} select ${all.map((c, i) => `u.${quoted(c)}::${casts[i]}`).join(", ")}
            from unnest(${all.map((_, i) => `$${i + 1}::text[]`).join(", ")}) as u(${columns})
            ${tail}`,
        }
      : { head: `${head} values `, tail: ` ${tail}` };
    insertText.set(target, text);
  }
  return text;
}

async function insertValues(
  db: Kysely<unknown>,
  target: TableTarget,
  rows: readonly Row[],
): Promise<number> {
  const all = [...target.key, ...target.columns];
  const text = insertStatement(db, target);
  const batchSize =
    "unnest" in text
      ? MAX_ROWS_PER_STATEMENT
      : Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / all.length));
  let written = 0;
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize);
    const query =
      "unnest" in text
        ? CompiledQuery.raw(
            text.unnest,
            all.map((column) => batch.map((row) => parameter(row[column]))),
          )
        : valuesQuery(text, batch, all);
    const result = await db.executeQuery(query);
    written += Number(result.numAffectedRows ?? 0);
  }
  return written;
}

function valuesQuery(
  text: { readonly head: string; readonly tail: string },
  batch: readonly Row[],
  all: readonly string[],
): CompiledQuery {
  const parameters: unknown[] = [];
  const tuples = batch.map((row) => {
    const placeholders = all.map((column) => {
      parameters.push(parameter(row[column]));
      return `$${parameters.length}`;
    });
    return `(${placeholders.join(", ")})`;
  });
  return CompiledQuery.raw(`${text.head}${tuples.join(", ")}${text.tail}`, parameters);
}

async function mergeThroughStaging(
  db: Kysely<unknown>,
  target: TableTarget,
  rows: readonly Row[],
): Promise<number> {
  const all = [...target.key, ...target.columns];
  const columns = sql.join(all.map((c) => sql.ref(c)));
  const staging = sql.table(`pg_temp.${stagingName(target, all)}`);
  // Same column types as the target, no constraints: COPY only parses. Emptied before each use
  // (TRUNCATE: temporary tables are never vacuumed, deleted rows would pile up).
  await sql`create temp table if not exists ${staging} as
    select ${columns} from ${sql.table(target.table)} with no data`.execute(db);
  await sql`truncate ${staging}`.execute(db);
  await sql`copy ${staging} (${columns}) from stdin ${copyData(rows, all)}`.execute(db);
  const result = await sql`
    insert into ${sql.table(target.table)} as t (${columns})
    select ${columns} from ${staging}
    ${onConflict(target)}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** One staging table per target, column list and version, in the session's temporary schema. */
function stagingName(target: TableTarget, columns: readonly string[]): string {
  const digest = createHash("sha1")
    .update(`${target.table}|${columns.join(",")}|${target.version ?? ""}`)
    .digest("hex");
  return `etl_staging_${digest.slice(0, 16)}`;
}
