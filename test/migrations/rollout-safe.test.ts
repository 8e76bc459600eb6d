// docs/operations.md promises that the workers of the previous release keep running while a new
// release migrates and rolls out. A migration keeps that promise only if it adds: every one after
// RULE_SINCE is run here on an empty warehouse, and each statement it sends is read for what
// would break an older worker still reading and writing the tables. Running the migrations,
// rather than reading their source, sees the SQL Kysely's builders and loops produce.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDatabase } from "../../src/warehouse/ensure-database.js";
import { FolderMigrationProvider } from "../../src/warehouse/migration-provider.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { dropDatabase, PG_HOST_URL } from "../helpers/warehouse.js";

/**
 * The last migration before the rule. It replaced the primary key of sales.trend_chart_points
 * and added a NOT NULL column without a default, so the runbook names its release as one that
 * older workers cannot run beside. Landed migrations are never edited, so the rule starts after.
 */
const RULE_SINCE = "2026-11-23-010-chart-series-position";

type Breach =
  | "drop"
  | "rename"
  | "set schema"
  | "set not null"
  | "column type"
  | "not null column without default"
  | "truncate";

interface Exception {
  /** What the migration does that the rule forbids: each must occur, so none outlives its use. */
  readonly breaches: readonly Breach[];
  /** True when older workers must be stopped before it runs: the runbook then names it. */
  readonly stopsOldWorkers: boolean;
}

/**
 * Migrations after RULE_SINCE allowed to break the rule, each with a comment saying why. One that
 * older workers cannot run beside is a release the runbook's "Deploy and roll back" names, with
 * what to do; one whose breach does not reach them (a check replaced by a wider one) says so.
 */
const EXCEPTIONS: Readonly<Record<string, Exception>> = {
  // Drops etl.attempts' status check and adds, in the same statement, one allowing every status
  // it allowed and two more: what an older release writes is still accepted.
  "2026-11-23-011-attempt-outcomes": { breaches: ["drop"], stopsOldWorkers: false },
  // Widens the money columns (numeric(14,2) to numeric: what an older release writes still fits),
  // making analytics.payouts_by_status again over them; and keys the snapshot tables by element
  // too, which an older release's upsert by the old key no longer finds: it must be stopped.
  "2026-11-25-014-exact-values": { breaches: ["drop", "column type"], stopsOldWorkers: true },
  // Drops the artist statistics columns named by guesses of unshown fields (their values are in
  // raw and become discovered columns), and the two views that read them: an older release's
  // writes of those tables name the dropped columns, so it must be stopped.
  "2026-11-28-021-artist-stats-discovered": { breaches: ["drop"], stopsOldWorkers: true },
  // The same for the catalogue's, the royalties' and the trend list's guessed columns; the sales
  // views are made again over raw with the same columns.
  "2026-11-28-022-unshown-fields-discovered": { breaches: ["drop"], stopsOldWorkers: true },
  // Drops etl.stream_state's status check and adds, in the same statement, one allowing both
  // statuses it allowed and 'dismissed': what an older release writes is still accepted, and it
  // reads a dismissed partition as neither failed nor succeeded.
  "2026-11-28-024-permanent-failures": { breaches: ["drop"], stopsOldWorkers: false },
  // Replaces the history's row-level trigger and its function by statement-level ones that keep
  // the same versions: an older release names neither, and its writes keep their history.
  "2026-11-29-030-history-per-statement": { breaches: ["drop"], stopsOldWorkers: false },
  // Replaces the history's two B-tree indexes by a block range and a hash index of the same
  // names: no statement of an older release names an index.
  "2026-11-29-031-history-cheaper-indexes": { breaches: ["drop"], stopsOldWorkers: false },
  // Its trigger truncates the sales roll-ups it makes when the items are truncated (a truncate
  // fires no row's trigger): an older release names neither, and its writes mark their days.
  "2026-12-02-033-sales-rollups": { breaches: ["truncate"], stopsOldWorkers: false },
  // The same trigger's function, replaced: it still truncates the roll-ups, and where the items'
  // truncate names one of them too, deletes their rows instead.
  "2026-12-03-035-rollups-truncated-together": { breaches: ["truncate"], stopsOldWorkers: false },
  // Sets NOT NULL on the attempt ids it adds, once every row has one: a trigger fills them from
  // the run_id an older release writes, so its inserts still pass.
  "2026-12-03-036-attempt-ids": { breaches: ["set not null"], stopsOldWorkers: false },
  // Renames etl.sync_runs to etl.attempts and its run_id to attempt_id, and in the same
  // transaction makes etl.sync_runs a view of it under the old names, which takes an older
  // release's inserts, updates and reads as the table did.
  "2026-12-03-037-attempts-table": { breaches: ["rename"], stopsOldWorkers: false },
};

