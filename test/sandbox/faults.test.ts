import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { call } from "./call.js";

const PATH = "/api/v1/getDsps/all";

describe("sandbox faults", () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  async function withFault(
    kind: "html503" | "error500" | "reset" | "truncated" | "slow",
    slowMs = 30_000,
  ) {
    sandbox = await startSandbox({
      today: "2026-02-01",
      knobs: { faultRate: 1, faults: [kind], slowMs },
    });
  }

  it("html503: 503 with an HTML page", async () => {
    await withFault("html503");
    const result = await call(sandbox, PATH);
    expect(result.status).toBe(503);
    expect(result.headers["content-type"]).toMatch(/^text\/html/);
    expect(result.text).toContain("<html>");
    expect(result.json).toBeUndefined();
    expect(sandbox.stats().faults.html503).toBe(1);
  });

  it("error500: 500 with a JSON error", async () => {
    await withFault("error500");
    const result = await call(sandbox, PATH);
    expect(result.status).toBe(500);
    expect(result.json).toEqual({ error: "Internal Server Error" });
    expect(sandbox.stats().faults.error500).toBe(1);
  });

  it("reset: the socket is destroyed without an answer", async () => {
    await withFault("reset");
    await expect(call(sandbox, PATH)).rejects.toThrow();
    const stats = sandbox.stats();
    expect(stats.faults.reset).toBe(1);
    expect(stats.requests).toBe(1);
    expect(stats.byStatus).toEqual({});
  });

  it("truncated: 200 with the first half of the real body", async () => {
    await withFault("truncated");
    const result = await call(sandbox, PATH);
    sandbox.setKnobs({ faultRate: 0 });
    const whole = await call(sandbox, PATH);
    expect(result.status).toBe(200);
    expect(result.json).toBeUndefined();
    expect(result.text.length).toBe(Math.floor(whole.text.length / 2));
    expect(whole.text.startsWith(result.text)).toBe(true);
    expect(sandbox.stats().faults.truncated).toBe(1);
  });

  it("chunkedBodies: the same body in 16 KiB chunks, with no Content-Length", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", size: { incomes: 1_000 } });
    const whole = await call(sandbox, "/api/v1/incomes");
    sandbox.setKnobs({ chunkedBodies: true });
    // As they arrive: the network may join or split what the sandbox wrote.
    const chunks: number[] = [];
    const response = await request(`${sandbox.url}/api/v1/incomes`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    for await (const chunk of response.body) chunks.push((chunk as Buffer).length);
    expect(whole.headers["content-length"]).toBe(String(Buffer.byteLength(whole.text)));
    expect(response.headers["content-length"]).toBeUndefined();
    expect(response.headers["transfer-encoding"]).toBe("chunked");
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(whole.text));
    expect((await call(sandbox, "/api/v1/incomes")).text).toBe(whole.text);
  });

  it("slow: answers normally after slowMs", async () => {
    await withFault("slow", 300);
    const started = Date.now();
    const result = await call(sandbox, PATH);
    // A delay the sandbox adds: at least it on any machine, a slower one only adds to it.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(result.status).toBe(200);
    expect(result.json).toEqual(JSON.parse(JSON.stringify(sandbox.data.dsps())));
    expect(sandbox.stats().faults.slow).toBe(1);
  });

  it("close() is prompt with a slow response pending", async () => {
    await withFault("slow", 30_000);
    const pending = call(sandbox, PATH);
    const settled = pending.then(
      () => "answered",
      () => "failed",
    );
    while (sandbox.stats().requests === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await sandbox.close();
    // Closing did not wait for the slow answer: had it, the request would have been answered.
    expect(await settled).toBe("failed");
  });

  it("draws faults at the configured rate from the configured kinds", async () => {
    sandbox = await startSandbox({
      today: "2026-02-01",
      knobs: { faultRate: 0.5, faults: ["error500", "html503"] },
    });
    const results = await Promise.all(Array.from({ length: 200 }, () => call(sandbox, PATH)));
    const statuses = results.map((result) => result.status);
    const faulted = statuses.filter((status) => status !== 200).length;
    expect(faulted).toBeGreaterThan(60);
    expect(faulted).toBeLessThan(140);
    expect(new Set(statuses)).toEqual(new Set([200, 500, 503]));
    const { faults } = sandbox.stats();
    expect(faults.error500 + faults.html503).toBe(faulted);
    expect(faults.reset + faults.truncated + faults.slow).toBe(0);
  });

  it("down: every socket is destroyed; requests are still counted; admin still answers", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", knobs: { down: true } });
    await expect(call(sandbox, PATH)).rejects.toThrow();
    await expect(call(sandbox, PATH, { authorization: null })).rejects.toThrow();
    expect(sandbox.stats().requests).toBe(2);
    const admin = await call(sandbox, "/__sandbox/knobs", {
      method: "POST",
      body: { down: false },
    });
    expect(admin.status).toBe(200);
    expect((await call(sandbox, PATH)).status).toBe(200);
  });

  it("adds latencyMs to every response", async () => {
    sandbox = await startSandbox({ today: "2026-02-01", knobs: { latencyMs: 200 } });
    for (const authorization of [undefined, null]) {
      const started = Date.now();
      await call(sandbox, PATH, { authorization });
      // A delay the sandbox adds: at least it on any machine, a slower one only adds to it.
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    }
  });
});
