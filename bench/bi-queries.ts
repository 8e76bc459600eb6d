import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import pg from "pg";
import { createWarehouse } from "../src/warehouse/database.js";
import { pgConnectionConfig } from "../src/warehouse/pg-connection-config.js";
import { DEFAULT_READER_LIMITS, grantReaderRole } from "../src/warehouse/reader-role.js";
import { scramSha256Verifier } from "../src/warehouse/scram-verifier.js";
import { PROJECT_ROOT } from "../test/helpers/cli.js";
import { type BiDataset, generateBiDataset } from "./bi-dataset.js";
import { type BiQuery, biQueries as queriesOf } from "./bi-query-list.js";
import { type BiScale, parseBiScale } from "./bi-scale.js";
import { atMost, type Figure, round, type SectionResult, type Target } from "./report.js";
import { createScratch } from "./scratch.js";

/** What a query may take: a BI reader's default statement_timeout (grant-reader). */
const TIMEOUT_MS = 120_000;
const WARM_RUNS = 5;
/** Median a query must stay within, by dataset; other scales are measured without a target. */
const TARGET_MS: Readonly<Record<string, number>> = { large: 100, "10x3y": 1000 };
const PLANS_FILE = "bench/bi-plans.txt";

/** A query's warm runs; null where a run was cancelled at TIMEOUT_MS. */
interface Measured {
  readonly query: BiQuery;
  readonly coldMs: number | null;
  readonly medianMs: number | null;
  readonly maxMs: number | null;
  readonly plan: string;
}

const QUERY_CANCELED = "57014";

/** Milliseconds of one run of `sql`; null when the statement timeout cancelled it. */
async function runOnce(client: pg.Client, sql: string): Promise<number | null> {
  const started = performance.now();
  try {
    await client.query(sql);
  } catch (error) {
    if ((error as { code?: string }).code === QUERY_CANCELED) return null;
    throw error;
  }
  return performance.now() - started;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * One cold run (discarded), then WARM_RUNS warm ones, then the plan of one more, with its
 * execution (EXPLAIN ANALYZE, BUFFERS). A run cancelled at the timeout ends the query's runs: the
 * plan is then the planner's alone.
 */
async function measure(client: pg.Client, query: BiQuery): Promise<Measured> {
  const coldMs = await runOnce(client, query.sql);
  const warm: number[] = [];
  let timedOut = coldMs === null;
  while (!timedOut && warm.length < WARM_RUNS) {
    const ms = await runOnce(client, query.sql);
    if (ms === null) timedOut = true;
    else warm.push(ms);
  }
  let plan: string;
  if (timedOut) {
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain ${query.sql}`);
    plan = [
      `(a run took over ${TIMEOUT_MS} ms: the plan without its execution)`,
      ...rows.map((row) => row["QUERY PLAN"]),
    ].join("\n");
  } else {
    const explained = await client
      .query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${query.sql}`)
      .then(
        ({ rows }) => rows.map((row) => row["QUERY PLAN"]).join("\n"),
        (error: unknown) => {
          if ((error as { code?: string }).code !== QUERY_CANCELED) throw error;
          return `(its EXPLAIN ANALYZE took over ${TIMEOUT_MS} ms)`;
        },
      );
    plan = explained;
  }
  return {
    query,
    coldMs,
    medianMs: timedOut ? null : median(warm),
    maxMs: timedOut ? null : Math.max(...warm),
    plan,
  };
}

const shown = (ms: number | null) => (ms === null ? `> ${TIMEOUT_MS}` : String(round(ms, 1)));

function datasetFigures(dataset: BiDataset): Figure[] {
  const { scale, seconds, rows } = dataset;
  const name = scale.name;
  return [
    {
      name: `${name}: dataset`,
      value: `${scale.times}× the large account, ${scale.firstDay} to ${scale.lastDay} (${scale.days} days)`,
    },
    ...Object.entries(rows).map(([table, n]) => ({ name: `${name}: rows of ${table}`, value: n })),
    {
      name: `${name}: generating (catalogue, items, totals, indexes, roles and roll-ups, vacuum analyze)`,
      value: [
        seconds.catalogue,
        seconds.items,
        seconds.totals,
        seconds.indexes,
        seconds.roles,
        seconds.vacuum,
      ]
        .map((s) => round(s, 1))
        .join(" / "),
      unit: "s",
    },
    { name: `${name}: generating in all`, value: round(seconds.total, 1), unit: "s" },
    { name: `${name}: trend items, a day`, value: round(dataset.secondsPerDay, 3), unit: "s" },
    {
      name: `${name}: database size on disk`,
      value: round(dataset.databaseBytes / 2 ** 30, 2),
      unit: "GiB",
    },
    {
      name: `${name}: sales.trend_items with its indexes`,
      value: round(dataset.trendItemsBytes / 2 ** 30, 2),
      unit: "GiB",
    },
    { name: `${name}: analytics roles`, value: dataset.roles },
    ...(dataset.stopped === null
      ? []
      : [{ name: `${name}: not measured`, value: dataset.stopped }]),
  ];
}