/** A statement's code: literals (comments, values) can say anything, and case and spacing vary. */
function code(statement: string): string {
  return statement
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** The comma-separated parts of `text` outside parentheses (an ALTER TABLE's actions). */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === "(") depth += 1;
    else if (text[i] === ")") depth -= 1;
    else if (text[i] === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  return [...parts, text.slice(start)].map((part) => part.trim());
}

/** A column added NOT NULL (or as a primary key) that nothing fills: older writers omit it. */
function addsUnfilledRequiredColumn(statement: string): boolean {
  const actions = /^alter table (?:if exists )?(?:only )?\S+ (.*)$/.exec(statement)?.[1];
  if (actions === undefined) return false;
  return topLevelParts(actions).some(
    (action) =>
      /^add (?!constraint\b|primary key\b|unique\b|foreign key\b|check\b|exclude\b)/.test(action) &&
      /\bnot null\b|\bprimary key\b/.test(action) &&
      !/\bdefault\b|\bgenerated\b/.test(action),
  );
}

/** What in one SQL statement would break a worker of the previous release still running. */
function breachesOf(statement: string): Breach[] {
  const sql = code(statement);
  const found: Breach[] = [];
  // Dropping a NOT NULL only relaxes what older writers must give; any other drop removes
  // something they may read or write (a column, a table, a view, a constraint their upserts name).
  if (/\bdrop\b(?! not null\b)/.test(sql)) found.push("drop");
  if (/\brename\b/.test(sql)) found.push("rename");
  if (/\bset schema\b/.test(sql)) found.push("set schema");
  if (/\bset not null\b/.test(sql)) found.push("set not null");
  if (/\balter (?:column )?(?:"[^"]+"|\w+) (?:set data )?type\b/.test(sql)) {
    found.push("column type");
  }
  if (addsUnfilledRequiredColumn(sql)) found.push("not null column without default");
  if (/\btruncate\b/.test(sql)) found.push("truncate");
  return found;
}

const provider = new FolderMigrationProvider(resolve(PROJECT_ROOT, "migrations"));
/** Migration name → the statements its `up` sent, for every migration after RULE_SINCE. */
const sent = new Map<string, string[]>();
const database = `music_etl_test_rollout_safe_${randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  const url = `${PG_HOST_URL}/${database}`;
  await ensureDatabase(url);
  let current: string[] = [];
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ ...pgConnectionConfig(url), max: 1 }) }),
    log: (event) => void current.push(event.query.sql),
  });
  try {
    for (const [name, migration] of Object.entries(await provider.getMigrations())) {
      current = [];
      await migration.up(db);
      if (name > RULE_SINCE) sent.set(name, current);
    }
  } finally {
    await db.destroy();
  }
});

afterAll(() => dropDatabase(database));

describe("migrations after the rule", () => {
  it("are every migration file after it, each run", async () => {
    const after = (await provider.names()).filter((name) => name > RULE_SINCE);
    expect(after.length).toBeGreaterThan(0);
    expect([...sent.keys()]).toEqual(after);
  });

  it("only add: nothing a running older worker reads or writes is dropped, renamed or narrowed", () => {
    const broken = [...sent].flatMap(([name, statements]) => {
      const allowed = EXCEPTIONS[name]?.breaches ?? [];
      return statements.flatMap((statement) =>
        breachesOf(statement)
          .filter((breach) => !allowed.includes(breach))
          .map((breach) => `${name}: ${breach}: ${code(statement).slice(0, 160)}`),
      );
    });
    expect(broken).toEqual([]);
  });

  it("allow exactly the exceptions they use, and the runbook names those that stop old workers", () => {
    for (const [name, exception] of Object.entries(EXCEPTIONS)) {
      const found = new Set((sent.get(name) ?? []).flatMap(breachesOf));
      expect([...found].sort(), name).toEqual([...exception.breaches].sort());
    }
    const runbook = readFileSync(resolve(PROJECT_ROOT, "docs/operations.md"), "utf8");
    const stopping = Object.entries(EXCEPTIONS).filter(([, e]) => e.stopsOldWorkers);
    for (const name of [RULE_SINCE, ...stopping.map(([name]) => name)]) {
      expect(runbook.includes(`\`${name}\``), `the runbook names ${name}`).toBe(true);
    }
  });
});

describe("reading a statement for breaches", () => {
  it("finds each kind that breaks an older worker", () => {
    expect(
      [
        "drop table sales.trend_items",
        "alter table etl.attempts drop column runner",
        "ALTER TABLE etl.attempts DROP runner",
        "alter table sales.x drop constraint x_pkey, add primary key (a, b)",
        "drop view analytics.weekly_sales",
        "alter table sales.x rename column a to b",
        "alter table sales.x rename to y",
        "alter table sales.x set schema archive",
        "alter table sales.x alter column a set not null",
        "alter table sales.x alter column a type bigint",
        "alter table sales.x alter a set data type numeric(14,2)",
        "alter table sales.x add column a smallint not null",
        "alter table sales.x add column b text, add c integer primary key",
        "truncate sales.x",
      ].map(breachesOf),
    ).toEqual([
      ["drop"],
      ["drop"],
      ["drop"],
      ["drop"],
      ["drop"],
      ["rename"],
      ["rename"],
      ["set schema"],
      ["set not null"],
      ["column type"],
      ["column type"],
      ["not null column without default"],
      ["not null column without default"],
      ["truncate"],
    ]);
  });

  it("finds none in what only adds or relaxes, whatever comments and names say", () => {
    for (const statement of [
      "create table sales.x (a int not null, b text)",
      "alter table sales.x add column a smallint",
      "alter table sales.x add column a smallint not null default 0",
      "alter table sales.x add column a bigint generated always as identity not null",
      "alter table sales.x add column a text, add constraint x_a check (a <> '')",
      "alter table sales.x alter column a drop not null",
      "alter table sales.x add column dropped_at timestamptz",
      "create index x_a on sales.x (a) where status = 'running'",
      "comment on column sales.x.a is 'Never drop or rename it; alter its type with care.'",
      "create view analytics.v as select a as renamed from sales.x",
    ]) {
      expect(breachesOf(statement), statement).toEqual([]);
    }
  });
});
