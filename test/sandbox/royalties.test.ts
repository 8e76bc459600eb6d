import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Payout, type Sandbox, startSandbox } from "../../sandbox/index.js";
import { call, ok, wire } from "./call.js";

const PAYOUT_FIELDS = [
  "id",
  "user_id",
  "amount",
  "currency",
  "fees",
  "net_amount",
  "wallet",
  "status",
  "method",
  "reference",
  "created_at",
  "processed_at",
  "notes",
  "metadata",
].sort();

describe("sandbox royalties", () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await startSandbox({ today: "2026-02-15" });
  });
  afterEach(() => sandbox.close());

  it("lists payouts wrapped as {status: true, data} in the spec's Payout shape", async () => {
    const body = await ok<{ status: boolean; data: Payout[] }>(sandbox, "/api/v1/payouts");
    expect(body).toEqual({ status: true, data: wire(sandbox.data.payouts()) });
    expect(body.data).toHaveLength(25);
    const statuses = new Set(body.data.map((payout) => payout.status));
    expect(
      [...statuses].every((status) =>
        ["pending", "processing", "paid", "failed", "cancelled"].includes(status),
      ),
    ).toBe(true);
    expect(statuses.has("pending")).toBe(true);
    expect(statuses.has("paid")).toBe(true);
    for (const payout of body.data) {
      expect(Object.keys(payout).sort()).toEqual(PAYOUT_FIELDS);
      expect(typeof payout.id).toBe("string");
      expect(typeof payout.user_id).toBe("string");
      for (const money of [payout.amount, payout.fees, payout.net_amount])
        expect(money).toMatch(/^\d+\.\d{2}$/);
      expect(typeof payout.wallet).toBe("number");
      expect(payout.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
      expect(payout.metadata.idempotency_key).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      if (payout.status === "pending") {
        expect([payout.method, payout.reference, payout.processed_at, payout.notes]).toEqual([
          null,
          null,
          null,
          null,
        ]);
      }
      if (payout.status === "paid") expect(payout.processed_at).not.toBeNull();
    }
  });

  it("lists only pending payouts on /payouts/pending, and bare arrays when asked", async () => {
    const pending = await ok<{ data: Payout[] }>(sandbox, "/api/v1/payouts/pending");
    expect(pending.data).toEqual(wire(sandbox.data.pendingPayouts()));
    expect(pending.data.length).toBeGreaterThan(0);
    expect(pending.data.every((payout) => payout.status === "pending")).toBe(true);
    sandbox.setKnobs({ royaltiesShape: "array" });
    expect(await ok(sandbox, "/api/v1/payouts/pending")).toEqual(
      wire(sandbox.data.pendingPayouts()),
    );
    expect(await ok(sandbox, "/api/v1/incomes")).toEqual(wire(sandbox.data.incomes()));
  });

  it("requests a payout: pending, fees taken, balance lowered", async () => {
    expect(sandbox.data.balance()).toBe("1234.56");
    const key = randomUUID();
    const result = await call(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: 150.5 },
      headers: { "idempotency-key": key },
    });
    expect(result.status).toBe(200);
    const body = result.json as {
      status: boolean;
      payout: Payout;
      withdrawal_type: number;
      message: string;
    };
    expect(body).toMatchObject({ status: true, withdrawal_type: 1, message: "Payout requested" });
    expect(body.payout).toMatchObject({
      amount: "150.50",
      status: "pending",
      method: null,
      reference: null,
      processed_at: null,
      notes: null,
      metadata: { idempotency_key: key },
    });
    const cents = (text: string | number) => Math.round(Number(text) * 100);
    expect(cents(body.payout.net_amount)).toBe(cents(body.payout.amount) - cents(body.payout.fees));
    expect(body.payout.created_at.startsWith("2026-02-15T")).toBe(true);
    expect(sandbox.data.balance()).toBe("1084.06");
    expect(sandbox.data.payouts().at(-1)).toEqual(body.payout);
  });

  it("answers the same payout to a repeated idempotency key and creates nothing", async () => {
    const key = randomUUID();
    const first = await ok<{ payout: Payout }>(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: 200, idempotency_key: key },
    });
    const again = await ok<{ payout: Payout }>(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: "200.00" },
      headers: { "idempotency-key": key },
    });
    expect(again).toEqual(first);
    expect(sandbox.data.payouts()).toHaveLength(26);
    expect(sandbox.data.balance()).toBe("1034.56");
  });

  it.each([
    ["below 100", { amount: 99.99 }],
    ["not a number", { amount: "lots" }],
    ["with a comma decimal separator", { amount: "150,00" }],
    ["with three decimals", { amount: 150.125 }],
    ["missing", {}],
  ])("answers 422 to an amount %s", async (_, body) => {
    const result = await call(sandbox, "/api/v1/payouts", { method: "POST", body });
    expect(result.status).toBe(422);
    expect(result.json).toMatchObject({
      message: expect.any(String),
      errors: { amount: [expect.any(String)] },
    });
    expect(sandbox.data.payouts()).toHaveLength(25);
  });

  it("refuses more than the balance with type 1", async () => {
    const result = await call(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: 1234.57 },
    });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ status: false, message: "Insufficient funds", type: 1 });
    expect(
      (await call(sandbox, "/api/v1/payouts", { method: "POST", body: { amount: 1234.56 } }))
        .status,
    ).toBe(200);
    expect(sandbox.data.balance()).toBe("0.00");
  });

  it("sets the monthly type, after which payout requests are refused with type 0", async () => {
    const monthly = await ok(sandbox, "/api/v1/payouts/set-monthly-type", { method: "POST" });
    expect(monthly).toEqual({ status: true, message: expect.any(String), withdrawal_type: 2 });
    expect(sandbox.data.withdrawalType()).toBe(2);
    const result = await call(sandbox, "/api/v1/payouts", {
      method: "POST",
      body: { amount: 100 },
    });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({
      status: false,
      message: "Withdrawal type cannot be changed to request at this time",
      type: 0,
    });
  });

  it("sets the threshold (at least 100)", async () => {
    const body = await ok(sandbox, "/api/v1/setThreshold", {
      method: "POST",
      body: { amount: 200 },
    });
    expect(body).toEqual({ status: true, message: expect.any(String), threshold: "200.00" });
    expect(sandbox.data.threshold()).toBe("200.00");
    expect(
      (await call(sandbox, "/api/v1/setThreshold", { method: "POST", body: { amount: 50 } }))
        .status,
    ).toBe(422);
  });

  it("lists incomes over the last 12 months", async () => {
    const body = await ok<{ status: boolean; data: Record<string, unknown>[] }>(
      sandbox,
      "/api/v1/incomes",
    );
    expect(body.status).toBe(true);
    expect(body.data).toEqual(wire(sandbox.data.incomes()));
    expect(body.data).toHaveLength(300);
    const periods = new Set(body.data.map((income) => income.period));
    expect(periods.size).toBe(12);
    expect(periods.has("2026-01")).toBe(true);
    expect(periods.has("2025-02")).toBe(true);
    for (const income of body.data) {
      expect(Object.keys(income).sort()).toEqual([
        "amount",
        "created_at",
        "currency",
        "dsp",
        "id",
        "period",
        "source",
        "territory",
      ]);
      expect(income.amount).toMatch(/^\d+\.\d{2}$/);
    }
  });

  it("serves the invoice of the last closed month, its total the sum of its lines", async () => {
    const invoice = await ok<{
      total: string;
      period: string;
      lines: { amount: string; quantity: number }[];
    }>(sandbox, "/api/v1/invoice");
    expect(invoice).toEqual(wire(sandbox.data.invoice()));
    expect(invoice.period).toBe("2026-01");
    const cents = (text: string | number) => Math.round(Number(text) * 100);
    expect(invoice.lines.reduce((sum, line) => sum + cents(line.amount), 0)).toBe(
      cents(invoice.total),
    );
    const incomes = sandbox.data.incomes().filter((income) => income.period === "2026-01");
    expect(invoice.lines.reduce((sum, line) => sum + line.quantity, 0)).toBe(incomes.length);
  });

  it("shows status changes and added payouts made through the dataset", async () => {
    const pending = sandbox.data.pendingPayouts()[0];
    if (!pending) throw new Error("no pending payout");
    const paid = sandbox.data.setPayoutStatus(pending.id, "paid");
    expect(paid).toMatchObject({
      status: "paid",
      method: expect.any(String),
      reference: expect.any(String),
      processed_at: expect.any(String),
    });
    const added = sandbox.data.addPayout({ amount: "321.00", status: "failed" });
    const listed = await ok<{ data: Payout[] }>(sandbox, "/api/v1/payouts");
    expect(listed.data.find((payout) => payout.id === pending.id)).toEqual(paid);
    expect(listed.data.find((payout) => payout.id === added.id)).toMatchObject({
      amount: "321.00",
      status: "failed",
      notes: expect.any(String),
    });
    const stillPending = await ok<{ data: Payout[] }>(sandbox, "/api/v1/payouts/pending");
    expect(stillPending.data.map((payout) => payout.id)).not.toContain(pending.id);
    expect(() => sandbox.data.setPayoutStatus("no-such-id", "paid")).toThrow();
  });

  it("drops the answer to the first payout request only, after making the payout", async () => {
    sandbox.setKnobs({ dropFirstPayoutResponse: true });
    const key = randomUUID();
    const request = {
      method: "POST" as const,
      body: { amount: 100 },
      headers: { "idempotency-key": key },
    };
    await expect(call(sandbox, "/api/v1/payouts", request)).rejects.toThrow();
    expect(sandbox.data.payouts()).toHaveLength(26);
    const retried = await ok<{ payout: Payout }>(sandbox, "/api/v1/payouts", request);
    expect(retried.payout.metadata.idempotency_key).toBe(key);
    expect(sandbox.data.payouts()).toHaveLength(26);
    expect(sandbox.data.balance()).toBe("1134.56");
  });
});
