import { Kysely, sql } from "kysely";
import pLimit from "p-limit";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { etlConfigSchema } from "../src/config/etl-config-schema.js";
import { pgConnectionConfig } from "../src/warehouse/pg-connection-config.js";
import { createWarehouse } from "../src/warehouse/database.js";
import { migrateToLatest } from "../src/warehouse/migrate.js";
import { insertNewRows, type TableTarget, upsertRows } from "../src/warehouse/write-rows.js";
import { copyData } from "../src/warehouse/copy-text.js";
import { type Row } from "../src/warehouse/row.js";
import { pathKey } from "../src/columns/record-fields.js";
import { ColumnDiscovery } from "../src/columns/column-discovery.js";
import { atLeast, type Figure, round, type SectionResult } from "./report.js";
import { createScratch } from "./scratch.js";
import { rollUpStaleDays } from "../src/analytics/sales-rollups.js";
import { settleRoles } from "../src/analytics/settle-roles.js";

/** The trigger that marks the days a load wrote for the sales roll-ups (migration 033). */
const MARKING_TRIGGER = "trend_item_days_stale_inserted";

const TARGET: TableTarget = {
  table: "sales.trend_items",
  key: ["day", "selection_type", "sale_type", "item_id"],
  columns: ["name", "count", "percentage", "raw"],
};
const COLUMNS = [...TARGET.key, ...TARGET.columns];
const SELECTIONS = ["dsp", "territory", "label", "product", "asset"];
const SALES = ["stream", "download"];
const WORDS = [
  "Live",
  "Hour",
  "Señorita",
  "Electric",
  "Blue",
  "Night",
  "Echo",
  "Summer",
  "Ghost",
  "Gold",
];

/** `n` trend items as the runner builds them: a day, a selection, a sale type, a raw record. */
function syntheticRows(n: number): Row[] {
  const combos = 365 * SELECTIONS.length * SALES.length;
  const perCombo = Math.ceil(n / combos);
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const combo = Math.floor(i / perCombo);
    const day = new Date(Date.UTC(2025, 0, 1 + (combo % 365))).toISOString().slice(0, 10);
    const selection = SELECTIONS[Math.floor(combo / 365) % SELECTIONS.length] as string;
    const sale = SALES[Math.floor(combo / (365 * SELECTIONS.length)) % SALES.length] as string;
    const id = `${selection}-${i % perCombo}`;
    const name = `${WORDS[i % 10]} ${WORDS[(i >> 3) % 10]} the ${WORDS[(i >> 6) % 10]} ${i}`;
    const count = (i * 7919) % 250_000;
    const percentage = round(((i * 31) % 10_000) / 100, 2);
    rows.push({
      day,
      selection_type: selection,
      sale_type: sale,
      item_id: id,
      name,
      count,
      percentage,
      raw: {
        id,
        name,
        count,
        percentage,
        rank: (i % perCombo) + 1,
        type: sale,
        label_id: `L${i % 9973}`,
      },
    });
  }
  return rows;
}

/**
 * Schema discovery's cost per record, CPU alone (its table changes are rare events): each row's
 * raw read for the fields no declared column holds (here every field but the key's `id`, as a
 * trend item declares once its unshown fields are discovered), and the row given each of its
 * table's discovered columns, as the load does before writing.
 */
function discoveryFigures(rows: readonly Row[], loaderSecondsPerRow: number): Figure[] {
  const known = new ColumnDiscovery(new Set([pathKey(["id"])]), new Map());
  const page = {};
  for (const row of rows.slice(0, 1000)) known.note(row, page);
  const columns = new Map(
    known
      .wanted()
      .map(({ field, kind }) => [pathKey(field), { column: field.join("__"), field, kind }]),
  );
  const discovery = new ColumnDiscovery(new Set([pathKey(["id"])]), columns);
  const started = performance.now();
  let filled = 0;
  for (const row of rows) {
    discovery.note(row, page);
    filled += Object.keys(discovery.complete(row, () => undefined)).length;
  }
  const seconds = (performance.now() - started) / 1000;
  const perRecord = seconds / rows.length;
  return [
    {
      name: `schema discovery per record (${columns.size} discovered fields; note + complete)`,
      value: round(perRecord * 1e6, 2),
      unit: "µs",
    },
    {
      name: "schema discovery ÷ the loader's time per row, one writer",
      value: round(perRecord / loaderSecondsPerRow, 3),
    },
    { name: "schema discovery: columns filled", value: filled },
  ];
}

/**
 * A table's own triggers (the history's) on its copy, so that the reference writes every version
 * the loader's statements write: the comparison is of two ways of writing, not of a table that
 * keeps its history against one that keeps none.
 */
