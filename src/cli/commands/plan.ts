import { type AppContext, createAppContext } from "../../app-context.js";
import type { AppConfig } from "../../config/load-config.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { loadAppConfig } from "../load-app-config.js";
import type { CurrentRate } from "../../http/auto-rate.js";
import { sustainedRequestsPerSecond } from "../../http/request-budget.js";
import type { ArtistProjection } from "../../streams/artist-stats/projected-artists.js";
import { selectStreams } from "../../streams/registry.js";
import {
  type CatalogueArtistsKnowledge,
  planRequests,
  type RequestPlan,
  type StreamRequestPlan,
} from "../../runner/plan/request-plan.js";
import type { DayRange } from "../../runner/plan/plan-partitions.js";
import type { Stream } from "../../streams/stream.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { pendingMigrations } from "../../warehouse/migrate.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { UsageError } from "../../errors.js";
import { ExitCode } from "../exit-codes.js";
import { catalogueArtistsNote } from "../catalogue-artists-note.js";
import { duration } from "../duration-text.js";
import { budgetReading, configuredRate, rateReason } from "../budget-reading.js";
import { type Output, table } from "../output.js";
import { radioHistoryNote } from "../radio-history-note.js";
import { startDateNote } from "../start-date-note.js";

export interface PlanOptions extends DayRangeOptions {
  readonly only?: string;
}

function basisText({ basis, unsyncedSources }: StreamRequestPlan): string {
  const parts = [
    basis.kind === "exact"
      ? "exact"
      : basis.kind === "asked"
        ? "asked: the plan sent them to find the catalogue's artists, the run sends them again"
        : basis.kind === "history"
          ? `estimate: ${basis.perPartition.toFixed(2)} per partition over the last ${basis.attempts} attempts`
          : "estimate: no earlier run, 1 per partition (the least)",
  ];
  if (unsyncedSources.length > 0) {
    parts.push(`planned from ${unsyncedSources.join(", ")}, not synced yet: more to come`);
  }
  return parts.join("; ");
}

/** Where the per-artist streams' artists come from, and whether more may come. */
function artistsText(projection: ArtistProjection & { requestsEach: number }): string {
  const parts = [
    `${projection.configured} configured`,
    `${projection.linked} linked in the catalogue`,
    `${projection.resolved} resolved from streaming ids`,
  ];
  if (projection.unresolved > 0) {
    parts.push(
      `${projection.unresolved} streaming ids no run resolved, each counted as an artist (the most they add)`,
    );
  }
  const total = projection.ids.length;
  const more =
    projection.sources.length > 0
      ? `; ${projection.sources.join(", ")} not synced yet: more to come`
      : "";
  return (
    `per-artist streams planned for ${total} tracked artists (${parts.join(", ")})${more}; ` +
    `each artist not tracked yet adds ${projection.requestsEach} requests`
  );
}

/** What the plan asked the upstream of the artists a first run's catalogue finds. */
function askedText(
  asked: Extract<CatalogueArtistsKnowledge, { kind: "asked" }>,
  searches: number,
): string {
  return (
    `the catalogue's artists asked of the upstream first: its ${searches} artist_names ` +
    `${searches === 1 ? "search" : "searches"} found ${asked.found} artists, ${asked.known} known to the statistics API ` +
    `(${asked.requests} requests, in the artists row: the run sends them again)`
  );
}

/**
 * Timed at the pace the budget sustains, not at the rate: its window is a second and a margin
 * long, so a long run takes about 5 % longer than requests ÷ rate.
 */
function rateText(total: number, rate: CurrentRate): string {
  const pace = sustainedRequestsPerSecond(rate.requestsPerSecond);
  return (
    `${total} requests at ${rate.requestsPerSecond} req/s (${rateReason(rate)}): ` +
    `${duration(total / pace)}, at the ${pace.toFixed(2)} req/s the budget sustains`
  );
}

