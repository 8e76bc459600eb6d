// The demo drops and re-creates only a database it made (its mark) or one holding nothing.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEMO_MARK,
  DemoDatabaseRefused,
  freshDemoDatabase,
} from "../../sandbox/demo/demo-database.js";
import { databaseComment, demoTestDatabases } from "../helpers/demo.js";
import { PG_HOST_URL, withDatabaseClient } from "../helpers/warehouse.js";

const databases = demoTestDatabases();

async function createDatabase(name: string): Promise<void> {
  await withDatabaseClient((c) => c.query(`create database ${pg.escapeIdentifier(name)}`));
}

/** The names of the tables in `name`'s public schema. */
async function tables(name: string): Promise<string[]> {
  const { rows } = await withDatabaseClient(
    (c) =>
      c.query<{ name: string }>(
        "select tablename as name from pg_tables where schemaname = 'public' order by 1",
      ),
    name,
  );
  return rows.map((row) => row.name);
}

afterAll(() => databases.dropAll());

describe("the demo's database", () => {
  it("is created and marked as the demo's when missing", async () => {
    const name = databases.name("missing");
    const url = await freshDemoDatabase(`${PG_HOST_URL}/postgres`, name);
    expect(new URL(url).pathname).toBe(`/${name}`);
    expect(await databaseComment(name)).toBe(DEMO_MARK);
    expect(await tables(name)).toEqual([]);
  });

  it("is dropped and made empty again when it carries the demo's mark", async () => {
    const name = databases.name("marked");
    await freshDemoDatabase(`${PG_HOST_URL}/postgres`, name);
    await withDatabaseClient((c) => c.query("create table left_over (id int)"), name);
    await freshDemoDatabase(`${PG_HOST_URL}/postgres`, name);
    expect(await tables(name)).toEqual([]);
    expect(await databaseComment(name)).toBe(DEMO_MARK);
  });

  it("adopts an unmarked database that holds nothing: dropping it loses nothing", async () => {
    const name = databases.name("empty");
    await createDatabase(name);
    await freshDemoDatabase(`${PG_HOST_URL}/postgres`, name);
    expect(await databaseComment(name)).toBe(DEMO_MARK);
  });

  it("refuses an unmarked database holding a table, and leaves its rows as they are", async () => {
    const name = databases.name("foreign");
    await createDatabase(name);
    await withDatabaseClient(async (c) => {
      await c.query("create table keep (id int)");
      await c.query("insert into keep values (1), (2)");
    }, name);
    const refused = await freshDemoDatabase(`${PG_HOST_URL}/postgres`, name).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DemoDatabaseRefused);
    expect((refused as DemoDatabaseRefused).database).toBe(name);
    const { rows } = await withDatabaseClient(
      (c) => c.query<{ id: number }>("select id from keep order by id"),
      name,
    );
    expect(rows.map((row) => row.id)).toEqual([1, 2]);
    expect(await databaseComment(name)).toBeNull();
  });

  it("refuses an empty database whose comment is not the demo's, and keeps the comment", async () => {
    const name = databases.name("commented");
    await createDatabase(name);
    await withDatabaseClient((c) =>
      c.query(`comment on database ${pg.escapeIdentifier(name)} is 'the team''s scratch space'`),
    );
    await expect(freshDemoDatabase(`${PG_HOST_URL}/postgres`, name)).rejects.toBeInstanceOf(
      DemoDatabaseRefused,
    );
    expect(await databaseComment(name)).toBe("the team's scratch space");
  });

  it.each([
    ["a schema of its own", "create schema mine"],
    ["a function in public", "create function public.f() returns int language sql as 'select 1'"],
    ["an extension", "create extension if not exists pgcrypto"],
  ])("refuses an unmarked database holding %s", async (_what, statement) => {
    const name = databases.name("holding");
    await createDatabase(name);
    await withDatabaseClient((c) => c.query(statement), name);
    await expect(freshDemoDatabase(`${PG_HOST_URL}/postgres`, name)).rejects.toBeInstanceOf(
      DemoDatabaseRefused,
    );
  });
});
