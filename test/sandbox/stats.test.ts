import { afterEach, describe, expect, it } from "vitest";
import { type Sandbox, type SandboxStats, startSandbox } from "../../sandbox/index.js";
import { call, ok } from "./call.js";

describe("sandbox stats and admin endpoints", () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  it("counts requests by operation and status", async () => {
    sandbox = await startSandbox({ today: "2026-02-01" });
    const cm = sandbox.data.socialArtists()[0]?.cm_artist;
    await call(sandbox, "/api/v1/getDsps/all");
    await call(sandbox, "/api/v1/getDsps/all");
    await call(sandbox, "/api/v1/getTerritories/all");
    await call(sandbox, `/api/v1/artist-stats/cm-stats?artist_id=${cm}`);
    await call(sandbox, "/api/v1/artist-stats/cm-stats?artist_id=x");
    await call(sandbox, "/api/v1/payouts", { method: "POST", body: { amount: 100 } });
    await call(sandbox, "/api/v1/nothing-here");
    const stats = sandbox.stats();
    expect(stats.requests).toBe(7);
    expect(stats.byOperation).toEqual({
      "catalogue.getDsps": 2,
      "catalogue.getTerritories": 1,
      "artistStats.cmStats": 2,
      "royalties.requestPayout": 1,
      unknown: 1,
    });
    expect(stats.byStatus).toEqual({ 200: 5, 404: 1, 422: 1 });
    expect(stats.unauthorized).toBe(0);
    expect(stats.rateLimited).toBe(0);
    const second = Number(Object.keys(stats.perSecond)[0]);
    expect(Math.abs(second - Date.now() / 1000)).toBeLessThan(5);
  });

  it("tracks peak concurrency", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", knobs: { latencyMs: 300 } });
    await Promise.all(Array.from({ length: 6 }, () => call(sandbox, "/api/v1/getDsps/all")));
    expect(sandbox.stats().peakConcurrency).toBe(6);
    sandbox.resetStats();
    await call(sandbox, "/api/v1/getDsps/all");
    await call(sandbox, "/api/v1/getDsps/all");
    expect(sandbox.stats().peakConcurrency).toBe(1);
  });

  it("resets every counter", async () => {
    sandbox = await startSandbox({ today: "2026-02-01" });
    await call(sandbox, "/api/v1/getDsps/all", { authorization: null });
    sandbox.resetStats();
    expect(sandbox.stats()).toEqual({
      requests: 0,
      byOperation: {},
      byStatus: {},
      rateLimited: 0,
      faults: { html503: 0, error500: 0, reset: 0, truncated: 0, slow: 0 },
      unauthorized: 0,
      peakConcurrency: 0,
      perSecond: {},
      rateLimitedPerSecond: {},
      maxPerSecond: 0,
      connections: 0,
      failureEnvelopes: 0,
    });
  });

  it("serves stats over HTTP and takes knobs over HTTP, refusing invalid ones", async () => {
    sandbox = await startSandbox({ today: "2026-02-01" });
    await call(sandbox, "/api/v1/getDsps/all");
    const stats = await ok<SandboxStats>(sandbox, "/__sandbox/stats", { authorization: null });
    expect(stats).toEqual(sandbox.stats());
    expect(stats.requests).toBe(1);
    const set = await call(sandbox, "/__sandbox/knobs", {
      method: "POST",
      authorization: null,
      body: { faultRate: 1, faults: ["error500"], drift: { nulls: true } },
    });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      knobs: { faultRate: 1, faults: ["error500"], drift: { nulls: true, extraFields: false } },
    });
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(500);
    for (const body of [
      { faultRate: 2 },
      { faults: ["meteor"] },
      { unknownKnob: 1 },
      { drift: { typo: true } },
    ]) {
      const refused = await call(sandbox, "/__sandbox/knobs", { method: "POST", body });
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ error: expect.any(String) });
    }
    expect(sandbox.stats().requests).toBe(2);
  });

  it("refuses invalid knobs and sizes given in code", async () => {
    sandbox = await startSandbox({ today: "2026-02-01" });
    expect(() => sandbox.setKnobs({ requestsPerSecond: 0 })).toThrow();
    await expect(startSandbox({ size: { products: -1 } })).rejects.toThrow();
    await expect(startSandbox({ today: "01/02/2026" })).rejects.toThrow();
  });
});
