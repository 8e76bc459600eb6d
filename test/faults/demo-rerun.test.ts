// `npm run demo` twice over the same name: the first run makes and marks its database, the second
// drops and re-creates it. Two whole demos are two months' backfills: minutes of both cores,
// kept out of the main suite so that it stays short, in this suite that runs a file at a time.
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_MARK } from "../../sandbox/demo/demo-database.js";
import { DEMO_SERVICES, databaseComment, demoTestDatabases, runDemo } from "../helpers/demo.js";
import { withDatabaseClient } from "../helpers/warehouse.js";

const databases = demoTestDatabases();

afterAll(() => databases.dropAll());

/** The demo database's runs, failed runs, and whether a table of the test's is still there. */
async function contents(name: string) {
  const { rows } = await withDatabaseClient(
    (c) =>
      c.query<{ left_over: boolean; runs: string; failed: string }>(
        `select to_regclass('public.left_over') is not null as left_over,
                (select count(*) from etl.attempts)::text as runs,
                (select count(*) from etl.attempts where status <> 'succeeded')::text as failed`,
      ),
    name,
  );
  return rows[0];
}

describe("npm run demo over the database it made", () => {
  it("runs again: the second run drops and re-creates it, exit 0 both times", async () => {
    const name = databases.name("rerun");
    const first = await runDemo({ ...DEMO_SERVICES, DEMO_DATABASE: name });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(await databaseComment(name)).toBe(DEMO_MARK);
    const firstContents = await contents(name);
    expect(Number(firstContents?.runs)).toBeGreaterThan(0);
    expect(firstContents?.failed).toBe("0");

    await withDatabaseClient((c) => c.query("create table left_over (id int)"), name);
    const second = await runDemo(DEMO_SERVICES, ["--database", name]);
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(await databaseComment(name)).toBe(DEMO_MARK);
    // The same runs as the first, not twice as many: the database was made anew.
    expect(await contents(name)).toEqual({ ...firstContents, left_over: false });
  });
});
