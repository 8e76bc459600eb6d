import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxTracking } from "../../sandbox/demo/sandbox-tracking.js";
import {
  type KnobsPatch,
  SHAPE_VARIANTS,
  type SandboxSize,
  startSandbox,
} from "../../sandbox/index.js";
import { selectStreams } from "../../src/streams/registry.js";
import type { StreamSummary } from "../../src/runner/run-sync.js";
import { daysBetween } from "../../src/time/calendar.js";
import {
  readingCheckDifferences,
  salesViewDifferences,
  viewTitleDifferences,
} from "./analytics-reconcile.js";
import { type ReconcileScope, warehouseDifferences } from "./reconcile.js";
import { type SyncHarness, startSyncHarness, failures } from "./sync-harness.js";
import { typedScalars } from "./typed-scalars.js";

// Every alternative shape the sandbox can serve, each against a database of its own: a full
// sync, late data and restatements (revision 1), then a sync with nothing new. After each of the
// first two, the warehouse must hold every record served exactly once with its measure, or have
// quarantined it with a reason; nothing may be lost quietly. After them, and after a replay of
// what was stored, the analytics views must say what the upstream says.

export const TODAY = "2026-01-06";
/** Revision 1 changes the 3 days before today (2026-01-03..05); 2026-01-02 stays as it was. */
const RANGE = { from: "2026-01-02", to: "2026-01-05" };
const DAYS = daysBetween(RANGE.from, RANGE.to);
/** Small, but every paged list still needs several pages under a cap of 7 or pages of 10. */
export const SIZE: Partial<SandboxSize> = {
  startDate: "2026-01-01",
  days: 10,
  products: 12,
  artists: 8,
  dsps: 8,
  labels: 4,
  socialArtists: 1,
  playlistsPerArtist: 16,
  chartRows: 24,
  payouts: 25,
  incomes: 40,
  trendItemsCap: 40,
};
/** Every schema of upstream data: each declares typed columns only for what the spec shows. */
const DATA_SCHEMAS = ["catalogue", "sales", "artist_stats", "royalties"];
/**
 * The streams whose tables the analytics checks read (the sales trends, the products and their
 * assets), as `etl replay --only trends,products` names them: no time spent loading again the
 * tables no check reads.
 */
const ANALYTICS_STREAMS = ["trends", "products"];
/** Lines of a reconciliation shown in a failure, the rest counted. */
const SHOWN = 40;

export type Summaries = readonly StreamSummary[];

const written = (summaries: Summaries) => summaries.reduce((n, s) => n + s.rowsWritten, 0);
const rejected = (summaries: Summaries) => summaries.reduce((n, s) => n + s.rowsRejected, 0);
const warnedPartitions = (summaries: Summaries) =>
  summaries.flatMap((s) =>
    s.warned.map((w) => `${w.stream} ${w.partition}: ${w.warnings.map((x) => x.kind).join(",")}`),
  );
/** Values the readers could not type, by stream and field: a habit a reader did not know. */
const untypedFields = (summaries: Summaries) =>
  summaries.flatMap((s) =>
    s.untyped.map((u) => `${s.stream} ${u.field} (${u.expected}): ${u.examples.join(", ")}`),
  );
/** 200 answers the client read as failure bodies (and retried), over the streams. */
const failureBodies = (summaries: Summaries) => summaries.reduce((n, s) => n + s.failureBodies, 0);

/**
 * A clean success, what exit code 0 means: no failed partition, nothing quarantined, no warning,
 * and no value a reader could not type (a reader that typed a served value as null shows here).
 */
function expectCleanSuccess(summaries: Summaries) {
  expect.soft(failures(summaries), "failed partitions").toEqual([]);
  expect.soft(rejected(summaries), "records quarantined").toBe(0);
  expect.soft(warnedPartitions(summaries), "warned partitions").toEqual([]);
  expect.soft(untypedFields(summaries), "untyped values").toEqual([]);
}

/** Whether a run says anything was uncertain or not stored: anything but a clean success. */
export const reportsTrouble = (summaries: Summaries) =>
  rejected(summaries) > 0 || summaries.some((s) => s.warned.length > 0);

/** The first SHOWN differences and how many more there are: readable, never a wall. */
function shown(differences: readonly string[]): string[] {
  return differences.length <= SHOWN
    ? [...differences]
    : [...differences.slice(0, SHOWN), `… and ${differences.length - SHOWN} more`];
}

async function countRows(harness: SyncHarness, sql: string, values?: unknown[]): Promise<number> {
  const [row] = await harness.warehouse.query<{ n: number }>(sql, values);
  return row?.n ?? -1;
}

