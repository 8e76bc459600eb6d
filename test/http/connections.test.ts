import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream, type Upstream } from "../helpers/upstream.js";
import { getTerritoriesOperation } from "../../src/streams/catalogue/territories.js";
import { getTrendsListOperation } from "../../src/streams/trends/trend-items.js";
import { getTrendsTotalOperation } from "../../src/streams/trends/trend-totals.js";

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream("connections", {
    sandbox: { today: "2026-02-01" },
    etl: { requests_per_second: 1000, max_concurrency: 4 },
  });
});

afterAll(() => upstream.close());

describe("connections to the upstream", () => {
  it("are kept alive, for the GETs that carry a body (trends) as for the others", async () => {
    const { api } = upstream.context;
    const day = { start_date: "2026-01-20", end_date: "2026-01-20" };
    for (const selection_type of ["dsp", "territory", "label", "product", "asset"] as const) {
      await api.call(getTrendsTotalOperation, { selection_type, ...day });
      await api.call(getTrendsListOperation, {
        selection_type,
        sale_type: "stream",
        start_date: "2026-01-20T00:00:00",
        end_date: "2026-01-20T23:59:59",
      });
      await api.call(getTerritoriesOperation, { key: "all" });
    }
    const stats = upstream.sandbox.stats();
    expect(stats.requests).toBe(15);
    // One request after another: one connection serves them all.
    expect(stats.connections).toBe(1);
  });
});
