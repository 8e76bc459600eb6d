import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplayResponses } from "../../src/runner/replay/replay-responses.js";
import type { Database } from "../../src/warehouse/schema.js";
import { landResponses, storedResponses } from "../../src/warehouse/responses.js";
import { createTestWarehouse, statementsSent, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;

interface Sync {
  readonly attemptId: string;
  readonly responseIds: readonly string[];
}

/** Syncs as a replay meets them: one response each, a partition of three, one read twice, one pruned. */
let syncs: Sync[];

beforeAll(async () => {
  warehouse = await createTestWarehouse("replay_responses");
  const land = (partition: string, bodies: readonly string[]) =>
    landResponses(
      warehouse.db,
      "radio",
      partition,
      bodies.map((text, part) => ({
        page: "{}",
        part,
        operation: "getRadio",
        params: { partition },
        status: 200,
        text,
      })),
    );
  const single = await Promise.all(
    Array.from({ length: 9 }, (_, i) => land(`p${i}`, [`{"n":${i},"é":"ü"}`])),
  );
  const three = await land("big", ["[1]", "[2]", "[3]"]);
  syncs = [
    ...single.slice(0, 4).map((ids, i) => ({ attemptId: String(i + 1), responseIds: ids })),
    { attemptId: "5", responseIds: three },
    // A later sync of p0 that read the response an earlier one landed.
    { attemptId: "6", responseIds: single[0] ?? [] },
    // A sync one of whose responses was pruned since.
    { attemptId: "7", responseIds: [...(single[4] ?? []), "999999999"] },
    ...single.slice(5).map((ids, i) => ({ attemptId: String(i + 8), responseIds: ids })),
  ];
});

afterAll(() => warehouse.drop());

describe("a replay's stored responses", () => {
  it("gives each sync what reading its responses alone gives, read a chunk at a time", async () => {
    const alone = await Promise.all(
      syncs.map((sync) => storedResponses(warehouse.db, sync.responseIds)),
    );
    let given: unknown[] = [];
    const sent = await statementsSent<Database>(warehouse.url, async (db) => {
      const stored = new ReplayResponses(db, syncs, 4);
      // As a replay asks: several partitions at once, each sync once.
      given = await Promise.all(syncs.map((sync) => stored.of(sync)));
    });
    expect(given).toEqual(alone);
    expect(alone[6]).toHaveLength(1);
    expect(alone[4]?.map((r) => r.text)).toEqual(["[1]", "[2]", "[3]"]);
    // Chunks closed at 4 responses, in order: syncs 1-4, 5-6 (three and one), 7-9 (7 read two,
    // one pruned), 10-11.
    expect(sent.filter((s) => s.includes('from "etl"."responses"'))).toHaveLength(4);
  });

  it("reads a chunk only once its first sync is asked for, and gives a sync's responses once", async () => {
    const sent = await statementsSent<Database>(warehouse.url, async (db) => {
      const stored = new ReplayResponses(db, syncs, 4);
      const [first] = syncs;
      if (!first) throw new Error("no sync");
      await stored.of(first);
      await expect(stored.of(first)).rejects.toThrow("asked twice");
    });
    expect(sent.filter((s) => s.includes('from "etl"."responses"'))).toHaveLength(1);
  });
});
