import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { incomeMonth } from "../../src/streams/royalties/incomes.js";
import type { Payout } from "../../sandbox/index.js";
import { royaltiesStreams } from "../../src/streams/royalties/index.js";
import { keyIncomes } from "../../src/streams/royalties/incomes.js";
import { invoiceKey } from "../../src/streams/royalties/invoices.js";
import { payouts, pendingPayouts } from "../../src/streams/royalties/payouts.js";
import { runSync, type StreamSummary } from "../../src/runner/run-sync.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

const TODAY = "2026-01-31";
const TABLES = {
  payouts: "payout_id",
  payout_status_history: "payout_id || '@' || observed_at::text",
  incomes: "income_key",
  invoices: "invoice_key || '@' || snapshot_date::text",
} as const;
let harness: SyncHarness;
let failedPayout: Payout;

const data = () => harness.upstream.sandbox.data;
const query = <T extends Record<string, unknown>>(text: string, values?: unknown[]) =>
  harness.warehouse.query<T>(text, values);
const sync = async () => {
  const summaries = await harness.sync({ streams: royaltiesStreams });
  expect(failures(summaries)).toEqual([]);
  return summaries;
};
const written = (summaries: readonly StreamSummary[]) =>
  summaries.reduce((sum, s) => sum + s.rowsWritten, 0);

/** Every stored row's version (xmin) by table and key: unchanged when nothing was written. */
async function rowVersions(): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    const rows = await query<{ key: string; xmin: string }>(
      `select ${key} as key, xmin::text from royalties.${table}`,
    );
    for (const row of rows) versions[`${table}:${row.key}`] = row.xmin;
  }
  return versions;
}

function changedKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => before[key] !== after[key]).sort();
}

const expectedPayout = (p: Payout) => ({
  payout_id: p.id,
  user_id: p.user_id,
  amount: p.amount,
  currency: p.currency,
  fees: p.fees,
  net_amount: p.net_amount,
  wallet: String(p.wallet),
  status: p.status,
  method: p.method,
  reference: p.reference,
  created_at: new Date(p.created_at),
  processed_at: p.processed_at === null ? null : new Date(p.processed_at),
  notes: p.notes,
  idempotency_key: p.metadata.idempotency_key,
  raw: p,
});

const PAYOUT_COLUMNS = `payout_id, user_id, amount, currency, fees, net_amount, wallet, status,
  method, reference, created_at, processed_at, notes, idempotency_key, raw`;

beforeAll(async () => {
  harness = await startSyncHarness("royalties", { today: TODAY });
  // A payout handled elsewhere: its failure note holds quotes and a semicolon.
  const added = data().addPayout({ amount: "150.00", createdAt: "2026-01-20T10:00:00Z" });
  failedPayout = data().setPayoutStatus(added.id, "failed");
  await sync();
});

afterAll(() => harness.close());

