import { utcMinuteOf } from "../time/calendar.js";
import type { Warehouse } from "../warehouse/database.js";
import { runHistoryOf, runStreamsOf, type RunHistoryEntry } from "../warehouse/run-history.js";
import { runSchemaChanges } from "../warehouse/schema-changes.js";
import { table } from "./output.js";
import { runDays, runStreams } from "./run-lines.js";
import { streamTable } from "./run-summary.js";
import { runSchemaChangeLines } from "./schema-change-lines.js";

function clock(seconds: number | null): string {
  if (seconds === null) return "-";
  const s = Math.round(seconds);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  return hms.map((n, i) => (i === 0 ? String(n) : String(n).padStart(2, "0"))).join(":");
}

/** `etl runs`: the latest runs, one line each, newest first. */
export function runListLines(runs: readonly RunHistoryEntry[]): string[] {
  if (runs.length === 0) return ["no run recorded yet (etl.runs is empty)"];
  return table([
    ["run", "kind", "status", "days", "queued (UTC)", "took", "partitions", "failed", "rows"],
    ...runs.map((run) => [
      run.runId,
      run.kind,
      run.status,
      runDays({ kind: run.kind, range: range(run) }),
      utcMinuteOf(run.queuedAt),
      clock(run.wallSeconds),
      String(run.partitions),
      String(run.failed),
      String(run.rowsWritten),
    ]),
  ]);
}

function range(run: RunHistoryEntry) {
  return {
    ...(run.rangeFrom === null ? {} : { from: run.rangeFrom }),
    ...(run.rangeTo === null ? {} : { to: run.rangeTo }),
  };
}

/**
 * `etl runs show <run>`: what the run was asked for, when it ran, and its table per stream as a
 * sync prints it, added up from its attempts in etl.attempts, then the columns they added or
 * widened (etl.schema_changes). Null when no run has that id.
 */
export async function runReportLines(db: Warehouse, runId: string): Promise<string[] | null> {
  const run = await runHistoryOf(db, runId);
  if (!run) return null;
  const streams = await runStreamsOf(db, runId);
  const changes = await runSchemaChanges(db, runId);
  const rows = streams.map((s) => ({
    ...s,
    seconds:
      s.firstStartedAt && s.lastFinishedAt
        ? (s.lastFinishedAt.getTime() - s.firstStartedAt.getTime()) / 1000
        : 0,
  }));
  const ran = run.startedAt
    ? `started ${utcMinuteOf(run.startedAt)}, ${run.finishedAt ? `finished ${utcMinuteOf(run.finishedAt)} (took ${clock(run.wallSeconds)})` : "not finished"}`
    : "not started";
  const retried = run.attempts - run.partitions;
  return [
    `run ${run.runId}: ${run.kind}, ${run.status}; ${runDays({ kind: run.kind, range: range(run) })}; ${runStreams(run.streams)}`,
    `queued ${utcMinuteOf(run.queuedAt)} UTC${run.queuedBy ? ` by ${run.queuedBy}` : ""}; ${ran}`,
    ...(run.error ? [`error: ${run.error}`] : []),
    "",
    ...(rows.length === 0
      ? ["no partition attempted yet"]
      : streamTable(rows, run.wallSeconds ?? 0)),
    ...runSchemaChangeLines(changes),
    ...(retried > 0 ? ["", `${retried} attempts were retries of a partition within the run`] : []),
    ...(run.unfinished > 0
      ? [`${run.unfinished} partitions did not end (interrupted, abandoned or still running)`]
      : []),
    ...(run.failed > 0
      ? [
          `${run.failed} partitions failed: see \`etl status\` and etl.attempts where run = '${run.runId}'`,
        ]
      : []),
  ];
}
