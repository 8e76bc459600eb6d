import type { Settlement } from "../analytics/settle-roles.js";
import { settleAfterRun } from "../analytics/settle-after-run.js";
import { foregroundRun } from "../warehouse/foreground-run.js";
import type { RunEnd } from "../warehouse/runs.js";
import { recordStreamSettings } from "../warehouse/recorded-settings.js";
import type { DayRange } from "./plan/plan-partitions.js";
import { STREAMS } from "../streams/registry.js";
import type { RunnerDeps } from "./attempt-record.js";
import { runSync, type StreamSummary } from "./run-sync.js";
import type { Stream } from "../streams/stream.js";
import { streamSettings } from "./stream-settings.js";

/** A foreground run's summaries, and the roles settled after it. */
export interface RecordedRun {
  readonly runId: string;
  readonly result: StreamSummary[];
  readonly settlement: Settlement | null;
}

/**
 * Runs `body` as a foreground run (foregroundRun), then, unless it was stopped, settles the roles
 * of the analytics views from what it wrote, before the run's end is recorded: the end's check of
 * the readings reads the units through the roles settled.
 */
export async function settledForegroundRun(
  deps: Pick<RunnerDeps, "db" | "config">,
  run: Parameters<typeof foregroundRun>[1],
  stopped: () => boolean,
  body: (runId: string) => Promise<StreamSummary[]>,
  ended?: (runId: string, end: RunEnd) => Promise<void>,
): Promise<RecordedRun> {
  const { runId, result } = await foregroundRun(
    deps.db,
    run,
    stopped,
    async (id) => {
      const summaries = await body(id);
      const settlement = stopped() ? null : await settleAfterRun(deps.db, deps.config.roles, id);
      return { summaries, settlement };
    },
    ended,
  );
  return { runId, result: result.summaries, settlement: result.settlement };
}

/**
 * A sync in the foreground, as `etl sync` runs it: every stream's settings written first (so
 * `status` judges freshness by this config), then the run recorded in etl.runs, its attempts
 * named by it, the roles settled, and ended as succeeded, interrupted (`stopped`) or failed.
 */
export async function recordedSync(
  deps: RunnerDeps,
  streams: readonly Stream[],
  range: DayRange,
  stopped: () => boolean,
  ended?: (runId: string, end: RunEnd) => Promise<void>,
): Promise<RecordedRun> {
  await recordStreamSettings(deps.db, streamSettings(deps.config, STREAMS));
  return settledForegroundRun(
    deps,
    { kind: "sync", streams: streams.map((s) => s.name), range },
    stopped,
    (runId) => runSync({ ...deps, run: runId }, streams, range),
    ended,
  );
}
