import { foregroundRun } from "../warehouse/foreground-run.js";
import type { RunEnd } from "../warehouse/runs.js";
import { recordStreamSettings } from "../warehouse/recorded-settings.js";
import type { DayRange } from "./plan-partitions.js";
import { STREAMS } from "./registry.js";
import type { RunnerDeps } from "./attempt-record.js";
import { runSync, type StreamSummary } from "./run-sync.js";
import type { Stream } from "./stream.js";
import { streamSettings } from "./stream-settings.js";

/**
 * A sync in the foreground, as `etl sync` runs it: every stream's settings written first (so
 * `status` judges freshness by this config), then the run recorded in etl.runs, its attempts
 * named by it, and ended as succeeded, interrupted (`stopped`) or failed.
 */
export async function recordedSync(
  deps: RunnerDeps,
  streams: readonly Stream[],
  range: DayRange,
  stopped: () => boolean,
  ended?: (runId: string, end: RunEnd) => Promise<void>,
): Promise<{ readonly runId: string; readonly result: StreamSummary[] }> {
  await recordStreamSettings(deps.db, streamSettings(deps.config, STREAMS));
  return foregroundRun(
    deps.db,
    { kind: "sync", streams: streams.map((s) => s.name), range },
    stopped,
    (runId) => runSync({ ...deps, run: runId }, streams, range),
    ended,
  );
}
