import { STREAM_FAMILIES } from "../config/families.js";
import { STREAMS } from "../streams/registry.js";
import { utcMinuteOf } from "../time/calendar.js";
import type { RunRecord } from "../warehouse/runs.js";
import { table } from "./output.js";

/**
 * A run's streams as `--only` takes them: a family whose every stream it syncs by the family's
 * name, the others by their own; "every stream" for all of them.
 */
export function runStreams(streams: readonly string[]): string {
  const named = new Set(streams);
  if (STREAMS.every((s) => named.has(s.name)) && named.size === STREAMS.length) {
    return "every stream";
  }
  const parts: string[] = [];
  for (const family of STREAM_FAMILIES) {
    const members = STREAMS.filter((s) => s.family === family).map((s) => s.name);
    if (members.length > 0 && members.every((name) => named.has(name))) {
      parts.push(family);
      for (const name of members) named.delete(name);
    }
  }
  // Streams in the registry's order, then any this release does not know.
  const known = STREAMS.map((s) => s.name).filter((name) => named.has(name));
  const unknown = [...named].filter((name) => !known.includes(name));
  return [...parts, ...known, ...unknown].join(", ");
}

/** The days a run covers, as its --from..--to; a scheduled run's are incremental. */
export function runDays(run: Pick<RunRecord, "kind" | "range">): string {
  const { from, to } = run.range;
  if (from === undefined && to === undefined) {
    return run.kind === "schedule" ? "incremental" : "every day";
  }
  return `${from ?? "start_date"}..${to ?? "yesterday"}`;
}

/**
 * The lost runs as `etl status` lists them (nothing when there are none): each with its id, kind,
 * days and streams, and how to queue them again.
 */
export function lostRunLines(runs: readonly RunRecord[]): string[] {
  if (runs.length === 0) return [];
  return [
    `lost runs: ${runs.length} queued or running when their job vanished from the queue (Redis lost its data?); no worker will run them`,
    "",
    ...table([
      ["run", "kind", "days", "queued (UTC)", "streams"],
      ...runs.map((run) => [
        run.runId,
        run.kind,
        runDays(run),
        utcMinuteOf(run.queuedAt),
        runStreams(run.streams),
      ]),
    ]),
    "",
    "queue them again, the same kind, streams and days: `etl requeue <run>` (one) or `etl requeue --lost` (all)",
  ];
}