async function copyTriggers(client: pg.Client, table: string, copy: string): Promise<void> {
  const { rows } = await client.query<{ definition: string }>(
    `select pg_get_triggerdef(oid) as definition from pg_trigger
      where tgrelid = $1::regclass and not tgisinternal`,
    [table],
  );
  for (const { definition } of rows)
    await client.query(definition.replace(` ON ${table} `, ` ON ${copy} `));
}

/**
 * The columns a migration dropped stay in the table's rows (as nulls, in the null bitmap) and
 * LIKE leaves them out: the copy gets as many, so that both sides write rows of one layout.
 */
async function copyDroppedColumns(client: pg.Client, table: string, copy: string): Promise<void> {
  const { rows } = await client.query<{ n: number }>(
    "select count(*)::int as n from pg_attribute where attrelid = $1::regclass and attisdropped",
    [table],
  );
  for (let i = 0; i < (rows[0]?.n ?? 0); i++) {
    await client.query(`alter table ${copy} add column dropped_${i} integer`);
    await client.query(`alter table ${copy} drop column dropped_${i}`);
  }
}

/** The history's versions of each table. */
async function versionsWritten(client: pg.Client): Promise<Map<string, number>> {
  const { rows } = await client.query<{ table_name: string; n: number }>(
    "select table_name, count(*)::int as n from history.row_versions group by table_name",
  );
  return new Map(rows.map((row) => [row.table_name, row.n]));
}

