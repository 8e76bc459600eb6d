import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_KNOBS, type Sandbox, startSandbox } from "../../sandbox/index.js";
import { call } from "./call.js";

describe("sandbox authentication", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ apiKey: "test-key-123", today: "2026-02-01" });
  });
  afterAll(() => sandbox.close());

  it.each([
    ["no header", null],
    ["a wrong key", "Bearer wrong-key"],
    ["the key without the Bearer scheme", "test-key-123"],
    ["a prefix of the key", "Bearer test-key-12"],
  ])("answers 401 {error: Invalid token} to %s", async (_, authorization) => {
    const result = await call(sandbox, "/api/v1/getDsps/all", { authorization });
    expect(result.status).toBe(401);
    expect(result.json).toEqual({ error: "Invalid token" });
  });

  it("checks the key before the path, and counts every refusal", async () => {
    sandbox.resetStats();
    const unknown = await call(sandbox, "/api/v1/no-such-thing", { authorization: null });
    expect(unknown.status).toBe(401);
    const stats = sandbox.stats();
    expect(stats.unauthorized).toBe(1);
    expect(stats.byStatus[401]).toBe(1);
    expect(stats.byOperation.unknown).toBe(1);
  });

  it("accepts the right key, whatever the case of the scheme", async () => {
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
    const lower = await call(sandbox, "/api/v1/getDsps/all", {
      authorization: "bearer test-key-123",
    });
    expect(lower.status).toBe(200);
  });

  it("serves the admin endpoints without a key and without counting them", async () => {
    sandbox.resetStats();
    const stats = await call(sandbox, "/__sandbox/stats", { authorization: null });
    expect(stats.status).toBe(200);
    expect(stats.json).toMatchObject({ requests: 0 });
    expect(sandbox.stats().requests).toBe(0);
  });

  it("answers 404 {error: Not found} to an unknown path, counted as unknown", async () => {
    sandbox.resetStats();
    const result = await call(sandbox, "/api/v1/getDsps");
    expect(result.status).toBe(404);
    expect(result.json).toEqual({ error: "Not found" });
    const wrongMethod = await call(sandbox, "/api/v1/incomes", { method: "POST" });
    expect(wrongMethod.status).toBe(404);
    expect(sandbox.stats().byOperation).toEqual({ unknown: 2 });
  });
});

describe("sandbox credential echo", () => {
  const KEY = 'echo/"key"+123';
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ apiKey: KEY, today: "2026-02-01" });
  });
  afterAll(() => sandbox.close());

  it("is off by default, and takes only null, 200, 400 or 401", () => {
    expect(DEFAULT_KNOBS.echoCredential).toBeNull();
    for (const value of [500, "401", true, 0]) {
      expect(() => sandbox.setKnobs({ echoCredential: value as never })).toThrow(
        /invalid value for knob echoCredential/,
      );
    }
  });

  it("refuses every key with 401 and repeats the token it carried (none without one)", async () => {
    sandbox.setKnobs({ echoCredential: 401 });
    sandbox.resetStats();
    const right = await call(sandbox, "/api/v1/getDsps/all");
    const wrong = await call(sandbox, "/api/v1/getDsps/all", { authorization: "Bearer other" });
    const none = await call(sandbox, "/api/v1/getDsps/all", { authorization: null });
    expect([right.status, wrong.status, none.status]).toEqual([401, 401, 401]);
    expect(right.json).toEqual({ error: `Invalid token ${KEY}` });
    expect(right.text).toContain(JSON.stringify(KEY).slice(1, -1));
    expect(wrong.json).toEqual({ error: "Invalid token other" });
    expect(none.json).toEqual({ error: "Invalid token (none)" });
    expect(sandbox.stats().unauthorized).toBe(3);
  });

  it("answers the right key with a 400 or a failure body repeating it, and runs no route", async () => {
    sandbox.setKnobs({ echoCredential: 400 });
    sandbox.resetStats();
    const payoutsBefore = sandbox.data.payouts().length;
    const refused = await call(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: "150.00" },
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      status: false,
      message: `Invalid request for the token ${KEY}`,
      request: { headers: { authorization: `Bearer ${KEY}` } },
    });
    expect(sandbox.data.payouts()).toHaveLength(payoutsBefore);
    expect(
      (await call(sandbox, "/api/v1/getDsps/all", { authorization: "Bearer x" })).json,
    ).toEqual({ error: "Invalid token" });

    sandbox.setKnobs({ echoCredential: 200 });
    const failure = await call(sandbox, "/api/v1/getDsps/all");
    expect(failure.status).toBe(200);
    expect(failure.json).toEqual({
      status: false,
      message: `The token ${KEY} may not read this resource`,
    });
    expect(sandbox.stats().failureEnvelopes).toBe(1);

    sandbox.setKnobs({ echoCredential: null });
    expect((await call(sandbox, "/api/v1/getDsps/all")).status).toBe(200);
  });
});
