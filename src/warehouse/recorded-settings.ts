import { sql } from "kysely";
import { PROCESS_IDENTITY } from "../process-identity.js";
import type { Warehouse } from "./database.js";

/** A stream as the configuration sets it up: one row of etl.stream_settings. */
export interface StreamSettings {
  readonly stream: string;
  readonly family: string;
  readonly daily: boolean;
  readonly firstDay: string;
  readonly historyDays: number | null;
  readonly schedule: {
    readonly pattern: string;
    readonly tz: string;
    readonly intervalSeconds: number;
    readonly staleAfterSeconds: number;
  } | null;
}

/**
 * Writes the streams' settings (a worker at its start, `etl sync`), each row replaced whole:
 * what analytics.stream_freshness and analytics.stream_missing_days judge the streams by.
 */
export async function recordStreamSettings(
  db: Warehouse,
  settings: readonly StreamSettings[],
): Promise<void> {
  if (settings.length === 0) return;
  const rows = settings.map((s) => ({
    stream: s.stream,
    family: s.family,
    daily: s.daily,
    first_day: s.firstDay,
    history_days: s.historyDays,
    schedule_pattern: s.schedule?.pattern ?? null,
    schedule_tz: s.schedule?.tz ?? null,
    schedule_interval_seconds: s.schedule?.intervalSeconds ?? null,
    stale_after_seconds: s.schedule?.staleAfterSeconds ?? null,
    written_by: PROCESS_IDENTITY,
  }));
  await db
    .insertInto("etl.stream_settings")
    .values(rows)
    .onConflict((oc) =>
      oc.column("stream").doUpdateSet((eb) => ({
        family: eb.ref("excluded.family"),
        daily: eb.ref("excluded.daily"),
        first_day: eb.ref("excluded.first_day"),
        history_days: eb.ref("excluded.history_days"),
        schedule_pattern: eb.ref("excluded.schedule_pattern"),
        schedule_tz: eb.ref("excluded.schedule_tz"),
        schedule_interval_seconds: eb.ref("excluded.schedule_interval_seconds"),
        stale_after_seconds: eb.ref("excluded.stale_after_seconds"),
        written_at: sql<Date>`now()`,
        written_by: eb.ref("excluded.written_by"),
      })),
    )
    .execute();
}

/** What analytics.stream_freshness says of a stream's schedule, staleness and gaps. */
export interface StreamFreshness {
  readonly stream: string;
  /** Pattern and zone; null without a schedule (or settings never written). */
  readonly schedule: string | null;
  readonly stale: boolean;
  readonly missingDays: number | null;
  readonly lastSuccessAt: Date | null;
}

/** Per stream, as analytics.stream_freshness says it: the view BI tools read is the one rule. */
export async function streamFreshness(db: Warehouse): Promise<StreamFreshness[]> {
  const { rows } = await sql<{
    stream: string;
    schedule: string | null;
    stale: boolean;
    missing_days: number | null;
    last_success_at: Date | null;
  }>`select stream, schedule, stale, missing_days, last_success_at
       from analytics.stream_freshness`.execute(db);
  return rows.map((row) => ({
    stream: row.stream,
    schedule: row.schedule,
    stale: row.stale,
    missingDays: row.missing_days,
    lastSuccessAt: row.last_success_at,
  }));
}

/** The days the daily streams never synced (analytics.stream_missing_days), in all. */
export interface MissingDays {
  readonly streamDays: number;
  readonly streams: number;
  readonly first: string;
  readonly last: string;
}

/** Null when every daily stream synced every day from its first to yesterday. */
export async function missingDays(db: Warehouse): Promise<MissingDays | null> {
  const { rows } = await sql<{ n: number; streams: number; first: string; last: string }>`
    select count(*)::int as n, count(distinct stream)::int as streams,
           min(day)::text as first, max(day)::text as last
      from analytics.stream_missing_days`.execute(db);
  const row = rows[0];
  return row && row.n > 0
    ? { streamDays: row.n, streams: row.streams, first: row.first, last: row.last }
    : null;
}
