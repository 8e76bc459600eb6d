import { Redis } from "ioredis";
import { withTimeout } from "../../async/with-timeout.js";
import { requestBudget } from "../../app-context.js";
import type { EnvConfig } from "../../config/env-schema.js";
import type { EtlConfig } from "../../config/etl-config-schema.js";
import { loadConfig } from "../../config/load-config.js";
import { AUTO_START_RATE, type CurrentRate } from "../../http/auto-rate.js";
import { sustainedRequestsPerSecond } from "../../http/request-budget.js";
import type { ArtistProjection } from "../../streams/artist-stats/projected-artists.js";
import { selectStreams } from "../../streams/registry.js";
import { planRequests, type StreamRequestPlan } from "../../streams/request-plan.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { pendingMigrations } from "../../warehouse/migrate.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { UsageError } from "../../errors.js";
import { ExitCode } from "../exit-codes.js";
import { catalogueArtistsNote } from "../catalogue-artists-note.js";
import { type Output, table } from "../output.js";
import { radioHistoryNote } from "../radio-history-note.js";

export interface PlanOptions extends DayRangeOptions {
  readonly only?: string;
}

function basisText({ basis, unsyncedSources }: StreamRequestPlan): string {
  const parts = [
    basis.kind === "exact"
      ? "exact"
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

/** How long the plan waits for Redis's learned rate before it goes without. */
const LEARNED_RATE_WAIT_MS = 2_000;

/**
 * With "auto", the rate the workers learned and share (kept in Redis while the upstream keeps
 * confirming it); null where there is none, or no upstream or Redis to ask.
 */
async function learnedRate(env: EnvConfig, etl: EtlConfig): Promise<CurrentRate | null> {
  if (etl.requests_per_second !== "auto" || !env.MUSIC_API_URL || !env.MUSIC_API_KEY) return null;
  const redis = new Redis(env.REDIS_URL, {
    lazyConnect: true,
    connectTimeout: LEARNED_RATE_WAIT_MS,
    commandTimeout: LEARNED_RATE_WAIT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    const upstream = { url: env.MUSIC_API_URL, key: env.MUSIC_API_KEY };
    const rate = await withTimeout(async () => {
      await redis.connect();
      return requestBudget(etl, upstream, redis).currentRate();
    }, LEARNED_RATE_WAIT_MS);
    return rate.source === "start" ? null : rate;
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

/**
 * Timed at the pace the budget sustains, not at the rate: its window is a second and a margin
 * long, so a long run takes about 5 % longer than requests ÷ rate.
 */
function rateText(total: number, etl: EtlConfig, learned: CurrentRate | null): string {
  const at = (rate: number, why: string) => {
    const pace = sustainedRequestsPerSecond(rate);
    return (
      `${total} requests at ${rate} req/s (${why}): ${duration(total / pace)}, ` +
      `at the ${pace.toFixed(2)} req/s the budget sustains`
    );
  };
  if (etl.requests_per_second !== "auto") {
    return at(etl.requests_per_second, "requests_per_second, shared by every worker");
  }
  if (learned?.source === "limit") {
    return at(learned.requestsPerSecond, 'the limit the upstream states, learned by "auto"');
  }
  if (learned?.source === "backoff") {
    return at(learned.requestsPerSecond, '"auto", lowered by 429s: the upstream states no limit');
  }
  return at(
    AUTO_START_RATE,
    'where "auto" starts; the upstream\'s stated limit, once read, decides',
  );
}

/** "26 h 05 min", "4 min 10 s", "12 s". */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  if (minutes > 0) return `${minutes} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}

/**
 * What a sync (no range) or a backfill (--from/--to) would fetch, per stream, and how long that
 * takes at the configured (or learned) rate, paced as the request budget paces it. No request
 * reaches the upstream, and nothing is written: it reads the warehouse, which must exist and be
 * migrated (a plan creates and migrates nothing), and the learned rate.
 */
export async function planCommand(options: PlanOptions, out: Output): Promise<ExitCode> {
  const { env, etl } = loadConfig({ upstream: false });
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      throw new UsageError(
        `the warehouse lacks ${pending.length} of this release's migrations (from ${pending[0]}): \`etl migrate\` applies them; a plan changes nothing`,
      );
    }
    const today = utcToday();
    const plan = await planRequests({ db, config: etl, today }, streams, range);
    const { streams: plans, artists } = plan;
    const leftOut = catalogueArtistsNote(plan, streams, etl);
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
    const radio = radioHistoryNote(etl, streams, range, today);
    if (radio) out.line(radio);
    out.line(rateText(total, etl, await learnedRate(env, etl)));
    if (leftOut) out.line(leftOut);
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
