import { loadConfig } from "../../config/load-config.js";
import { AUTO_START_RATE } from "../../http/auto-rate.js";
import { selectStreams } from "../../streams/registry.js";
import { planRequests, type StreamRequestPlan } from "../../streams/request-plan.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { ensureDatabase } from "../../warehouse/ensure-database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { type DayRangeOptions, parseDayRange, parseList } from "../day-range-options.js";
import { ExitCode } from "../exit-codes.js";
import { type Output, table } from "../output.js";

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
 * takes at the configured rate. Reads the warehouse only: no request reaches the upstream.
 */
export async function planCommand(options: PlanOptions, out: Output): Promise<ExitCode> {
  const { env, etl } = loadConfig({ upstream: false });
  const range = parseDayRange(options);
  const streams = selectStreams(parseList(options.only));
  await ensureDatabase(env.DATABASE_URL);
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 1 });
  try {
    await migrateToLatest(db);
    const today = utcToday();
    const plans = await planRequests({ db, config: etl, today }, streams, range);
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
      ["total", sum, String(total), ""],
    ])) {
      out.line(line);
    }
    const rate = etl.requests_per_second;
    out.line(
      rate === "auto"
        ? `${total} requests at ${AUTO_START_RATE} req/s, where requests_per_second "auto" starts (the upstream's stated limit, once read, decides): ${duration(total / AUTO_START_RATE)}`
        : `${total} requests at ${rate} req/s (requests_per_second, shared by every worker): ${duration(total / rate)}`,
    );
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