/** What the run recorded in the database as quarantined or warned since `since`. */
async function recordedTrouble(harness: SyncHarness, since: Date) {
  return {
    quarantined: await countRows(
      harness,
      "select count(*)::int as n from etl.rejected_records where last_seen_at >= $1",
      [since],
    ),
    warnedRuns: await countRows(
      harness,
      `select count(*)::int as n from etl.attempts
        where started_at >= $1 and jsonb_typeof(warnings) = 'array'
          and jsonb_array_length(warnings) > 0`,
      [since],
    ),
  };
}

/**
 * The checks after a sync whose result must reconcile: no failed partition, no difference with
 * the sandbox, and what was quarantined or warned in the database is in the summary too, so a
 * run that lost or doubted anything never reports a clean success.
 */
async function expectReconciled(
  harness: SyncHarness,
  scope: ReconcileScope,
  summaries: Summaries,
  since: Date,
  incomesHaveIds: boolean,
) {
  expect.soft(failures(summaries), "failed partitions").toEqual([]);
  const differences = await warehouseDifferences(scope, { incomesHaveIds });
  expect.soft(shown(differences), "differences with the sandbox").toEqual([]);
  const trouble = await recordedTrouble(harness, since);
  const reported = {
    rowsRejected: rejected(summaries),
    warned: warnedPartitions(summaries).length,
  };
  if (trouble.quarantined > 0) {
    expect.soft(reported.rowsRejected, "quarantined records not in the summary").toBeGreaterThan(0);
  }
  if (trouble.warnedRuns > 0) {
    expect.soft(reported.warned, "warned partitions not in the summary").toBeGreaterThan(0);
  }
  if (differences.length > 0) {
    expect
      .soft(reportsTrouble(summaries), "data was lost, yet the summary reports a clean success")
      .toBe(true);
  }
}

/**
 * What the sync tracks, read from a sandbox of the same seed and size: broad catalogue look-ups,
 * one chart, and the one social artist found every way (by its id, its streaming id, and through
 * the catalogue artist it is linked to).
 */
export async function trackingConfig() {
  const probe = await startSandbox({ today: TODAY, size: SIZE });
  try {
    const [artist] = probe.data.socialArtists();
    if (!artist) throw new Error("the sandbox has no social artist");
    return { ...sandboxTracking(probe.data), streaming_artist_ids: [artist.music_streaming_1] };
  } finally {
    await probe.close();
  }
}

/**
 * A warehouse of the test file's own, synced over `range` without a failed partition from an
 * upstream that names every unshown field its own way (the renamed-fields variant).
 */
export async function renamedFieldsSync(
  label: string,
  range: { from: string; to: string },
): Promise<SyncHarness> {
  const harness = await startSyncHarness(label, {
    today: TODAY,
    sandbox: { size: SIZE, knobs: SHAPE_VARIANTS["renamed-fields"] as KnobsPatch },
    etl: await trackingConfig(),
  });
  expect(failures(await harness.sync(range))).toEqual([]);
  return harness;
}

/** Tries enough that a request meets failure in all of them once in 10^11: never. */
const FAILURE_ENVELOPE_RETRIES = 10;

/** The files the variants are shared among, run side by side: the slowest file of the suite else. */
export const SHAPE_VARIANT_PARTS = 3;

/** The variants of one part (0-based): every variant in exactly one part, in the table's order. */
export function variantsOfPart(part: number): string[] {
  return Object.keys(SHAPE_VARIANTS).filter((_, index) => index % SHAPE_VARIANT_PARTS === part);
}

/**
 * The three syncs of each variant of `part`, then a replay, each variant against a database of
 * its own.
 */
