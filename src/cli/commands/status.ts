import { writeFile } from "node:fs/promises";
import type { Queue } from "bullmq";
import { withTimeout } from "../../async/with-timeout.js";
import { displayUrl } from "../../config/display-url.js";
import type { EnvConfig } from "../../config/env-schema.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { loadAppConfig } from "../load-app-config.js";
import {
  closeEtlQueue,
  createEtlQueue,
  QUEUE_CONNECT_MS,
  queueReady,
} from "../../jobs/etl-queue.js";
import { settleRetries } from "../../jobs/settle-retries.js";
import { settleRuns } from "../../jobs/settle-runs.js";
import { STREAMS } from "../../streams/registry.js";
import { addDays, daysBetween, utcMinuteOf, utcToday } from "../../time/calendar.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { lostRuns } from "../../warehouse/runs.js";
import { recentSchemaChanges } from "../../warehouse/schema-changes.js";
import {
  daysBehind,
  type StreamOverview,
  streamOverviews,
} from "../../warehouse/stream-overview.js";
import {
  type MissingDays,
  missingDays,
  type StreamFreshness,
  streamFreshness,
} from "../../warehouse/recorded-settings.js";
import { permanentFailures } from "../../warehouse/stream-state.js";
import { attemptsByDay } from "../../warehouse/attempt-history.js";
import { disagreementSummary, incompleteSummary } from "../../warehouse/reading-checks.js";
import { recordedRoles } from "../../analytics/role-records.js";
import { recordedRoleLines } from "../role-lines.js";
import { ExitCode } from "../exit-codes.js";
import { causeLine, PERMANENT_HINT } from "../failure-lines.js";
import { queueStatus } from "../queue-status.js";
import { budgetReading, rateReason } from "../budget-reading.js";
import { outageText } from "../../http/upstream-outage.js";
import { lostRunLines } from "../run-lines.js";
import { RECENT_SCHEMA_CHANGE_DAYS, recentSchemaChangeLines } from "../schema-change-lines.js";
import { type Output, table } from "../output.js";
import { type StatusReport, type StreamLine, statusHtml } from "../status-html.js";
import { errorMessage } from "../../errors.js";

export interface StatusOptions {
  /** Also write the report as a page to this file. */
  readonly html?: string;
}

const RETRYING_UNSETTLED =
  "(partitions retrying are as the workers last recorded them: the queue could not say which jobs are done)";

/** The queue's lines, or why Redis could not give them (then `reachable` is false). */
async function queueSection(
  queue: Queue,
  ready: Awaited<ReturnType<typeof queueReady>>,
  redisUrl: string,
): Promise<{ lines: string[]; reachable: boolean }> {
  const problem = (reason: string) =>
    `queue: Redis unreachable at ${displayUrl(redisUrl)} (${reason}): is it running, and is REDIS_URL right?`;
  if (!ready.ready) return { lines: [problem(ready.reason), RETRYING_UNSETTLED], reachable: false };
  try {
    return {
      lines: await withTimeout(() => queueStatus(queue), QUEUE_CONNECT_MS),
      reachable: true,
    };
  } catch (error) {
    return { lines: [problem(errorMessage(error))], reachable: false };
  }
}

/** Days of attempts the page shows, today included. */
const HISTORY_DAYS = 7;

/** How many of the columns added or widened lately are listed, the latest first. */
const SCHEMA_CHANGES_LISTED = 5;

/** The columns added or widened lately: news to read, never attention (nothing was lost). */
async function schemaChangeSection(db: Warehouse): Promise<string[]> {
  const since = new Date(Date.now() - RECENT_SCHEMA_CHANGE_DAYS * 86_400_000);
  return recentSchemaChangeLines(await recentSchemaChanges(db, since, SCHEMA_CHANGES_LISTED));
}

/**
 * The roles of the analytics views as last resolved, and each the views cannot rely on, with the
 * checks of readings left incomplete for want of one.
 */
async function rolesSection(db: Warehouse): Promise<string[]> {
  const { summary, warnings } = recordedRoleLines(await recordedRoles(db));
  const incomplete = await incompleteSummary(db);
  const checks = incomplete
    ? [
        `readings incomplete: ${incomplete.checks} checks lack a reading, ${incomplete.firstDay}..${incomplete.lastDay} (analytics.reading_checks.missing), e.g. ${incomplete.example}`,
      ]
    : [];
  return [`roles: ${summary}`, ...warnings.map((w) => `  warning: ${w}`), ...checks, ""];
}

