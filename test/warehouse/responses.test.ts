import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import type { Database } from "../../src/warehouse/schema.js";
import { landResponses, pruneResponses } from "../../src/warehouse/responses.js";
import { finishAttempt, startAttempt } from "../../src/warehouse/attempts.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("responses");
});

afterAll(() => warehouse.drop());

const answer = (text: string, page = "null") => ({
  page,
  part: 0,
  operation: "test.op",
  params: { day: "2026-01-01" },
  status: 200,
  text,
});

/** A successful sync of a partition that read these responses. */
async function sync(partition: string, texts: string[]): Promise<string[]> {
  const { attemptId } = await startAttempt(warehouse.db, "s", partition);
  const ids = await landResponses(
    warehouse.db,
    "s",
    partition,
    texts.map((t, i) => answer(t, String(i))),
  );
  await finishAttempt(warehouse.db, attemptId, {
    status: "succeeded",
    requests: texts.length,
    rowsWritten: 0,
    responseIds: ids,
  });
  return ids;
}

async function stored(): Promise<string[]> {
  const rows = await warehouse.query<{ body: string }>(
    "select body from etl.responses order by response_id",
  );
  return rows.map((r) => r.body);
}

describe("landed responses", () => {
  it("store a body once per page of a partition, and give the stored id back for an equal one", async () => {
    const [first] = await landResponses(warehouse.db, "s", "p", [answer('{"a":1}')]);
    const [again, other] = await landResponses(warehouse.db, "s", "p", [
      answer('{"a":1}'),
      answer('{"a":2}', "1"),
    ]);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    // The same text on another page or partition is another response.
    const [elsewhere] = await landResponses(warehouse.db, "s", "q", [answer('{"a":1}')]);
    expect(elsewhere).not.toBe(first);
    expect(await stored()).toEqual(['{"a":1}', '{"a":2}', '{"a":1}']);
    await warehouse.query("delete from etl.responses");
  });

  it("of a partition that ran before, send Postgres only the bodies it does not hold", async () => {
    const [one, two] = await landResponses(warehouse.db, "s", "r", [
      answer("body-one", "0"),
      answer("body-two", "1"),
    ]);
    const sent: unknown[] = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ ...pgConnectionConfig(warehouse.url), max: 1 }),
      }),
      log: (event) => void sent.push(...event.query.parameters),
    });
    try {
      const texts = ["body-one", "body-two", "body-three"];
      const ids = await landResponses(
        db,
        "s",
        "r",
        texts.map((t, i) => answer(t, String(i))),
        false,
      );
      expect(ids.slice(0, 2)).toEqual([one, two]);
      expect(ids[2]).not.toBeUndefined();
      expect(texts.filter((text) => sent.includes(text))).toEqual(["body-three"]);
    } finally {
      await db.destroy();
    }
    expect(await stored()).toEqual(["body-one", "body-two", "body-three"]);
    await warehouse.query("delete from etl.responses");
  });

  it("are pruned by age, except those the latest sync of each partition read", async () => {
    await sync("x", ["old-x-1"]);
    await sync("x", ["latest-x"]);
    await sync("y", ["only-y"]);
    await warehouse.query("update etl.responses set fetched_at = now() - interval '40 days'");
    await sync("z", ["recent-z-1"]);
    await sync("z", ["recent-z-2"]);
    expect(await pruneResponses(warehouse.db, 30)).toBe(1);
    expect(await stored()).toEqual(["latest-x", "only-y", "recent-z-1", "recent-z-2"]);
    expect(await pruneResponses(warehouse.db, 30)).toBe(0);
  });
});
