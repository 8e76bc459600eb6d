import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { etlIn } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

/** The key Kysely 0.28's Postgres migrator locks. */
const KYSELY_LOCK_KEY = "3853314791062309107";
const dir = makeTempDir("cli-migrate");
let warehouse: TestWarehouse;

const etl = etlIn(dir.path, () => ({ DATABASE_URL: warehouse.url, LOG_LEVEL: "silent" }));

beforeAll(async () => {
  warehouse = await createTestWarehouse("cli_migrate");
  dir.write("etl.config.json", { start_date: "2026-01-01" });
});

afterAll(async () => {
  await warehouse?.drop();
  dir.remove();
});

describe("etl migrate --lock-timeout", () => {
  it("gives up on a held migration lock after the bound, printing who holds it, and migrates nothing", async () => {
    // The newest migration, made pending again: migrate must take the lock to apply it.
    const [newest] = await warehouse.query<{ name: string; timestamp: string }>(
      "delete from etl.kysely_migration where name = (select max(name) from etl.kysely_migration) returning name, timestamp",
    );
    const holder = new pg.Client({
      ...pgConnectionConfig(warehouse.url),
      application_name: "stuck-deploy",
    });
    await holder.connect();
    try {
      const [{ pid, user, client } = { pid: -1, user: "", client: null }] = (
        await holder.query<{ pid: number; user: string; client: string | null }>(
          `select pg_backend_pid() as pid, current_user as user,
                  host(inet_client_addr()) as client, pg_advisory_lock($1::bigint)`,
          [KYSELY_LOCK_KEY],
        )
      ).rows;
      const result = await etl(["migrate", "--lock-timeout", "1"]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain(
        `waiting up to 1 s for the migration lock, held by pid ${pid} (user ${user}, application "stuck-deploy"${client ? `, from ${client}` : ""}, idle since `,
      );
      expect(result.stderr).toContain(
        `error: gave up after 1 s waiting for the migration lock, held by pid ${pid} (user ${user}, application "stuck-deploy"`,
      );
      expect(result.stderr).toContain(
        `nothing was migrated: run again once it lets go, or end it: select pg_terminate_backend(${pid})`,
      );
      const pending = await warehouse.query("select 1 from etl.kysely_migration where name = $1", [
        newest?.name,
      ]);
      expect(pending).toEqual([]);
    } finally {
      await holder.end();
      await warehouse.query("insert into etl.kysely_migration (name, timestamp) values ($1, $2)", [
        newest?.name,
        newest?.timestamp,
      ]);
    }
    const again = await etl(["migrate"]);
    expect(again.stdout).toContain("the warehouse is up to date");
  });

  it.each(["0", "3601", "soon"])("refuses --lock-timeout %s with exit 2", async (value) => {
    const result = await etl(["migrate", "--lock-timeout", value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--lock-timeout takes a whole number from 1 to 3600");
  });
});
