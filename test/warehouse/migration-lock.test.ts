import { Kysely, Migrator, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LockWaitError } from "../../src/errors.js";
import { createWarehouse, type Warehouse } from "../../src/warehouse/database.js";
import type { LockHolder } from "../../src/warehouse/lock-holders.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import { pgConnectionConfig } from "../../src/warehouse/pg-connection-config.js";
import { createTestWarehouse, migrationsWith, type TestWarehouse } from "../helpers/warehouse.js";

/** The key Kysely 0.28's Postgres migrator locks, written out here rather than imported. */
const KYSELY_LOCK_KEY = "3853314791062309107";
const PROBE = "9999-12-31-999-lock-probe";
/** One pending migration: it creates a table, so whether it ran is a fact to read. */
const provider = migrationsWith({
  [PROBE]: {
    up: async (db) => {
      await sql`create table etl.lock_probe (a int)`.execute(db);
    },
  },
});

let warehouse: TestWarehouse;
/** One connection: what migrate leaves on its session, the next query sees. */
let single: Warehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("migration_lock");
  single = createWarehouse(warehouse.url, { maxConnections: 1 });
});

afterAll(async () => {
  await single?.destroy();
  await warehouse?.drop();
});

/**
 * The pids holding an advisory lock on `key` in this database (each database has its own: other
 * test files' locks are not these), read from pg_locks with the key put back whole.
 */
async function lockHolderPids(key: string): Promise<number[]> {
  const rows = await warehouse.query<{ pid: number }>(
    `select pid from pg_locks
      where locktype = 'advisory' and objsubid = 1 and granted
        and database = (select oid from pg_database where datname = current_database())
        and ((classid::bigint << 32) | objid::bigint) = $1::bigint
      order by pid`,
    [key],
  );
  return rows.map((row) => row.pid);
}

/** What the single connection's session carries after a migrate. */
async function sessionLeftovers() {
  const { rows } = await sql<{ lock_timeout: string; advisory: number }>`
    select current_setting('lock_timeout') as lock_timeout,
           (select count(*)::int from pg_locks
             where locktype = 'advisory' and pid = pg_backend_pid()) as advisory`.execute(single);
  return rows[0];
}

async function probeApplied(): Promise<boolean> {
  const rows = await warehouse.query("select 1 from etl.kysely_migration where name = $1", [PROBE]);
  return rows.length > 0;
}

describe("migrate behind a held migration lock", () => {
  it("gives up within the bound behind Kysely's own migrator (an older release's migrate), naming it", async () => {
    // An older release's migrate: Kysely's Migrator, stopped inside a migration of its own.
    const older = new Kysely<unknown>({
      dialect: new PostgresDialect({
        pool: new pg.Pool({
          ...pgConnectionConfig(warehouse.url),
          application_name: "older-release-migrate",
          max: 2,
        }),
      }),
    });
    let release = () => undefined as void;
    let started = () => undefined as void;
    const held = new Promise<void>((resolve) => (started = resolve));
    const running = new Migrator({
      db: older,
      migrationTableSchema: "lock_probe_older",
      provider: {
        getMigrations: () =>
          Promise.resolve({
            "0001-hold": {
              up: () =>
                new Promise<void>((resolve) => {
                  release = resolve;
                  started();
                }),
            },
          }),
      },
    }).migrateToLatest();
    const waits: LockHolder[][] = [];
    try {
      await held;
      const [olderPid] = await lockHolderPids(KYSELY_LOCK_KEY);
      expect(olderPid).toBeTypeOf("number");

      const failure = await migrateToLatest(single, {
        lockWaitMs: 1000,
        provider,
        onLockWait: (holders) => void waits.push([...holders]),
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LockWaitError);
      expect((failure as Error).message).toContain(
        `gave up after 1 s waiting for the migration lock, held by pid ${olderPid} (user `,
      );
      expect((failure as Error).message).toContain(`application "older-release-migrate"`);
      expect(waits.map((holders) => holders.map((holder) => holder.pid))).toEqual([[olderPid]]);
      expect(await probeApplied()).toBe(false);
      expect(await sessionLeftovers()).toEqual({ lock_timeout: "0", advisory: 0 });
    } finally {
      release();
      expect((await running).error).toBeUndefined();
      await sql`drop schema lock_probe_older cascade`.execute(older);
      await older.destroy();
    }
  });

  it("applies the pending migrations once the holder lets go within the bound, then lets go itself", async () => {
    const holder = new pg.Client({
      ...pgConnectionConfig(warehouse.url),
      application_name: "lock-holder",
    });
    await holder.connect();
    try {
      await holder.query("select pg_advisory_lock($1::bigint)", [KYSELY_LOCK_KEY]);
      const [{ pid } = { pid: -1 }] = (
        await holder.query<{ pid: number }>("select pg_backend_pid() as pid")
      ).rows;
      const waits: number[][] = [];
      const outcome = await migrateToLatest(single, {
        lockWaitMs: 30_000,
        provider,
        onLockWait: (holders) => {
          waits.push(holders.map((h) => h.pid));
          void holder.query("select pg_advisory_unlock($1::bigint)", [KYSELY_LOCK_KEY]);
        },
      });
      expect(waits).toEqual([[pid]]);
      expect(outcome).toEqual({ applied: [PROBE], newer: [] });
      expect(await probeApplied()).toBe(true);
      expect(await sessionLeftovers()).toEqual({ lock_timeout: "0", advisory: 0 });
      expect(await lockHolderPids(KYSELY_LOCK_KEY)).toEqual([]);
    } finally {
      await holder.end();
    }
  });
});
