import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttempt } from "../../src/warehouse/attempts.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("attempts");
});

afterAll(() => warehouse.drop());

const SYNC = { kind: "sync", extractedOn: "2026-01-01" } as const;

async function statuses(partition: string): Promise<string[]> {
  const rows = await warehouse.query<{ status: string }>(
    "select status from etl.attempts where stream = 's' and partition = $1 order by started_at, attempt_id",
    [partition],
  );
  return rows.map((row) => row.status);
}

describe("opening a partition's attempt", () => {
  it("says whether an earlier attempt of the partition exists", async () => {
    expect((await startAttempt(warehouse.db, "s", "first", SYNC)).firstAttempt).toBe(true);
    expect((await startAttempt(warehouse.db, "s", "first", SYNC)).firstAttempt).toBe(false);
  });

  it("leaves attempts still marked running alone unless told the caller holds the lock", async () => {
    await startAttempt(warehouse.db, "s", "held", SYNC);
    const opened = await startAttempt(warehouse.db, "s", "held", SYNC);
    expect(opened.abandoned).toBe(0);
    expect(await statuses("held")).toEqual(["running", "running"]);
  });

  it("closes the partition's attempts still marked running as abandoned, in the same statement", async () => {
    await startAttempt(warehouse.db, "s", "crashed", SYNC);
    await startAttempt(warehouse.db, "s", "crashed", SYNC);
    await startAttempt(warehouse.db, "s", "other", SYNC);
    const opened = await startAttempt(warehouse.db, "s", "crashed", {
      ...SYNC,
      closeAbandoned: true,
    });
    expect(opened).toMatchObject({ abandoned: 2, firstAttempt: false });
    expect(await statuses("crashed")).toEqual(["abandoned", "abandoned", "running"]);
    // Another partition's attempt is not this lock holder's to close.
    expect(await statuses("other")).toEqual(["running"]);
    const [closed] = await warehouse.query<{ closed: string }>(
      "select count(*)::text as closed from etl.attempts where partition = 'crashed' and status = 'abandoned' and finished_at is not null and error is not null",
    );
    expect(closed?.closed).toBe("2");
  });
});
