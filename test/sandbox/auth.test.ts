import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
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
