import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHAPE_VARIANTS, type KnobsPatch } from "../../sandbox/index.js";
import { royaltiesStreams } from "../../src/streams/royalties/index.js";
import { selectStreams } from "../../src/streams/registry.js";
import { differences, fingerprints } from "../faults/table-fingerprints.js";
import { type SyncHarness, startSyncHarness, failures } from "../helpers/sync-harness.js";

// A 2xx that declares failure is an upstream error: a day whose re-sync gets only such answers
// keeps every row it had, and its partitions end failed with the upstream's message. And money
// arrives with four decimals, as text and as JSON numbers: stored exactly, read back as text.

const TODAY = "2026-01-06";
const DAY = { from: "2026-01-03", to: "2026-01-03" };
/** The client's attempts of a request: the first and its max_retries (4 in the test upstream). */
const ATTEMPTS = 5;

describe("a re-sync answered only with failure envelopes", () => {
  let harness: SyncHarness;

  beforeAll(async () => {
    harness = await startSyncHarness("failure_bodies", { today: TODAY });
  });
  afterAll(() => harness.close());

  it("keeps every row, moves no checkpoint, and fails each partition with the message", async () => {
    const streams = selectStreams(["trends"]);
    const first = await harness.sync({ ...DAY, streams });
    expect(failures(first)).toEqual([]);
    const before = await fingerprints(harness.warehouse);
    const rows = [...before.entries()].filter(([t]) => t.startsWith("sales.")).map(([, p]) => p);
    expect(rows.every((print) => print.rows > 0)).toBe(true);
    const states = await harness.warehouse.query<{ partition: string; checkpoint: unknown }>(
      "select partition, checkpoint from etl.stream_state order by 1",
    );

    harness.upstream.sandbox.setKnobs({ shapes: { failureEnvelopeRate: 1 } });
    const again = await harness.sync({ ...DAY, streams });

    const partitions = again.reduce((n, s) => n + s.partitions, 0);
    const failed = again.flatMap((s) => s.failed);
    expect(failed).toHaveLength(partitions);
    expect(again.reduce((n, s) => n + s.failureBodies, 0)).toBe(partitions * ATTEMPTS);
    expect(again.reduce((n, s) => n + s.rowsWritten, 0)).toBe(0);
    expect(differences(before, await fingerprints(harness.warehouse))).toEqual([]);

    const after = await harness.warehouse.query<{
      partition: string;
      checkpoint: unknown;
      last_status: string;
      last_error: string;
    }>("select partition, checkpoint, last_status, last_error from etl.stream_state order by 1");
    expect(after.map(({ partition, checkpoint }) => ({ partition, checkpoint }))).toEqual(states);
    expect(after.every((s) => s.last_status === "failed")).toBe(true);
    // The sandbox's envelopes carry one of a few messages; each failure names the one it got.
    expect(after.every((s) => /declares failure: \S/.test(s.last_error))).toBe(true);

    const attempts = await harness.warehouse.query<{ bodies: number; body: string | null }>(
      `select failure_bodies as bodies, failure_body as body from etl.attempts
        where status = 'failed' order by attempt_id`,
    );
    expect(attempts).toHaveLength(partitions);
    for (const attempt of attempts) {
      expect(attempt.bodies).toBe(ATTEMPTS);
      expect(JSON.parse(attempt.body ?? "null")).toEqual(expect.any(Object));
    }
  });
});

describe("money with four decimals", () => {
  let harness: SyncHarness;

  beforeAll(async () => {
    harness = await startSyncHarness("money_decimals", {
      today: TODAY,
      sandbox: { knobs: SHAPE_VARIANTS["money-decimals"] as KnobsPatch },
    });
    const summaries = await harness.sync({ streams: royaltiesStreams });
    expect(failures(summaries)).toEqual([]);
  });
  afterAll(() => harness.close());

  it("is stored exactly as sent, as text and as a JSON number", async () => {
    const served = harness.upstream.sandbox.data.payouts();
    const asText = served.filter((p) => typeof p.amount === "string");
    const asNumber = served.filter((p) => typeof p.amount === "number");
    expect(asText.length).toBeGreaterThan(0);
    expect(asNumber.length).toBeGreaterThan(0);
    expect(served.some((p) => /\.\d{3}[1-9]$/.test(String(p.amount)))).toBe(true);
    const stored = await harness.warehouse.query<{ id: string; amount: string; fees: string }>(
      "select payout_id as id, amount::text as amount, fees::text as fees from royalties.payouts",
    );
    const byId = new Map(stored.map((row) => [row.id, row]));
    for (const payout of served) {
      // A JSON number's text is what JSON.stringify wrote for it: String(number).
      expect(byId.get(payout.id)?.amount, payout.id).toBe(String(payout.amount));
      expect(byId.get(payout.id)?.fees, payout.id).toBe(String(payout.fees));
    }
  });
});