/** `databaseUrl` logging in as `user`. */
function readerUrl(databaseUrl: string, user: string, password: string): string {
  const url = new URL(databaseUrl);
  url.username = user;
  url.password = password;
  return url.toString();
}

/**
 * A reader role of the bench's own in the database at `databaseUrl`, as `etl grant-reader` makes
 * one (a login with a password of the bench's own), and the connection settings to log in as it.
 * Roles are the cluster's: drop() removes it.
 */
async function readerOf(databaseUrl: string) {
  const role = `bench_bi_reader_${randomBytes(4).toString("hex")}`;
  const password = randomBytes(18).toString("base64url");
  const db = createWarehouse(databaseUrl, { maxConnections: 1 });
  try {
    await grantReaderRole(db, {
      role,
      login: true,
      limits: DEFAULT_READER_LIMITS,
      passwordVerifier: scramSha256Verifier(password),
    });
  } finally {
    await db.destroy();
  }
  return {
    role,
    config: pgConnectionConfig(readerUrl(databaseUrl, role, password)),
    async drop() {
      const admin = new pg.Client(pgConnectionConfig(databaseUrl));
      await admin.connect();
      try {
        await admin.query(`drop owned by ${pg.escapeIdentifier(role)}`);
        await admin.query(`drop role ${pg.escapeIdentifier(role)}`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** One dataset written, its queries measured, its database dropped. */
async function measureScale(
  scale: BiScale,
  plans: string[],
): Promise<{ figures: Figure[]; targets: Target[] }> {
  const scratch = await createScratch(`bi_${scale.name}`);
  try {
    const dataset = await generateBiDataset(scale, scratch.databaseUrl);
    const figures = datasetFigures(dataset);
    const targets: Target[] = [];
    if (dataset.stopped !== null) return { figures, targets };
    // As a BI tool reads it: the reader role grant-reader makes, with its session settings.
    const reader = await readerOf(scratch.databaseUrl);
    const client = new pg.Client(reader.config);
    await client.connect();
    try {
      const { rows } = await client.query<{ user: string }>("select current_user as user");
      if (rows[0]?.user !== reader.role) throw new Error("the BI queries must run as the reader");
      await client.query(`set statement_timeout = ${TIMEOUT_MS}`);
      for (const query of queriesOf(scale, dataset)) {
        console.error(`bench: bi ${scale.name}: ${query.name}…`);
        const result = await measure(client, query);
        plans.push(
          `=== ${scale.name}: ${query.name}\n` +
            `cold ${shown(result.coldMs)} ms; warm median ${shown(result.medianMs)} ms, max ${shown(result.maxMs)} ms\n` +
            `${query.sql.trim()}\n\n${result.plan}\n`,
        );
        figures.push({
          name: `${scale.name}: ${query.name}, median / max of ${WARM_RUNS}`,
          value: `${shown(result.medianMs)} / ${shown(result.maxMs)}`,
          unit: "ms",
        });
        const goal = TARGET_MS[scale.name];
        if (goal !== undefined) {
          targets.push(
            atMost(`${scale.name}: ${query.name}, median ms`, result.medianMs ?? TIMEOUT_MS, goal),
          );
        }
      }
    } finally {
      await client.end();
      await reader.drop();
    }
    return { figures, targets };
  } finally {
    await scratch.drop();
  }
}

/**
 * 13. BI queries: for each dataset of `scales`, written straight into the tables of a database of
 * its own, the analysts' queries on the analytics views, each one cold then WARM_RUNS times warm:
 * median and max, and the plan of one more warm run in bench/bi-plans.txt. A median over the
 * timeout is reported as such and counted as the timeout.
 */
export async function biQueries(scaleNames: readonly string[]): Promise<SectionResult> {
  const scales = scaleNames.map(parseBiScale);
  const plans: string[] = [];
  const figures: Figure[] = [];
  const targets: Target[] = [];
  const file = resolve(PROJECT_ROOT, PLANS_FILE);
  const write = () =>
    writeFileSync(
      file,
      `Plans of the BI queries (npm run bench -- --only bi), one warm run each.\n\n${plans.join("\n")}`,
    );
  for (const scale of scales) {
    const measured = await measureScale(scale, plans);
    figures.push(...measured.figures);
    targets.push(...measured.targets);
    write();
  }
  return { section: "13 BI queries", figures, targets };
}
