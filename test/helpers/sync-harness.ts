import type { EtlConfig } from "../../src/config/etl-config-schema.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { selectStreams, STREAMS } from "../../src/streams/registry.js";
import type { Stream } from "../../src/streams/stream.js";
import type { Warehouse } from "../../src/warehouse/database.js";
import type { RunnerDeps } from "../../src/runner/attempt-record.js";
import { runReplay } from "../../src/runner/replay/run-replay.js";
import { recordedSync, settledForegroundRun } from "../../src/runner/recorded-sync.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import type { DayRange } from "../../src/runner/plan/plan-partitions.js";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import { type SandboxSize, startSandbox } from "../../sandbox/index.js";
import { startUpstream, type Upstream, type UpstreamOptions } from "./upstream.js";
import { createTestWarehouse, type TestWarehouse } from "./warehouse.js";

/**
 * An account smaller than the sandbox's default whose lists still take several pages: three
 * tracked artists instead of seven, fewer artists, playlists, trend items and chart rows. For
 * tests that sync, replay or plan every stream and need each paged, not the default's volume.
 */
export const SMALL_ACCOUNT: Partial<SandboxSize> = {
  socialArtists: 3,
  artists: 20,
  playlistsPerArtist: 40,
  trendItemsCap: 250,
  chartRows: 60,
};

export interface SyncHarness {
  readonly upstream: Upstream;
  readonly warehouse: TestWarehouse;
  readonly config: EtlConfig;
  /** Runs `streams` (default: the registry's, or those `only` names). */
  /**
   * `db`: the warehouse as another process would open it (caches of its own); `settings` change
   * the config for this sync.
   */
  sync(
    options?: DayRange & {
      only?: string[];
      streams?: readonly Stream[];
      db?: Warehouse;
      settings?: Partial<EtlConfig>;
    },
  ): Promise<StreamSummary[]>;
  /**
   * Replays `streams` (default: the registry's) from the stored responses, with no request;
   * `settings` change the config for the replay (as a new release's, or an operator's, would).
   */
  replay(
    streams?: readonly Stream[],
    range?: DayRange,
    settings?: Partial<EtlConfig>,
  ): Promise<StreamSummary[]>;
  /**
   * Replays `streams` (default: the registry's) as `etl replay` does: a run recorded in etl.runs,
   * whose end checks the trends readings of the days it changed.
   */
  recordedReplay(streams?: readonly Stream[], range?: DayRange): Promise<StreamSummary[]>;
  close(): Promise<void>;
}

/**
 * A sandbox, a migrated database of the file's own and the real runner between them. `today`
 * pins the run date (the sandbox's "now" too), so daily ranges and snapshots are deterministic.
 */
export async function startSyncHarness(
  label: string,
  options: UpstreamOptions & { today: string; etl?: Partial<Record<keyof EtlConfig, unknown>> },
): Promise<SyncHarness> {
  const upstream = await startUpstream(label, {
    ...options,
    sandbox: { today: options.today, ...options.sandbox },
  });
  const warehouse = await createTestWarehouse(label).catch(async (error: unknown) => {
    await upstream.close();
    throw error;
  });
  const config = etlConfigSchema.parse({
    start_date: "2026-01-01",
    requests_per_second: 1000,
    max_concurrency: 8,
    redis_prefix: upstream.prefix,
    ...options.etl,
  });
  const deps: RunnerDeps = {
    db: warehouse.db,
    api: upstream.context.api,
    logger: upstream.context.logger,
    config,
    today: options.today,
  };
  return {
    upstream,
    warehouse,
    config,
    async sync(options = {}) {
      const streams = options.streams ?? selectStreams(options.only);
      const range: DayRange = {
        ...(options.from === undefined ? {} : { from: options.from }),
        ...(options.to === undefined ? {} : { to: options.to }),
      };
      const db = options.db ?? deps.db;
      const runner = { ...deps, db, config: { ...config, ...options.settings } };
      return (await recordedSync(runner, streams, range, () => false)).result;
    },
    replay: (streams = STREAMS, range = {}, settings = {}) =>
      runReplay(
        { ...deps, config: { ...config, ...settings }, ownsLink: () => true },
        streams,
        range,
      ),
    async recordedReplay(streams = STREAMS, range = {}) {
      const run = await settledForegroundRun(
        deps,
        { kind: "replay", streams: streams.map((s) => s.name), range },
        () => false,
        (runId) => runReplay({ ...deps, run: runId, ownsLink: () => true }, streams, range),
      );
      return run.result;
    },
    async close() {
      await warehouse.drop();
      await upstream.close();
    },
  };
}

/**
 * The demo's tracking config (ETL_CONFIG keys) for the sandbox of `today` (and `size`): it names
 * the sandbox's own artists, read from a sandbox of the same seed and size.
 */
export async function demoTracking(
  today: string,
  size?: Partial<SandboxSize>,
): Promise<ReturnType<typeof sandboxTracking>> {
  const probe = await startSandbox({ today, size });
  try {
    return sandboxTracking(probe.data);
  } finally {
    await probe.close();
  }
}

/** The partitions that failed in a run's summaries, each as "stream partition: error". */
export function failures(summaries: readonly StreamSummary[]): string[] {
  return summaries.flatMap((s) =>
    s.failed.map((f) => `${f.stream} ${f.partition}: ${String(f.error)}`),
  );
}
