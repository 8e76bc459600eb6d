import { statfs } from "node:fs/promises";
import type { Kysely } from "kysely";
import pLimit from "p-limit";
import pg from "pg";
import { etlConfigSchema } from "../src/config/etl-config-schema.js";
import { createWarehouse } from "../src/warehouse/database.js";
import { migrateToLatest } from "../src/warehouse/migrate.js";
import { pgConnectionConfig } from "../src/warehouse/pg-connection-config.js";
import {
  addDiscoveredColumns,
  SANDBOX_DISCOVERED,
  settleAnalyticsRoles,
} from "./bi-discovered-columns.js";
import {
  catalogueStatements,
  DAY_ITEM_VERSIONS,
  DAY_ITEMS,
  entitiesStatements,
  incomesStatement,
  LARGE,
  payoutsStatement,
  TOTALS,
  TOTALS_VERSIONS,
} from "./bi-dataset-sql.js";
import { addDays, type BiScale } from "./bi-scale.js";

/** What was written, how long it took and how much room it takes. */
export interface BiDataset {
  readonly scale: BiScale;
  /** Null when written in full; else why the generation stopped (the queries are not run). */
  readonly stopped: string | null;
  readonly rows: Readonly<Record<string, number>>;
  readonly seconds: {
    readonly catalogue: number;
    readonly items: number;
    readonly totals: number;
    readonly indexes: number;
    /** The roles settled and the sales roll-ups summed (all at once, as after a backfill). */
    readonly roles: number;
    readonly vacuum: number;
    readonly total: number;
  };
  /** Seconds the trend items of one day took, on average over the days written. */
  readonly secondsPerDay: number;
  readonly databaseBytes: number;
  readonly trendItemsBytes: number;
  readonly roles: string;
  /** A product and a DSP that sold on every day, for the queries about one of them. */
  readonly productId: number;
  readonly dspId: number;
}

/** Sessions writing days at once: Postgres does the work, on this machine's 2 cores. */
const WRITERS = 2;
/** Days written between two looks at the room left. */
const CHUNK_DAYS = 30;
/** Room the generation leaves free on the server's disk, past what it projects to need. */
const MARGIN_BYTES = 5 * 2 ** 30;
/** The tables written in bulk, whose secondary indexes are built after the load. */
const BULK_TABLES = ["sales.trend_items", "history.row_versions"];

const GiB = (bytes: number) => (bytes / 2 ** 30).toFixed(1);

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

/**
 * The bulk tables' secondary indexes and trend items' foreign keys, dropped for the load and made
 * again after it from their own definitions: exactly the migrations' (built in one sort, and
 * checked in one join, instead of row by row).
 */