/**
 * The days whose trends readings disagree (totals, the list's items, the chart's Total): worth
 * knowing before a report goes out. The data stays as received.
 */
async function readingsLine(db: Warehouse): Promise<string | null> {
  const summary = await disagreementSummary(db);
  if (!summary) return null;
  const { day, selectionType, saleType, itemsGap, chartGap } = summary.largest;
  const gaps = [
    itemsGap !== null && itemsGap !== "0" ? `the list's items ${signed(itemsGap)}` : null,
    chartGap !== null && chartGap !== "0" ? `the chart's Total ${signed(chartGap)}` : null,
  ].filter((gap) => gap !== null);
  return `readings disagree: ${summary.readings} of a day's totals, list and chart, ${summary.firstDay}..${summary.lastDay}; the largest, ${day} ${selectionType} ${saleType}: ${gaps.join(", ")} against the total (analytics.reading_checks; docs/warehouse.md says what it usually means)`;
}

/** A difference with its sign: "+20", "-3". */
function signed(difference: string): string {
  return difference.startsWith("-") ? difference : `+${difference}`;
}

/**
 * What a stream that synced still needs looked at: partitions whose job will try again,
 * quarantined records, uncertain partitions.
 */
function attention(status: StreamOverview): string {
  const needs: string[] = [];
  if (status.retrying > 0) needs.push(`${status.retrying} partitions retrying`);
  if (status.rejected > 0) needs.push(`${status.rejected} records quarantined`);
  if (status.warned.length > 0) {
    needs.push(`${status.warned.length} partitions possibly incomplete (${named(status.warned)})`);
  }
  if (status.unread.length > 0) {
    needs.push(
      `${status.unread.length} partitions with values or records a reader could not read, kept in raw (${named(status.unread)})`,
    );
  }
  if (status.failureBodies > 0) {
    needs.push(`${status.failureBodies} answers declared failure in 7 days (retried, none stored)`);
  }
  return needs.join("; ");
}

/** The first of some partitions, and whether there are more. */
function named(partitions: readonly string[]): string {
  return `${partitions[0]}${partitions.length > 1 ? ", ..." : ""}`;
}

function streamLine(
  stream: { name: string; family: string },
  status: StreamOverview | undefined,
  freshness: StreamFreshness | undefined,
  today: string,
): StreamLine {
  const failed = status?.failed.map((f) => f.partition) ?? [];
  return {
    stream: stream.name,
    family: stream.family,
    schedule: freshness?.schedule ?? "-",
    lastSuccess: status?.lastSuccessAt ? utcMinuteOf(status.lastSuccessAt) : "never",
    daysBehind: status ? daysBehind(status, today) : null,
    stale: freshness?.stale ?? false,
    missingDays: freshness?.missingDays ?? null,
    failed: failed.length,
    failedShown: failed.slice(0, 3).join(", ") + (failed.length > 3 ? ", ..." : ""),
    attention: status ? attention(status) : "",
  };
}

/**
 * Per stream: the last success, how many days behind it is (daily streams: since the last day
 * synced, which is yesterday when current; others: since the last success), the partitions that
 * failed for good (what `etl retry-failed` queues), and under attention those whose last attempt
 * failed while their job has attempts left ("retrying"); then the columns added or widened in
 * the last 7 days, if any; then the queue, and the runs it lost (recorded in etl.runs as queued
 * or running, their job gone). With --html, the same as a page, with each stream's attempts of
 * the last days.
 */