async function copyRows(client: pg.Client, table: string, rows: readonly Row[]): Promise<void> {
  await pipeline(
    Readable.from(copyData(rows, COLUMNS)),
    client.query(copyFrom(`copy ${table} (${COLUMNS.join(", ")}) from stdin`)),
  );
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

/** Rounds each side of a comparison is split into. */
const ROUNDS = 5;

/**
 * Times two ways of writing the same rows, a round of each in turn (which goes first alternates),
 * so that a slow spell of a shared machine, or a checkpoint, falls on both: seconds of each.
 */
async function interleaved(
  rows: readonly Row[],
  reference: (slice: readonly Row[]) => Promise<unknown>,
  loader: (slice: readonly Row[]) => Promise<unknown>,
): Promise<{ reference: number; loader: number }> {
  const seconds = { reference: 0, loader: 0 };
  const size = Math.ceil(rows.length / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) {
    const slice = rows.slice(round * size, (round + 1) * size);
    const sides = [
      async () => (seconds.reference += await timed(() => reference(slice))),
      async () => (seconds.loader += await timed(() => loader(slice))),
    ];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
  }
  return seconds;
}

/**
 * 1. Load path: the project's loader (in the runner's batches, one transaction each) against
 * COPY into an identical table, for fresh rows; then the same rows with 10% changed against
 * COPY into a staging table plus one INSERT … SELECT … ON CONFLICT, both keeping the history of
 * what changed, and again keeping none. Each with one writer and with the worker's concurrency.
 */
export async function loadPath(rowCount: number): Promise<SectionResult> {
  const scratch = await createScratch("load");
  const defaults = etlConfigSchema.parse({ start_date: "2025-01-01" });
  const writers = defaults.worker_concurrency;
  const db = createWarehouse(scratch.databaseUrl, { maxConnections: writers });
  const client = new pg.Client(pgConnectionConfig(scratch.databaseUrl));
  try {
    await migrateToLatest(db);
    await client.connect();
    // The list items' columns as a sync discovers them from the sandbox's records.
    await client.query(
      "alter table sales.trend_items add name text, add count bigint, add percentage numeric",
    );
    // The roles the roll-ups sum through, as the configuration sets them: the summing reads
    // the units and labels as it does after a sync, not as unresolved nulls.
    await settleRoles(db, { trend_item_units: "count", trend_item_label: "name" }, null);
    await client.query(
      "create table sales.trend_items_copy (like sales.trend_items including all)",
    );
    await copyTriggers(client, "sales.trend_items", "sales.trend_items_copy");
    await copyDroppedColumns(client, "sales.trend_items", "sales.trend_items_copy");
    const batch = defaults.write_batch_rows;
    const rows = syntheticRows(rowCount);
    const changed = rows.map((row, i) =>
      i % 10 === 0 ? { ...row, count: Number(row.count) + 1 } : row,
    );
    const written = {
      fresh: 0,
      changed: 0,
      changedBack: 0,
      reference: 0,
      referenceBack: 0,
      unkept: 0,
      unkeptBack: 0,
      unkeptReference: 0,
      unkeptReferenceBack: 0,
      history: 0,
      marked: 0,
      unmarked: 0,
    };
    // Who writes, as the worker says it to the history's trigger for a stream that keeps its
    // history (the default) or one that keeps none.
    const targets = new Map(
      [true, false].map((keepHistory) => [
        keepHistory,
        { ...TARGET, writer: { attempt: "1", replaying: false, keepHistory } },
      ]),
    );
    // As the worker runs it: batches of write_batch_rows, one transaction each, as many
    // partitions at once as worker_concurrency. A partition that never ran before (the fresh
    // rows) copies its rows in as new; one that did (the changed rows) merges them.
    const loader =
      (fresh: boolean, parallel: number, into: keyof typeof written, keepHistory = true) =>
      async (input: readonly Row[]) => {
        const target = targets.get(keepHistory) as TableTarget;
        const limit = pLimit(parallel);
        const batches: Promise<number>[] = [];
        for (let start = 0; start < input.length; start += batch) {
          const slice = input.slice(start, start + batch);
          batches.push(
            limit(() =>
              db.transaction().execute(async (trx) => {
                const tx = trx as unknown as Kysely<unknown>;
                const copied = fresh ? await insertNewRows(tx, target, slice) : null;
                return copied ?? upsertRows(tx, target, slice);
              }),
            ),
          );
        }
        for (const n of await Promise.all(batches)) written[into] += n;
      };
    const copy = (input: readonly Row[]) => copyRows(client, "sales.trend_items_copy", input);
    const insertSelect =
      (into: keyof typeof written, keepHistory = true) =>
      async (input: readonly Row[]) => {
        await client.query("begin");
        if (!keepHistory) await client.query("select set_config('music_etl.history', 'off', true)");
        await client.query(
          "create temp table staging on commit drop as select * from sales.trend_items_copy with no data",
        );
        await copyRows(client, "staging", input);
        const set = TARGET.columns.map((c) => `${c} = excluded.${c}`).join(", ");
        const result = await client.query(
          `insert into sales.trend_items_copy as t (${COLUMNS.join(", ")})
         select ${COLUMNS.join(", ")} from staging
         on conflict (${TARGET.key.join(", ")}) do update set ${set}, synced_at = now()
         where row(${TARGET.columns.map((c) => `t.${c}`).join(", ")})
           is distinct from row(${TARGET.columns.map((c) => `excluded.${c}`).join(", ")})`,
        );
        written[into] += result.rowCount ?? 0;
        await client.query("commit");
      };
    const emptyBoth = async () => {
      await client.query("truncate sales.trend_items, sales.trend_items_copy");
      await client.query("vacuum analyze sales.trend_items, sales.trend_items_copy");
    };

    const freshOne = await interleaved(rows, copy, loader(true, 1, "fresh"));
    await emptyBoth();
    written.fresh = 0;
    const fresh = await interleaved(rows, copy, loader(true, writers, "fresh"));
    // What the sales views' roll-ups cost after a run: every day the fresh rows marked, summed.
    const rollUp = await timed(() => rollUpStaleDays(db));
    const [summed] = (
      await sql<{ rows: string; read: string }>`
        select count(*)::text as rows, count(*) filter (where streams is not null)::text as read
          from sales.trend_item_days`.execute(db)
    ).rows;
    await client.query("vacuum analyze sales.trend_items, sales.trend_items_copy");
    const changedMany = await interleaved(
      changed,
      insertSelect("reference"),
      loader(false, writers, "changed"),
    );
    // The original rows again: the same 10% change, undone on both sides, the loader one writer.
    const changedOne = await interleaved(
      rows,
      insertSelect("referenceBack"),
      loader(false, 1, "changedBack"),
    );
    const [check] = (
      await sql<{ n: string }>`select count(*)::text as n from sales.trend_items`.execute(db)
    ).rows;
    const versions = await versionsWritten(client);
    // The same again as the worker writes a stream that keeps no history, as every stream wrote
    // before history was kept: the loader's own cost, apart from the versions. From tables
    // vacuumed as the first change found them, not with its dead rows.
    await client.query("vacuum analyze sales.trend_items, sales.trend_items_copy");
    const unkeptMany = await interleaved(
      changed,
      insertSelect("unkeptReference", false),
      loader(false, writers, "unkept", false),
    );
    const unkeptOne = await interleaved(
      rows,
      insertSelect("unkeptReferenceBack", false),
      loader(false, 1, "unkeptBack", false),
    );
    // The same change and its undoing, written by INSERT…SELECT with history off, then on, then
    // on, then off: what keeping the versions costs a restated row, apart from the loader.
    const historySeconds = { on: 0, off: 0 };
    for (const [input, side] of [
      [changed, "off"],
      [rows, "on"],
      [changed, "on"],
      [rows, "off"],
    ] as const) {
      historySeconds[side] += await timed(() => insertSelect("history", side === "on")(input));
    }

    // The marks the roll-ups need, on the load path: the loader with its table's marking trigger
    // and without, fresh rows, one writer.
    await emptyBoth();
    const marks = (on: boolean) =>
      client.query(
        `alter table sales.trend_items ${on ? "enable" : "disable"} trigger ${MARKING_TRIGGER}`,
      );
    const marking = await interleaved(
      rows,
      async (slice) => {
        await marks(false);
        try {
          await loader(true, 1, "unmarked")(slice);
        } finally {
          await marks(true);
        }
      },
      loader(true, 1, "marked"),
    );

    const rate = (seconds: number) => Math.round(rowCount / seconds);
    const ratio = (side: { reference: number; loader: number }) => side.reference / side.loader;
    const figures: Figure[] = [
      { name: "rows", value: rowCount },
      { name: "loader batch (write_batch_rows)", value: batch, unit: "rows" },
      {
        name: "fresh: COPY (beside one writer / beside many)",
        value: `${rate(freshOne.reference)} / ${rate(fresh.reference)}`,
        unit: "rows/s",
      },
      { name: "fresh: loader, one writer", value: rate(freshOne.loader), unit: "rows/s" },
      { name: "fresh: loader, one writer ÷ COPY", value: round(ratio(freshOne), 3) },
      {
        name: `fresh: loader, ${writers} writers (worker_concurrency)`,
        value: rate(fresh.loader),
        unit: "rows/s",
      },
      { name: "fresh: loader rows written", value: written.fresh },
      {
        name: "10% changed: INSERT…SELECT from COPY staging (beside one writer / beside many)",
        value: `${rate(changedOne.reference)} / ${rate(changedMany.reference)}`,
        unit: "rows/s",
      },
      { name: "10% changed: loader, one writer", value: rate(changedOne.loader), unit: "rows/s" },
      {
        name: "10% changed: loader, one writer ÷ INSERT…SELECT",
        value: round(ratio(changedOne), 3),
      },
      {
        name: `10% changed: loader, ${writers} writers`,
        value: rate(changedMany.loader),
        unit: "rows/s",
      },
      {
        name: "10% changed: rows written, loader (one / many writers) and INSERT…SELECT",
        value: `${written.changedBack} / ${written.changed} and ${written.referenceBack} / ${written.reference}`,
      },
      {
        name: "10% changed, history off: loader, one writer",
        value: rate(unkeptOne.loader),
        unit: "rows/s",
      },
      {
        name: "10% changed, history off: loader, one writer ÷ INSERT…SELECT",
        value: round(ratio(unkeptOne), 3),
      },
      {
        name: `10% changed, history off: loader, ${writers} writers`,
        value: rate(unkeptMany.loader),
        unit: "rows/s",
      },
      {
        name: `10% changed, history off: loader, ${writers} writers ÷ INSERT…SELECT`,
        value: round(ratio(unkeptMany), 3),
      },
      {
        name: "10% changed, history off: rows written, loader (one / many writers) and INSERT…SELECT",
        value: `${written.unkeptBack} / ${written.unkept} and ${written.unkeptReferenceBack} / ${written.unkeptReference}`,
      },
      {
        name: "10% changed: versions kept, loader and INSERT…SELECT (the same triggers)",
        value: `${versions.get("sales.trend_items") ?? 0} and ${versions.get("sales.trend_items_copy") ?? 0}`,
      },
      {
        name: "history: cost per restated row (INSERT…SELECT, history on less off)",
        value: round(((historySeconds.on - historySeconds.off) / (written.history / 2)) * 1e6, 1),
        unit: "µs",
      },
      { name: "rows stored", value: Number(check?.n ?? 0) },
      {
        name: "roll-ups: days marked, loader one writer, marks on ÷ off (rows/s)",
        value: round(marking.reference / marking.loader, 3),
      },
      {
        name: "roll-ups: rows written, marks on / off",
        value: `${written.marked} / ${written.unmarked}`,
      },
      {
        name: "roll-ups: summing the fresh rows after the run, per row",
        value: round((rollUp / rowCount) * 1e6, 2),
        unit: "µs",
      },
      {
        name: "roll-ups: daily rows summed, with streams read through the units role",
        value: `${summed?.rows ?? 0}, ${summed?.read ?? 0}`,
      },
      {
        name: "roll-ups: summing after the run ÷ the loader's time (fresh, one writer)",
        value: round(rollUp / freshOne.loader, 3),
      },
      ...discoveryFigures(rows, freshOne.loader / rowCount),
    ];
    // The targets as the worker writes: worker_concurrency partitions at once.
    return {
      section: "1 load path",
      figures,
      targets: [
        atLeast(`fresh rows: loader, ${writers} writers ÷ COPY`, ratio(fresh), 0.6),
        atLeast("roll-ups' marks: loader with ÷ without", marking.reference / marking.loader, 0.9),
        atLeast(
          `changed rows: loader, ${writers} writers ÷ INSERT…SELECT`,
          ratio(changedMany),
          0.8,
        ),
      ],
    };
  } finally {
    await client.end().catch(() => undefined);
    await db.destroy();
    await scratch.drop();
  }
}