export function describeShapeVariants(part: number): void {
  let tracking: Awaited<ReturnType<typeof trackingConfig>>;

  beforeAll(async () => {
    tracking = await trackingConfig();
  });

  describe.each(variantsOfPart(part))("shape variant %s", (variant) => {
    const knobs = SHAPE_VARIANTS[variant] as KnobsPatch;
    const incomesHaveIds = knobs.shapes?.incomesWithoutIds !== true;
    const failureEnvelopes = (knobs.shapes?.failureEnvelopeRate ?? 0) > 0;
    let harness: SyncHarness;
    let scope: ReconcileScope;

    beforeAll(async () => {
      harness = await startSyncHarness(`shapes_${variant}`, {
        today: TODAY,
        sandbox: { size: SIZE, knobs },
        // One answer in ten declares failure: with the harness's 5 tries, one request in 100,000
        // fails them all, which a variant's syncs meet now and then. Such a partition is right to
        // fail, and this suite asserts that none does.
        etl: failureEnvelopes ? { ...tracking, max_retries: FAILURE_ENVELOPE_RETRIES } : tracking,
      });
      scope = {
        warehouse: harness.warehouse,
        data: harness.upstream.sandbox.data,
        config: harness.config,
        today: TODAY,
        days: DAYS,
        shapes: knobs.shapes,
      };
    });

    /** Under failure envelopes: the sandbox sent some during the sync, and the summary counts them. */
    function expectFailureBodiesRetried(summaries: Summaries, sentBefore: number) {
      if (!failureEnvelopes) return;
      const sent = harness.upstream.sandbox.stats().failureEnvelopes - sentBefore;
      expect.soft(sent, "failure envelopes the sandbox sent").toBeGreaterThan(0);
      expect.soft(failureBodies(summaries), "failure bodies in the summaries").toBeGreaterThan(0);
      expect.soft(failureBodies(summaries), "failure bodies counted").toBeLessThanOrEqual(sent);
    }

    afterAll(() => harness.close());

    /**
     * Every scalar value of every record stored is in a typed column of its row, exactly as sent,
     * whatever the upstream names it.
     */
    async function expectEveryValueTyped() {
      const { total, untyped } = await typedScalars(harness.warehouse, DATA_SCHEMAS);
      expect(total, "scalar values stored").toBeGreaterThan(0);
      expect.soft(shown(untyped), `values only raw holds, of ${total}`).toEqual([]);
    }

    /**
     * The analytics layer as a BI user reads it: every day's sales views add up to the day's
     * totals (served and stored), the product and asset views carry the catalogue's titles, and
     * every reading check of the range holds its three readings.
     */
    async function expectAnalyticsReconciled() {
      expect
        .soft(shown(await salesViewDifferences(scope)), "analytics sales views against the totals")
        .toEqual([]);
      expect
        .soft(shown(await viewTitleDifferences(scope)), "analytics views' titles against upstream")
        .toEqual([]);
      expect
        .soft(shown(await readingCheckDifferences(scope)), "analytics.reading_checks incomplete")
        .toEqual([]);
    }

    /**
     * A sync of the range that stores every record served (or quarantines it, said), with every
     * value typed, a clean success, the failure bodies sent retried, and analytics that add up.
     */
    async function syncExpectingEverything() {
      const since = new Date();
      const sentBefore = harness.upstream.sandbox.stats().failureEnvelopes;
      const summaries = await harness.sync(RANGE);
      await expectReconciled(harness, scope, summaries, since, incomesHaveIds);
      expectCleanSuccess(summaries);
      expectFailureBodiesRetried(summaries, sentBefore);
      await expectEveryValueTyped();
      await expectAnalyticsReconciled();
    }

    it("1. a full sync stores every record served, or quarantines it with a reason", async () => {
      await syncExpectingEverything();
    });

    it("2. late data and restatements (revision 1) are stored once, with their new values", async () => {
      harness.upstream.sandbox.setKnobs({ shapes: { revision: 1 } });
      const changes = harness.upstream.sandbox.data.revisionChanges();
      // The revision changes what this test syncs: the late days are in the range.
      expect(changes.trendDays.every((day) => DAYS.includes(day))).toBe(true);
      expect(changes.trendDays).toHaveLength(3);
      expect(changes.restatedIncomeIds.length).toBeGreaterThan(0);
      expect(changes.paidPayoutId).not.toBeNull();
      await syncExpectingEverything();
    });

    it("3. a sync with no upstream change writes no row and lands no response", async () => {
      const [before] = await harness.warehouse.query<{ n: number; last: string | null }>(
        "select count(*)::int as n, max(response_id)::text as last from etl.responses",
      );
      const summaries = await harness.sync(RANGE);
      expectCleanSuccess(summaries);
      expect
        .soft(
          summaries.filter((s) => s.rowsWritten > 0).map((s) => `${s.stream}: ${s.rowsWritten}`),
          "streams that wrote rows",
        )
        .toEqual([]);
      expect.soft(written(summaries), "rows written").toBe(0);
      const landed = await harness.warehouse.query<{ response: string }>(
        `select concat_ws(' ', stream, partition, 'page', page, 'part', part) as response
         from etl.responses where response_id > coalesce($1::bigint, 0) order by response_id`,
        [before?.last ?? null],
      );
      expect.soft(shown(landed.map((r) => r.response)), "responses landed").toEqual([]);
      const after = await countRows(harness, "select count(*)::int as n from etl.responses");
      expect.soft(after - (before?.n ?? 0), "rows added to etl.responses").toBe(0);
    });

    it("4. a replay of the stored responses (as etl replay runs it) derives the same analytics", async () => {
      const summaries = await harness.recordedReplay(selectStreams(ANALYTICS_STREAMS));
      expect.soft(failures(summaries), "failed partitions of the replay").toEqual([]);
      await expectAnalyticsReconciled();
    });
  });
}