describe("royalties streams", () => {
  it("stores every payout with its money exactly as sent", async () => {
    const rows = await query(`select ${PAYOUT_COLUMNS} from royalties.payouts order by payout_id`);
    const expected = data()
      .payouts()
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(expected.length).toBe(26);
    expect(rows).toEqual(expected.map(expectedPayout));
    // Pending and the other statuses are all there.
    expect(new Set(rows.map((r) => r.status))).toEqual(
      new Set(["paid", "cancelled", "processing", "pending", "failed"]),
    );
  });

  it("round-trips hostile text byte for byte", async () => {
    const [row] = await query<{ notes: string; bytes: string }>(
      "select notes, encode(convert_to(notes, 'UTF8'), 'hex') as bytes from royalties.payouts where payout_id = $1",
      [failedPayout.id],
    );
    expect(failedPayout.notes).toMatch(/["';]/);
    expect(row?.notes).toBe(failedPayout.notes);
    expect(row?.bytes).toBe(Buffer.from(failedPayout.notes ?? "", "utf8").toString("hex"));
    const hostileDsps = data()
      .incomes()
      .filter((i) => /['";]/.test(i.dsp));
    expect(hostileDsps.length).toBeGreaterThan(0);
    for (const income of hostileDsps) {
      const rows = await query(
        "select 1 from royalties.incomes where income_key = $1 and dsp = $2",
        [String(income.id), income.dsp],
      );
      expect(rows).toHaveLength(1);
    }
  });

  it("records one history row per payout when first seen", async () => {
    const rows = await query<{ payout_id: string; status: string; n: number }>(
      `select payout_id, min(status) as status, count(*)::int as n
       from royalties.payout_status_history group by payout_id order by payout_id`,
    );
    expect(rows).toEqual(
      data()
        .payouts()
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((p) => ({ payout_id: p.id, status: p.status, n: 1 })),
    );
    const [seen] = await query<{ bad: number }>(
      `select count(*)::int as bad from royalties.payouts p
       where p.first_seen_at <> p.last_seen_at or p.last_seen_on <> $1::date
          or not exists (select 1 from royalties.payout_status_history h
                         where h.payout_id = p.payout_id and h.observed_at = p.first_seen_at)`,
      [TODAY],
    );
    expect(seen?.bad).toBe(0);
  });

  it("stores every income by its key", async () => {
    const rows = await query(
      `select income_key, period, period_start::text, source, dsp, territory, amount,
              currency, created_at, raw
       from royalties.incomes order by income_key::int`,
    );
    const incomes = data().incomes();
    expect(incomes.length).toBe(300);
    expect(rows).toEqual(
      incomes.map((i) => ({
        income_key: String(i.id),
        period: i.period,
        period_start: `${i.period}-01`,
        source: i.source,
        dsp: i.dsp,
        territory: i.territory,
        amount: i.amount,
        currency: i.currency,
        created_at: new Date(i.created_at),
        raw: i,
      })),
    );
  });

  it("keeps the invoice as a snapshot of the run date", async () => {
    const invoice = data().invoice();
    const rows = await query(
      `select invoice_key, snapshot_date::text, period, issued_at, currency, total, lines, raw
       from royalties.invoices`,
    );
    expect(rows).toEqual([
      {
        invoice_key: invoice.invoice_number,
        snapshot_date: TODAY,
        period: invoice.period,
        issued_at: new Date(invoice.issued_at),
        currency: invoice.currency,
        total: invoice.total,
        lines: invoice.lines,
        raw: invoice,
      },
    ]);
    const [sum] = await query<{ total: string }>(
      "select sum((l->>'amount')::numeric)::text as total from royalties.invoices, jsonb_array_elements(lines) l",
    );
    expect(sum?.total).toBe(invoice.total);
  });

  it("writes nothing when nothing changed upstream", async () => {
    const before = await rowVersions();
    expect(Object.keys(before).length).toBeGreaterThan(300);
    const summaries = await sync();
    expect(written(summaries)).toBe(0);
    expect(changedKeys(before, await rowVersions())).toEqual([]);
  });

  it("updates exactly a payout whose status changed, and appends one history row", async () => {
    const [pending] = data().pendingPayouts();
    if (!pending) throw new Error("the sandbox has no pending payout");
    const [stored] = await query<{ first_seen_at: Date; synced_at: Date }>(
      "select first_seen_at, synced_at from royalties.payouts where payout_id = $1",
      [pending.id],
    );
    const before = await rowVersions();
    const paid = data().setPayoutStatus(pending.id, "paid");
    await sync();

    const after = await rowVersions();
    const changed = changedKeys(before, after);
    expect(changed.filter((k) => k.startsWith("payouts:"))).toEqual([`payouts:${pending.id}`]);
    const newHistory = changed.filter((k) => k.startsWith("payout_status_history:"));
    expect(newHistory).toHaveLength(1);
    expect(newHistory[0]?.startsWith(`payout_status_history:${pending.id}@`)).toBe(true);
    expect(changed).toHaveLength(2);

    const [row] = await query(
      `select ${PAYOUT_COLUMNS} from royalties.payouts where payout_id = $1`,
      [pending.id],
    );
    expect(row).toEqual(expectedPayout(paid));
    expect(paid.reference).not.toBeNull();
    const history = await query<{ status: string }>(
      "select status from royalties.payout_status_history where payout_id = $1 order by observed_at",
      [pending.id],
    );
    expect(history.map((h) => h.status)).toEqual(["pending", "paid"]);
    const [now] = await query<{ first_seen_at: Date; synced_at: Date }>(
      "select first_seen_at, synced_at from royalties.payouts where payout_id = $1",
      [pending.id],
    );
    expect(now?.first_seen_at).toEqual(stored?.first_seen_at);
    expect(now?.synced_at.getTime()).toBeGreaterThan(stored?.synced_at.getTime() ?? Infinity);

    // And once more without a change: nothing at all.
    const settled = await rowVersions();
    expect(written(await sync())).toBe(0);
    expect(changedKeys(settled, await rowVersions())).toEqual([]);
  });

  it("refreshes last_seen once per day, without touching content or history", async () => {
    const snapshot = () =>
      query<Record<string, string>>(
        `select payout_id, first_seen_at::text, last_seen_on::text, last_seen_at::text,
                synced_at::text
         from royalties.payouts order by payout_id`,
      );
    const before = await snapshot();
    const historyBefore = await query("select * from royalties.payout_status_history");
    const nextDay = {
      db: harness.warehouse.db,
      api: harness.upstream.context.api,
      logger: harness.upstream.context.logger,
      config: harness.config,
      today: "2026-02-01",
    };
    const streams = [payouts, pendingPayouts];

    const summaries = await runSync(nextDay, streams, {});
    expect(failures(summaries)).toEqual([]);
    // Each payout is refreshed once that day, by whichever of the two lists (which run
    // together) reads it first.
    expect(summaries.reduce((n, s) => n + s.rowsWritten, 0)).toBe(before.length);
    const after = await snapshot();
    expect(after.map((r) => r.last_seen_on)).toEqual(before.map(() => "2026-02-01"));
    for (const [i, row] of after.entries()) {
      const old = before[i] as Record<string, string>;
      expect(row.first_seen_at).toBe(old.first_seen_at);
      expect(row.synced_at).toBe(old.synced_at);
      expect(new Date(row.last_seen_at as string).getTime()).toBeGreaterThan(
        new Date(old.last_seen_at as string).getTime(),
      );
    }
    expect(await query("select * from royalties.payout_status_history")).toEqual(historyBefore);

    // A second sync the same day writes zero rows.
    const versions = await rowVersions();
    expect(written(await runSync(nextDay, streams, {}))).toBe(0);
    expect(changedKeys(versions, await rowVersions())).toEqual([]);
  });

  it("stores drifted records, keeping what came in raw", async () => {
    const payoutCount = data().payouts().length;
    harness.upstream.sandbox.setKnobs({
      drift: { extraFields: true, numbersAsStrings: true, nulls: true, renamedEnum: true },
    });
    try {
      await sync();
    } finally {
      harness.upstream.sandbox.setKnobs({
        drift: { extraFields: false, numbersAsStrings: false, nulls: false, renamedEnum: false },
      });
    }
    const counts = await query<{ table: string; n: number; extra: number }>(
      `select 'payouts' as table, count(*)::int as n,
              count(*) filter (where raw->'x_flags' = '{"beta": true}'::jsonb)::int as extra
       from royalties.payouts
       union all
       select 'incomes', count(*)::int, count(*) filter (where raw ? 'x_unexpected')::int
       from royalties.incomes
       union all
       select 'invoices', count(*)::int, count(*) filter (where raw ? 'x_unexpected')::int
       from royalties.invoices`,
    );
    // Ids sent as text are the same keys: no duplicates appeared.
    expect(counts).toEqual([
      { table: "payouts", n: payoutCount, extra: payoutCount },
      { table: "incomes", n: 300, extra: 300 },
      { table: "invoices", n: 1, extra: 1 },
    ]);
    const [payoutTypes] = await query(
      `select count(*) filter (where jsonb_typeof(raw->'wallet') = 'string')::int as text_wallets,
              count(*) filter (where wallet is null)::int as null_wallets,
              count(*) filter (where status = 'completed')::int as completed,
              count(*) filter (where status = 'paid')::int as paid
       from royalties.payouts`,
    );
    expect(payoutTypes).toEqual({
      text_wallets: payoutCount,
      null_wallets: 0,
      completed: data()
        .payouts()
        .filter((p) => p.status === "paid").length,
      paid: 0,
    });
    // The renamed status is a status change like any other: history has it.
    const [history] = await query<{ n: number }>(
      "select count(*)::int as n from royalties.payout_status_history where status = 'completed'",
    );
    expect(history?.n).toBe(
      data()
        .payouts()
        .filter((p) => p.status === "paid").length,
    );
    // Optional fields sent as null are null in typed columns, and raw keeps the null.
    const [nulls] = await query<{ nulled: number; typed: number }>(
      `select count(*) filter (where raw->'source' = 'null'::jsonb)::int as nulled,
              count(*) filter (where raw->'source' = 'null'::jsonb and source is not null)::int as typed
       from royalties.incomes`,
    );
    expect(nulls?.nulled).toBeGreaterThan(0);
    expect(nulls?.typed).toBe(0);
  });
});

describe("keys of records without an upstream id", () => {
  const income = {
    period: "2025-12",
    amount: "1.00",
    nested: { b: 1, a: [2, { d: null, c: "x" }] },
  };
  const reordered = {
    nested: { a: [2, { c: "x", d: null }], b: 1 },
    amount: "1.00",
    period: "2025-12",
  };
  const canonical =
    '{"amount":"1.00","nested":{"a":[2,{"c":"x","d":null}],"b":1},"period":"2025-12"}';
  const sha256 = createHash("sha256").update(canonical).digest("hex");

  it("use the upstream id as text when there is one", () => {
    expect(
      keyIncomes([
        { id: 7, amount: "1.00" },
        { id: "8", amount: "2.00" },
      ]).map((k) => k.key),
    ).toEqual(["7", "8"]);
    expect(invoiceKey({ invoice_number: "INV-1", total: "3.00" })).toBe("INV-1");
  });

  it("hash the record's canonical JSON otherwise, whatever the key order", () => {
    const key = (record: Record<string, unknown>) => keyIncomes([record])[0]?.key;
    expect(key(income)).toBe(sha256);
    expect(key(reordered)).toBe(sha256);
    expect(invoiceKey(reordered)).toBe(sha256);
    expect(key({ ...income, amount: "1.01" })).not.toBe(sha256);
  });

  it("keep two equal incomes without an id apart, by how many came before", () => {
    expect(keyIncomes([income, reordered]).map((k) => k.key)).toEqual([sha256, `${sha256}:1`]);
  });
});

describe("an income's month", () => {
  it.each([
    ["period, as a month", { id: 1, period: "2026-03", created_at: "2026-04-02" }, "2026-03-01"],
    ["period, as a day of it", { period: "2026-03-15" }, "2026-03-01"],
    [
      "the first field holding a month",
      { id: 1, booked: "2026-04-02", month: "2026-03" },
      "2026-03-01",
    ],
    [
      "a period field holding a day",
      { created_at: "2026-04-02", period_start: "2026-03-01" },
      "2026-03-01",
    ],
    [
      "none: a day of something else",
      { id: 1, created_at: "2026-04-02T10:00:00Z", paid: "2026-04-02" },
      null,
    ],
  ])("is found by value: %s", (_what, income, month) => {
    expect(incomeMonth(income)).toBe(month);
  });
});