async function dropSecondary(client: pg.Client): Promise<string[]> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i
      where i.indrelid = any($1::regclass[])
        and not exists (select from pg_constraint c where c.conindid = i.indexrelid)`,
    [BULK_TABLES],
  );
  const { rows: keys } = await client.query<{ name: string; definition: string }>(
    `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
      where conrelid = 'sales.trend_items'::regclass and contype = 'f'`,
  );
  for (const { name } of indexes) await client.query(`drop index ${name}`);
  for (const { name } of keys) {
    await client.query(
      `alter table sales.trend_items drop constraint ${pg.escapeIdentifier(name)}`,
    );
  }
  return [
    ...indexes.map(({ definition }) => definition),
    ...keys.map(
      ({ name, definition }) =>
        `alter table sales.trend_items add constraint ${pg.escapeIdentifier(name)} ${definition}`,
    ),
  ];
}

/**
 * Free bytes on the disk of the server's data directory, when the server runs on this machine
 * (and says where its data is); null when that cannot be told.
 */
async function freeBytes(client: pg.Client, databaseUrl: string): Promise<number | null> {
  const host = new URL(databaseUrl).hostname;
  if (!["", "localhost", "127.0.0.1", "[::1]"].includes(host)) return null;
  try {
    const { rows } = await client.query<{ data_directory: string }>("show data_directory");
    const directory = rows[0]?.data_directory;
    if (directory === undefined) return null;
    const stats = await statfs(directory);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

async function databaseBytes(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    "select pg_database_size(current_database())::text as n",
  );
  return Number(rows[0]?.n ?? 0);
}

interface Day {
  readonly day: string;
  readonly index: number;
  /** The last day of its month: restated the day after its first sync (late sales). */
  readonly restated: boolean;
  readonly firstSync: string;
  readonly synced: string;
  /** Its streams against the first day's: growth over the dataset, and weekends. */
  readonly factor: number;
}

function daysOf(scale: BiScale): Day[] {
  return Array.from({ length: scale.days }, (_, index) => {
    const day = addDays(scale.firstDay, index);
    const restated = addDays(day, 1).endsWith("-01");
    const weekend = [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());
    const firstSync = `${addDays(day, 1)} 05:05:00+00`;
    return {
      day,
      index,
      restated,
      firstSync,
      synced: restated ? `${addDays(day, 2)} 05:05:00+00` : firstSync,
      factor: (1 + (0.3 * index) / scale.days) * (weekend ? 1.15 : 1),
    };
  });
}

/** A day's lists' sums, by selection type and sale type. */
type DayTotals = Map<string, { stream: bigint; download: bigint }>;

/**
 * Writes `scale`'s dataset into the migrated warehouse at `databaseUrl`, straight into the tables:
 * the catalogue, incomes and payouts, then the trend items day by day (one statement a day,
 * WRITERS at once), the month-end days restated as a lookback finds late sales (their first
 * versions in the history), then the totals, the indexes, the analytics roles and VACUUM ANALYZE.
 * Stops early, and says so, when the rest would not fit on the server's disk.
 */
export async function generateBiDataset(scale: BiScale, databaseUrl: string): Promise<BiDataset> {
  const started = performance.now();
  const log = (text: string) => console.error(`bench: bi ${scale.name}: ${text}`);
  const db = createWarehouse(databaseUrl, { maxConnections: 2 });
  const client = new pg.Client(pgConnectionConfig(databaseUrl));
  // The writers' sessions: commits not waiting for the disk (a lost tail of the load is made
  // again, not repaired), and room for a day's sort in memory.
  const pool = new pg.Pool({
    ...pgConnectionConfig(databaseUrl),
    max: WRITERS,
    options: "-c synchronous_commit=off -c work_mem=256MB",
  });
  try {
    await migrateToLatest(db);
    for (const { table, stream, columns } of SANDBOX_DISCOVERED) {
      await addDiscoveredColumns(db as unknown as Kysely<unknown>, table, columns, stream);
    }
    await client.connect();
    await client.query("set synchronous_commit = off; set maintenance_work_mem = '1GB'");
    const secondary = await dropSecondary(client);

    const times = scale.times;
    const monthIndex = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
    const monthCount = monthIndex(scale.lastDay) - monthIndex(scale.firstDay) + 1;
    const perMonth = Math.round((LARGE.incomesPerYear * times) / 12);
    const payouts = LARGE.payouts * times;
    const catalogue = await timed(async () => {
      for (const statement of [...entitiesStatements(times), ...catalogueStatements(times)]) {
        await client.query(statement);
      }
      await client.query(incomesStatement(scale.firstDay, monthCount, perMonth));
      await client.query(
        payoutsStatement(payouts, scale.firstDay, scale.days, addDays(scale.lastDay, 1)),
      );
    });
    log(`catalogue, incomes and payouts in ${catalogue.toFixed(1)} s`);

    const days = daysOf(scale);
    const totals = new Map<string, DayTotals>();
    let versionRows = 0;
    const writeDay = async (day: Day) => {
      const { rows } = await pool.query<{
        selection_type: string;
        sale_type: string;
        units: string;
      }>(DAY_ITEMS, [day.day, day.index, day.synced, day.factor]);
      const sums: DayTotals = new Map();
      for (const row of rows) {
        const sum = sums.get(row.selection_type) ?? { stream: 0n, download: 0n };
        sum[row.sale_type as "stream" | "download"] = BigInt(row.units);
        sums.set(row.selection_type, sum);
      }
      totals.set(day.day, sums);
      if (day.restated) {
        const written = await pool.query(DAY_ITEM_VERSIONS, [day.day, day.firstSync]);
        versionRows += written.rowCount ?? 0;
      }
    };
    const limit = pLimit(WRITERS);
    const baseBytes = await databaseBytes(client);
    let stopped: string | null = null;
    const itemsStarted = performance.now();
    let daysWritten = 0;
    for (let start = 0; start < days.length; start += CHUNK_DAYS) {
      const chunk = days.slice(start, start + CHUNK_DAYS);
      await Promise.all(chunk.map((day) => limit(() => writeDay(day))));
      daysWritten += chunk.length;
      if (start === 0) await client.query("analyze sales.trend_items");
      const bytes = await databaseBytes(client);
      const elapsed = (performance.now() - itemsStarted) / 1000;
      const perDay = (bytes - baseBytes) / daysWritten;
      const projected = baseBytes + perDay * days.length;
      log(
        `${daysWritten} of ${days.length} days in ${elapsed.toFixed(0)} s, ${GiB(bytes)} GiB` +
          ` (projected: ${GiB(projected)} GiB before indexes, ${((elapsed / daysWritten) * days.length).toFixed(0)} s)`,
      );
      // The rest of the days, then the indexes (about a fifth of the heap) and their sorts' room.
      const needed = perDay * (days.length - daysWritten) + 0.5 * projected + MARGIN_BYTES;
      const free = daysWritten < days.length ? await freeBytes(client, databaseUrl) : null;
      if (free !== null && free < needed) {
        stopped =
          `stopped after ${daysWritten} of ${days.length} days: the rest needs about ` +
          `${GiB(needed - MARGIN_BYTES)} GiB more (${GiB(projected)} GiB of tables before their ` +
          `indexes), the server's disk has ${GiB(free)} GiB free`;
        log(stopped);
        break;
      }
    }
    const itemRows = daysWritten * 2 * (await entityCount(client));
    const itemsSeconds = (performance.now() - itemsStarted) / 1000;
    const secondsPerDay = itemsSeconds / daysWritten;
    const sizes = async () => ({
      databaseBytes: await databaseBytes(client),
      trendItemsBytes: Number(
        (
          await client.query<{ n: string }>(
            "select pg_total_relation_size('sales.trend_items')::text as n",
          )
        ).rows[0]?.n ?? 0,
      ),
    });
    const base = {
      scale,
      productId: 100001,
      dspId: 1,
      secondsPerDay,
    };
    if (stopped !== null) {
      return {
        ...base,
        stopped,
        rows: { "sales.trend_items": itemRows },
        seconds: {
          catalogue,
          items: itemsSeconds,
          totals: 0,
          indexes: 0,
          roles: 0,
          vacuum: 0,
          total: (performance.now() - started) / 1000,
        },
        ...(await sizes()),
        roles: "not settled: the dataset was not written in full",
      };
    }

    const totalsSeconds = await timed(async () => {
      const columns = {
        days: [] as string[],
        types: [] as string[],
        streams: [] as string[],
        downloads: [] as string[],
        synced: [] as string[],
      };
      for (const day of days) {
        for (const [type, sum] of totals.get(day.day) ?? []) {
          columns.days.push(day.day);
          columns.types.push(type);
          columns.streams.push(String(sum.stream));
          columns.downloads.push(String(sum.download));
          columns.synced.push(day.synced);
        }
      }
      await client.query(TOTALS, Object.values(columns));
      const restated = days.filter((day) => day.restated);
      const written = await client.query(TOTALS_VERSIONS, [
        restated.map((day) => day.day),
        restated.map((day) => day.firstSync),
      ]);
      versionRows += written.rowCount ?? 0;
    });
    const indexes = await timed(async () => {
      for (const statement of secondary) await client.query(statement);
    });
    log(`totals in ${totalsSeconds.toFixed(1)} s, indexes and keys in ${indexes.toFixed(1)} s`);
    await client.query("drop schema bench_gen cascade");
    let roles = "";
    const rolesSeconds = await timed(async () => {
      roles = await settleAnalyticsRoles(db, etlConfigSchema.parse({ start_date: scale.firstDay }));
    });
    log(`roles and roll-ups in ${rolesSeconds.toFixed(1)} s: ${roles}`);
    const vacuum = await timed(() => client.query("vacuum analyze"));
    log(`vacuum analyze in ${vacuum.toFixed(1)} s`);
    const counted = await client.query<{ name: string; n: number }>(
      `select name, n from (values
         ('sales.trend_totals', (select count(*) from sales.trend_totals)),
         ('catalogue.products', (select count(*) from catalogue.products)),
         ('catalogue.assets', (select count(*) from catalogue.assets)),
         ('royalties.incomes', (select count(*) from royalties.incomes)),
         ('royalties.payouts', (select count(*) from royalties.payouts))) t (name, n)`,
    );
    return {
      ...base,
      stopped: null,
      rows: {
        "sales.trend_items": itemRows,
        ...Object.fromEntries(counted.rows.map((row) => [row.name, Number(row.n)])),
        "history.row_versions": versionRows,
      },
      seconds: {
        catalogue,
        items: itemsSeconds,
        totals: totalsSeconds,
        indexes,
        roles: rolesSeconds,
        vacuum,
        total: (performance.now() - started) / 1000,
      },
      ...(await sizes()),
      roles,
    };
  } finally {
    await pool.end();
    await client.end().catch(() => undefined);
    await db.destroy();
  }
}

/** Entities of every selection type in a day's lists (each in both sale types). */
async function entityCount(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "select count(*)::int as n from bench_gen.entities",
  );
  return rows[0]?.n ?? 0;
}
