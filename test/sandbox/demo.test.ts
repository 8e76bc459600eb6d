import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { displayUrl } from "../../src/config/display-url.js";
import { DEMO_SERVICES, databaseComment, demoTestDatabases, runDemo } from "../helpers/demo.js";
import { PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const databases = demoTestDatabases();

afterAll(() => databases.dropAll());

describe("npm run demo without its services", () => {
  it("names exactly the unreachable service and how to start it", async () => {
    const result = await runDemo({
      DATABASE_URL: "postgres://127.0.0.1:5432/postgres",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Not reachable: Redis at redis://127.0.0.1:1.");
    expect(result.stderr).not.toContain("PostgreSQL");
    expect(result.stderr).toContain("docker compose up -d postgres redis");

    const both = await runDemo({
      DATABASE_URL: "postgres://127.0.0.1:1/x",
      REDIS_URL: "redis://127.0.0.1:1",
    });
    expect(both.stderr).toContain(
      "Not reachable: PostgreSQL at postgres://127.0.0.1:1/x and Redis at redis://127.0.0.1:1.",
    );
  });
});

describe("npm run demo over a database it did not make", () => {
  it("refuses it, named by --database or DEMO_DATABASE, and leaves its content as it is", async () => {
    const name = databases.name("refused");
    await withDatabaseClient((c) => c.query(`create database ${pg.escapeIdentifier(name)}`));
    await withDatabaseClient(async (c) => {
      await c.query("create table notes (body text)");
      await c.query("insert into notes values ('mine')");
    }, name);

    const byFlag = await runDemo(DEMO_SERVICES, ["--database", name]);
    const byEnv = await runDemo({ ...DEMO_SERVICES, DEMO_DATABASE: name });
    for (const result of [byFlag, byEnv]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`The database "${name}" on ${displayUrl(PG_HOST_URL)} `);
      expect(result.stderr).toContain("Choose another name");
      expect(result.stderr).toContain(`drop database "${name}";`);
      expect(result.stdout).toBe("");
    }
    const { rows } = await withDatabaseClient(
      (c) => c.query<{ body: string }>("select body from notes"),
      name,
    );
    expect(rows).toEqual([{ body: "mine" }]);
    expect(await databaseComment(name)).toBeNull();
  });

  it("refuses a name it could not check, with its usage", async () => {
    const result = await runDemo(DEMO_SERVICES, ["--database", "no-dashes"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Usage: npm run demo");
  });
});
