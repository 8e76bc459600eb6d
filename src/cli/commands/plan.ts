import { type AppContext, createAppContext } from "../../app-context.js";
import { loadAppConfig } from "../load-app-config.js";
import type { CurrentRate } from "../../http/auto-rate.js";
import { sustainedRequestsPerSecond } from "../../http/request-budget.js";
import type { ArtistProjection } from "../../streams/artist-stats/projected-artists.js";
import { selectStreams } from "../../streams/registry.js";
import {
  type CatalogueArtistsKnowledge,
  planRequests,
  type StreamRequestPlan,
} from "../../streams/request-plan.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
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
  const { env, etl } = config;
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  let context: AppContext | undefined;
  // An upstream the workers found down is not waited for: a plan is a question asked before a
  // run, and it answers without the catalogue's artists, saying why, rather than after minutes.
  const upstream = async () => {
    context ??= await createAppContext(config, { http: { outageWaitMs: 0 } });
    return context.api;
  };
  try {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      throw new UsageError(
        `the warehouse lacks ${pending.length} of this release's migrations (from ${pending[0]}): \`etl migrate\` applies them; a plan changes nothing`,
      );
    }
    const today = utcToday();
    const plan = await planRequests({ db, config: etl, today, upstream }, streams, range);
    const { streams: plans, artists } = plan;
    const leftOut = catalogueArtistsNote(plan, etl);
    const explicit = range.from !== undefined || range.to !== undefined;
    out.line(
      explicit
        ? `plan of a backfill (or sync) of ${range.from ?? etl.start_date}..${range.to ?? "yesterday"}, today ${today}`
        : `plan of an incremental sync, today ${today}`,
    );
    const total = plans.reduce((n, p) => n + p.requests, 0);
    const rows = plans.map((p) => [
      p.stream,
      String(p.partitions),
      String(p.requests),
      basisText(p),
    ]);
    const sum = String(plans.reduce((n, p) => n + p.partitions, 0));
    for (const line of table([
      ["stream", "partitions", "requests", "basis"],
      ...rows,
      [
        "total",
        sum,
        String(total),
        leftOut ? "at least: the catalogue's artists left out (last line)" : "",
      ],
    ])) {
      out.line(line);
    }
    if (artists) out.line(artistsText(artists));
    if (plan.catalogue?.kind === "asked") {
      out.line(askedText(plan.catalogue, etl.artist_names.length));
    }
    const radio = radioHistoryNote(etl, streams, range, today);
    if (radio) out.line(radio);
    const early = startDateNote(etl, range);
    if (early) out.line(early);
    const rate = (await budgetReading(env, etl))?.rate ?? configuredRate(etl.requests_per_second);
    out.line(rateText(total, rate));
    if (leftOut) out.line(leftOut);
    return ExitCode.ok;
  } finally {
    await context?.close();
    await db.destroy();
  }
}
