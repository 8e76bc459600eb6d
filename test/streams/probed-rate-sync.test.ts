import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daysBetween } from "../../src/time/calendar.js";
import { warehouseDifferences } from "../helpers/reconcile.js";
import {
  demoTracking,
  type SyncHarness,
  startSyncHarness,
  failures,
} from "../helpers/sync-harness.js";

// A sync with requests_per_second "auto" against an upstream that allows LIMIT requests a second
// and never says so, not even on its 429s: probing must find the limit, and the data must be
// exactly what a sync at a known rate stores.

const TODAY = "2026-01-31";
/**
 * A day of every stream, tracking one social artist: some 250 requests, enough to find the limit
 * (2, 3, 4, 6, 9, 13 req/s, a step of 2 s each, a 429 at 13) and run at it. The pace reached is
 * the bench's (section 2).
 */
const RANGE = { from: "2026-01-01", to: "2026-01-01" };
const SIZE = { socialArtists: 1, playlistsPerArtist: 20, chartRows: 40, incomes: 60 };
/** The limit the upstreams that say nothing of theirs were seen to allow. */
const LIMIT = 12;
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("probed_sync", {
    today: TODAY,
    sandbox: {
      size: SIZE,
      knobs: { requestsPerSecond: LIMIT, rateLimitHeaders: "none", latencyMs: 20 },
    },
    etl: { ...(await demoTracking(TODAY, SIZE)), requests_per_second: "auto", max_concurrency: 4 },
  });
});

afterAll(() => harness.close());

describe('a sync with "auto" where the upstream never states its limit', () => {
  it("probes with few 429s, and stores exactly what was served", async () => {
    const { sandbox } = harness.upstream;
    sandbox.resetStats();
    const summaries = await harness.sync(RANGE);
    const { requests, rateLimited } = sandbox.stats();
    expect(failures(summaries)).toEqual([]);
    expect((await harness.upstream.context.budget.currentRate()).source).not.toBe("start");
    // A 429 or two at each rate probing tries above the limit; a few more on a busy machine.
    expect(rateLimited / requests).toBeLessThanOrEqual(0.05);
    const differences = await warehouseDifferences(
      {
        warehouse: harness.warehouse,
        data: sandbox.data,
        config: harness.config,
        today: TODAY,
        days: daysBetween(RANGE.from, RANGE.to),
      },
      { incomesHaveIds: true },
    );
    expect(differences).toEqual([]);
  });
});
