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
 * Two days of the demo's tracking: some 900 requests, 75 s at the limit, so the 12 s it takes to
 * find the limit (2, 3, 4, 6, 9, 13 req/s, a step of 2 s each) is a small part of the wall.
 */
const RANGE = { from: "2026-01-01", to: "2026-01-02" };
/** The limit the upstreams that say nothing of theirs were seen to allow. */
const LIMIT = 12;
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("probed_sync", {
    today: TODAY,
    sandbox: { knobs: { requestsPerSecond: LIMIT, rateLimitHeaders: "none", latencyMs: 20 } },
    etl: { ...(await demoTracking(TODAY)), requests_per_second: "auto", max_concurrency: 4 },
  });
});

afterAll(() => harness.close());

describe('a sync with "auto" where the upstream never states its limit', () => {
  it("sustains three quarters of the limit over its wall, with few 429s, and stores exactly what was served", async () => {
    const { sandbox } = harness.upstream;
    sandbox.resetStats();
    const started = performance.now();
    const summaries = await harness.sync(RANGE);
    const wallS = (performance.now() - started) / 1000;
    const { requests, rateLimited } = sandbox.stats();
    const learned = await harness.upstream.context.budget.currentRate();
    console.log(
      `sync with auto, unstated limit ${LIMIT} req/s: ${requests} requests in ${wallS.toFixed(1)} s ` +
        `(${(requests / wallS).toFixed(2)} req/s, ${(requests / wallS / LIMIT).toFixed(3)} of the limit), ` +
        `${rateLimited} 429s, learned ${learned.requestsPerSecond} req/s (${learned.source})`,
    );
    expect(failures(summaries)).toEqual([]);
    expect(requests / wallS / LIMIT).toBeGreaterThanOrEqual(0.75);
    expect(rateLimited / requests).toBeLessThanOrEqual(0.03);
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
  }, 240_000);
});
