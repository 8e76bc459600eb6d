// The demo prints its sample query's answer in the order the query it shows selects.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultLines } from "../../sandbox/demo/result-lines.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { PG_HOST_URL } from "../helpers/warehouse.js";

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client(pgConnectionConfig(`${PG_HOST_URL}/postgres`));
  await client.connect();
});

afterAll(() => client.end());

describe("the demo's query answer", () => {
  it("has the query's columns in its order, under their names, a row per line", async () => {
    const result = await client.query(
      `select * from (values ('GBAYE0000001', 'Blue Night', 1200),
                             ('GBAYE0000002', null, 35)) t(isrc, title, streams)`,
    );
    expect(resultLines(result)).toEqual([
      "isrc          title       streams",
      "GBAYE0000001  Blue Night  1200",
      "GBAYE0000002              35",
    ]);
  });
});