export async function statusCommand(options: StatusOptions, out: Output): Promise<ExitCode> {
  const { env, etl } = loadAppConfig({ upstream: false });
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 2 });
  const queue = createEtlQueue(env.REDIS_URL, etl);
  try {
    await migrateToLatest(db);
    // The queue says which failures are final: a job that finished or is gone tries no more.
    // Without Redis the warehouse's picture still prints, the queue said to be unreachable.
    const ready = await queueReady(queue);
    if (ready.ready) {
      await settleRetries(db, queue);
      // And which runs it lost: only those not finished are looked up.
      await settleRuns(db, queue);
    }
    const today = utcToday();
    const lines = await streamLines(db, today);
    for (const line of streamTable(lines)) out.line(line);
    out.line("");
    const missing = await missingDays(db);
    for (const line of missing ? [missingDaysLine(missing), ""] : []) out.line(line);
    const permanent = await permanentSection(db);
    for (const line of permanent.length === 0 ? [] : [...permanent, ""]) out.line(line);
    const changes = await schemaChangeSection(db);
    for (const line of changes.length === 0 ? [] : [...changes, ""]) out.line(line);
    const readings = await readingsLine(db);
    for (const line of readings === null ? [] : [readings, ""]) out.line(line);
    for (const line of await rolesSection(db)) out.line(line);
    const queueReport = await queueLines(db, queue, ready, env, etl);
    for (const line of queueReport.lines) out.line(line);
    if (options.html !== undefined) {
      const sections = { streams: lines, schemaChanges: changes, queue: queueReport.lines };
      await writeStatusPage(db, options.html, today, sections);
      out.line("");
      out.line(`wrote ${options.html}`);
    }
    return queueReport.reachable ? ExitCode.ok : ExitCode.failure;
  } finally {
    await db.destroy();
    await closeEtlQueue(queue);
  }
}

/** The days never synced, and the backfill that fills them: the schedules sync only a lookback. */
function missingDaysLine({ streamDays, streams, first, last }: MissingDays): string {
  return `${streamDays} days never synced in ${streams} daily streams (missing days), ${first}..${last}: the schedules sync only their lookback; \`etl backfill --from ${first} --to ${last}\` fills them (\`etl plan\` with the same days says what it costs)`;
}

/** The failures no retry can cure, one line per cause: an unknown artist is one line. */
async function permanentSection(db: Warehouse): Promise<string[]> {
  const failures = await permanentFailures(db);
  if (failures.length === 0) return [];
  return [
    "failed for a cause no retry can cure:",
    ...failures.map((f) => `  ${causeLine(f.cause, f.partitions, f.streams)}`),
    `  ${PERMANENT_HINT}`,
  ];
}

async function streamLines(db: Warehouse, today: string): Promise<StreamLine[]> {
  const statuses = new Map((await streamOverviews(db)).map((s) => [s.stream, s]));
  const fresh = new Map((await streamFreshness(db)).map((f) => [f.stream, f]));
  return STREAMS.map((stream) =>
    streamLine(stream, statuses.get(stream.name), fresh.get(stream.name), today),
  );
}

function streamTable(lines: readonly StreamLine[]): string[] {
  return table([
    [
      "stream",
      "family",
      "schedule",
      "last success (UTC)",
      "stale",
      "days behind",
      "missing days",
      "failed",
      "failed partitions",
      "attention",
    ],
    ...lines.map((l) => [
      l.stream,
      l.family,
      l.schedule,
      l.lastSuccess,
      l.stale ? "stale" : "-",
      l.daysBehind === null ? "-" : String(l.daysBehind),
      l.missingDays === null ? "-" : String(l.missingDays),
      String(l.failed),
      l.failedShown,
      l.attention,
    ]),
  ]);
}

/** The queue's section, the request rate learned (when Redis answers), and the runs it lost. */
async function queueLines(
  db: Warehouse,
  queue: Queue,
  ready: Awaited<ReturnType<typeof queueReady>>,
  env: EnvConfig,
  etl: EtlConfig,
): Promise<{ lines: string[]; reachable: boolean }> {
  const section = await queueSection(queue, ready, env.REDIS_URL);
  const lost = lostRunLines(await lostRuns(db));
  const reading = section.reachable ? await budgetReading(env, etl) : null;
  const rateLines = reading
    ? [
        `request rate: ${reading.rate.requestsPerSecond} req/s (${rateReason(reading.rate)})`,
        ...(reading.outage
          ? [`${outageText(reading.outage)}: the workers take no job until it answers`]
          : []),
      ]
    : [];
  return {
    lines: [...section.lines, ...rateLines, ...(lost.length === 0 ? [] : ["", ...lost])],
    reachable: section.reachable,
  };
}

async function writeStatusPage(
  db: Warehouse,
  file: string,
  today: string,
  sections: Pick<StatusReport, "streams" | "schemaChanges" | "queue">,
): Promise<void> {
  const days = daysBetween(addDays(today, 1 - HISTORY_DAYS), today);
  const report: StatusReport = {
    generatedAt: new Date(),
    days,
    ...sections,
    attempts: await attemptsByDay(db, days[0] ?? today),
  };
  await writeFile(file, statusHtml(report));
}