/** A plan reads the warehouse as this release shapes it, and migrates nothing itself. */
async function requireMigrated(db: Warehouse): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) {
    throw new UsageError(
      `the warehouse lacks ${pending.length} of this release's migrations (from ${pending[0]}): \`etl migrate\` applies them; a plan changes nothing`,
    );
  }
}

/** Which run is planned: a backfill of the range given, or an incremental sync. */
function headingText(range: DayRange, etl: EtlConfig, today: string): string {
  const explicit = range.from !== undefined || range.to !== undefined;
  return explicit
    ? `plan of a backfill (or sync) of ${range.from ?? etl.start_date}..${range.to ?? "yesterday"}, today ${today}`
    : `plan of an incremental sync, today ${today}`;
}

/** A row per stream (partitions, requests and how they were counted) and their totals. */
function planTable(
  plans: readonly StreamRequestPlan[],
  total: number,
  leftOut: string | null,
): string[] {
  const rows = plans.map((p) => [p.stream, String(p.partitions), String(p.requests), basisText(p)]);
  const sum = String(plans.reduce((n, p) => n + p.partitions, 0));
  return table([
    ["stream", "partitions", "requests", "basis"],
    ...rows,
    [
      "total",
      sum,
      String(total),
      leftOut ? "at least: the catalogue's artists left out (last line)" : "",
    ],
  ]);
}

/** What a plan is made for: the run's settings, its streams, its range and the day. */
interface PlannedRun {
  readonly config: AppConfig;
  readonly streams: readonly Stream[];
  readonly range: DayRange;
  readonly today: string;
}

/**
 * The plan as `etl plan` prints it: which run, a row per stream and the totals, then what the
 * numbers rest on (the artists, the days left out, the time at the rate, what the total lacks).
 */
async function printPlan(out: Output, plan: RequestPlan, run: PlannedRun): Promise<void> {
  const { env, etl } = run.config;
  const leftOut = catalogueArtistsNote(plan, etl);
  const total = plan.streams.reduce((n, p) => n + p.requests, 0);
  out.line(headingText(run.range, etl, run.today));
  for (const line of planTable(plan.streams, total, leftOut)) out.line(line);
  if (plan.artists) out.line(artistsText(plan.artists));
  if (plan.catalogue?.kind === "asked") {
    out.line(askedText(plan.catalogue, etl.artist_names.length));
  }
  const radio = radioHistoryNote(etl, run.streams, run.range, run.today);
  if (radio) out.line(radio);
  const early = startDateNote(etl, run.range);
  if (early) out.line(early);
  const rate = (await budgetReading(env, etl))?.rate ?? configuredRate(etl.requests_per_second);
  out.line(rateText(total, rate));
  if (leftOut) out.line(leftOut);
}

/**
 * What a sync (no range) or a backfill (--from/--to) would fetch, per stream, and how long that
 * takes at the configured (or learned) rate, paced as the request budget paces it. Nothing is
 * written: it reads the warehouse, which must exist and be migrated (a plan creates and migrates
 * nothing), and the learned rate. No request reaches the upstream, but for a run that finds the
 * catalogue's artists first: the plan asks what they are, through the shared budget, as the run
 * would, since the per-artist streams are most of a first run.
 */
export async function planCommand(options: PlanOptions, out: Output): Promise<ExitCode> {
  const config = loadAppConfig({ upstream: false });
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  const db = createWarehouse(config.env.DATABASE_URL, { maxConnections: 1 });
  let context: AppContext | undefined;
  // An upstream the workers found down is not waited for: a plan is a question asked before a
  // run, and it answers without the catalogue's artists, saying why, rather than after minutes.
  const upstream = async () => {
    context ??= await createAppContext(config, { http: { outageWaitMs: 0 } });
    return context.api;
  };
  try {
    await requireMigrated(db);
    const today = utcToday();
    const deps = { db, config: config.etl, today, upstream };
    const plan = await planRequests(deps, streams, range);
    await printPlan(out, plan, { config, streams, range, today });
    return ExitCode.ok;
  } finally {
    await context?.close();
    await db.destroy();
  }
}
