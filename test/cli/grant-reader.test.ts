import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { LockWaitError } from "../../src/errors.js";
import { migrateToLatest } from "../../src/warehouse/migrate.js";
import { MIGRATION_LOCK_KEY } from "../../src/warehouse/migration-lock.js";
import { scramSha256Verifier } from "../../src/warehouse/scram-verifier.js";
import { etlIn } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, migrationsWith, type TestWarehouse } from "../helpers/warehouse.js";

const ROLE = `bi_test_${randomBytes(4).toString("hex")}`;
const PASSWORD = `pw-${randomBytes(12).toString("base64url")}`;
const dir = makeTempDir("grant-reader");
let warehouse: TestWarehouse;
const first = { code: -1, stdout: "", stderr: "" };
const second = { ...first };

const etl = etlIn(dir.path, () => ({
  DATABASE_URL: warehouse.url,
  LOG_LEVEL: "silent",
  BI_TEST_PASSWORD: PASSWORD,
}));

/** A client of the reader, or of `user` (trust auth locally: the password is sent but not checked). */
function readerClient(user = ROLE): pg.Client {
  const url = new URL(warehouse.url);
  return new pg.Client({
    host: url.hostname,
    port: Number(url.port || 5432),
    database: decodeURIComponent(url.pathname.slice(1)),
    user,
    password: PASSWORD,
  });
}

/** A session as the reader, or as `user`. */
async function asReader<T>(run: (client: pg.Client) => Promise<T>, user = ROLE): Promise<T> {
  const client = readerClient(user);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE of the statement run as the reader (or `user`), or "ok". */
function outcome(text: string, user = ROLE): Promise<string> {
  return asReader(async (client) => {
    try {
      await client.query(text);
      return "ok";
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  }, user);
}

/** Drops a role this file created, with its privileges in the test database. */
async function dropRole(name: string): Promise<void> {
  await warehouse.query(`drop owned by ${pg.escapeIdentifier(name)}`);
  await warehouse.query(`drop role ${pg.escapeIdentifier(name)}`);
}

/** Every privilege granted to the role in the database, and its default privileges. */
function privileges() {
  return warehouse.query<{ what: string }>(
    `select n.nspname || '.' || c.relname || ' ' || a.privilege_type as what
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       cross join lateral aclexplode(c.relacl) a
      where a.grantee = $1::regrole
     union all
     select 'schema ' || n.nspname || ' ' || a.privilege_type
       from pg_namespace n cross join lateral aclexplode(n.nspacl) a where a.grantee = $1::regrole
     union all
     select 'default ' || coalesce(n.nspname, '*') || ' ' || d.defaclobjtype::text || ' ' || a.privilege_type
       from pg_default_acl d left join pg_namespace n on n.oid = d.defaclnamespace
       cross join lateral aclexplode(d.defaclacl) a where a.grantee = $1::regrole
     order by 1`,
    [ROLE],
  );
}

beforeAll(async () => {
  warehouse = await createTestWarehouse("grant_reader");
  const args = ["grant-reader", ROLE, "--login", "--password-env", "BI_TEST_PASSWORD"];
  Object.assign(first, await etl(args));
  const afterFirst = await privileges();
  Object.assign(second, await etl(args));
  expect(await privileges()).toEqual(afterFirst);
});

afterAll(async () => {
  try {
    // Roles are cluster-wide: leave none behind, whatever happened above.
    if (warehouse) {
      const exists = await warehouse.query("select 1 from pg_roles where rolname = $1", [ROLE]);
      if (exists.length > 0) {
        const role = pg.escapeIdentifier(ROLE);
        await warehouse.query(`reassign owned by ${role} to current_user`);
        await warehouse.query(`drop owned by ${role}`);
        await warehouse.query(`drop role ${role}`);
      }
      const left = await warehouse.query("select 1 from pg_roles where rolname = $1", [ROLE]);
      expect(left).toEqual([]);
    }
  } finally {
    await warehouse?.drop();
    dir.remove();
  }
});

describe("etl grant-reader", () => {
  it("creates the login role, then finds it on a second run, granting the same (idempotent)", () => {
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `created role ${ROLE} (LOGIN, password set from $BI_TEST_PASSWORD)`,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`role exists: ${ROLE} (LOGIN`);
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(PASSWORD);
  });

  it("stores the password as a SCRAM-SHA-256 verifier of the password, computed like Postgres does", async () => {
    const [row] = await warehouse.query<{ rolpassword: string; rolcanlogin: boolean }>(
      "select rolpassword, rolcanlogin from pg_authid where rolname = $1",
      [ROLE],
    );
    expect(row?.rolcanlogin).toBe(true);
    const match = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(row?.rolpassword ?? "");
    expect(match).not.toBeNull();
    const [, iterations, salt, storedKey, serverKey] = match as unknown as string[];
    // RFC 5802, independently of the project's code.
    const salted = pbkdf2Sync(
      PASSWORD,
      Buffer.from(salt ?? "", "base64"),
      Number(iterations),
      32,
      "sha256",
    );
    const clientKey = createHmac("sha256", salted).update("Client Key").digest();
    expect(createHash("sha256").update(clientKey).digest("base64")).toBe(storedKey);
    expect(createHmac("sha256", salted).update("Server Key").digest("base64")).toBe(serverKey);
  });

  it("computes the same verifier as Postgres for a given salt, non-ASCII spaces included", async () => {
    const password = "pässwörd\u00A0with space\u00AD";
    const probe = `${ROLE}_probe`;
    await warehouse.query("begin");
    try {
      await warehouse.query("set local password_encryption = 'scram-sha-256'");
      await warehouse.query(
        `create role ${pg.escapeIdentifier(probe)} password ${pg.escapeLiteral(password)}`,
      );
      const [row] = await warehouse.query<{ rolpassword: string }>(
        "select rolpassword from pg_authid where rolname = $1",
        [probe],
      );
      const salt = Buffer.from(/:([^$]+)\$/.exec(row?.rolpassword ?? "")?.[1] ?? "", "base64");
      expect(scramSha256Verifier(password, salt)).toBe(row?.rolpassword);
    } finally {
      await warehouse.query("rollback");
    }
  });

  it("can connect with its password and read a table of each schema and every analytics view", async () => {
    const views = await warehouse.query<{ name: string }>(
      "select 'analytics.' || table_name as name from information_schema.views where table_schema = 'analytics' order by 1",
    );
    expect(views.length).toBeGreaterThanOrEqual(8);
    const readable = [
      "catalogue.products",
      "sales.trend_items",
      "artist_stats.platform_stats",
      "royalties.payouts",
      ...views.map((v) => v.name),
    ];
    const results: Record<string, string> = {};
    for (const name of readable) results[name] = await outcome(`select * from ${name} limit 1`);
    expect(results).toEqual(Object.fromEntries(readable.map((name) => [name, "ok"])));
  });

  it.each([
    [
      "insert",
      "insert into sales.trend_items (day, selection_type, sale_type, item_id, raw) values ('2026-01-01', 'dsp', 'stream', '1', '{}')",
    ],
    ["update", "update sales.trend_items set item_id = item_id"],
    ["delete", "delete from sales.trend_items"],
    ["truncate", "truncate sales.trend_items"],
    ["update a payout", "update royalties.payouts set status = 'paid'"],
  ])("cannot %s: permission denied", async (_what, statement) => {
    expect(await outcome(statement)).toBe("42501");
  });

  it.each([
    ["public", "create table public.bi_scratch (a int)"],
    ["catalogue", "create table catalogue.bi_scratch (a int)"],
    ["analytics", "create view analytics.bi_scratch as select 1 as a"],
    ["a new schema", "create schema bi_scratch"],
  ])("cannot create in %s: permission denied", async (_where, statement) => {
    expect(await outcome(statement)).toBe("42501");
  });

  it("cannot read etl.attempts, but reads freshness through analytics.stream_freshness", async () => {
    expect(await outcome("select * from etl.attempts")).toBe("42501");
    expect(await outcome("select * from etl.stream_state")).toBe("42501");
    expect(await outcome("select * from analytics.stream_freshness")).toBe("ok");
  });

  it("can read a table created after the grant (default privileges)", async () => {
    await warehouse.query("create table sales.bi_later (a int)");
    try {
      expect(await outcome("select * from sales.bi_later")).toBe("ok");
      expect(await outcome("insert into sales.bi_later values (1)")).toBe("42501");
    } finally {
      await warehouse.query("drop table sales.bi_later");
    }
  });

  it("takes back a write privilege granted by hand when run again", async () => {
    await warehouse.query(
      `grant insert, delete on sales.trend_items to ${pg.escapeIdentifier(ROLE)}`,
    );
    expect(await outcome("delete from sales.trend_items")).toBe("ok");
    const again = await etl(["grant-reader", ROLE]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`role exists: ${ROLE} (LOGIN)`);
    expect(await outcome("delete from sales.trend_items")).toBe("42501");
  });

  it.each([
    [["grant-reader", "Bad-Name"], "must be 1 to 63 lower-case letters"],
    [["grant-reader", "x; drop table catalogue.products"], "must be 1 to 63"],
    [["grant-reader", "pg_reader"], "which PostgreSQL reserves"],
    [["grant-reader", "public"], "is reserved by PostgreSQL"],
    [["grant-reader", "bi_other", "--password-env", "BI_TEST_PASSWORD"], "needs --login"],
    [["grant-reader", "bi_other", "--login", "--password-env", "NOT_SET_ANYWHERE"], "is not set"],
  ])("refuses %j with exit 2, creating nothing", async (args, message) => {
    const result = await etl(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    const roles = await warehouse.query(
      "select rolname from pg_roles where rolname in ('bi_other', 'Bad-Name', 'pg_reader')",
    );
    expect(roles).toEqual([]);
  });

  it("changes nothing and exits 1 when a grant to PUBLIC would let the role create tables", async () => {
    const blocked = `${ROLE}_blocked`;
    await warehouse.query("grant create on schema public to public");
    try {
      const result = await etl(["grant-reader", blocked]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("can create objects in schema public");
      expect(result.stderr).toContain("nothing was changed");
      const roles = await warehouse.query("select 1 from pg_roles where rolname = $1", [blocked]);
      expect(roles).toEqual([]);
    } finally {
      await warehouse.query("revoke create on schema public from public");
    }
  });

  it("gives the role's sessions a search path, a statement timeout, no JIT and a connection limit", async () => {
    expect(first.stdout).toMatch(/statement_timeout=120000ms.*at most 10 at once/);
    const session = await asReader(async (client) => {
      const show = async (name: string) =>
        (await client.query<Record<string, string>>(`show ${name}`)).rows[0]?.[name];
      const calendar = await client.query("select day from calendar limit 1");
      return {
        searchPath: await show("search_path"),
        statementTimeout: await show("statement_timeout"),
        idle: await show("idle_in_transaction_session_timeout"),
        jit: await show("jit"),
        unqualified: calendar.rows.length,
      };
    });
    expect(session).toEqual({
      searchPath: "analytics, sales, catalogue, artist_stats, royalties",
      statementTimeout: "2min",
      idle: "5min",
      jit: "off",
      unqualified: 1,
    });
    // transaction_timeout came with PostgreSQL 17: set there, absent before.
    const [server] = await warehouse.query<{ version: number }>(
      "select current_setting('server_version_num')::int as version",
    );
    if ((server?.version ?? 0) >= 170_000) {
      expect(first.stdout).toContain("transaction_timeout=1800000ms");
    } else {
      expect(first.stdout).not.toContain("transaction_timeout");
    }
    const [limit] = await warehouse.query<{ n: number }>(
      "select rolconnlimit as n from pg_roles where rolname = $1",
      [ROLE],
    );
    expect(limit?.n).toBe(10);
  });

  it("applies other limits when run again with them: a longer query is cancelled, a third session refused", async () => {
    const limited = await etl([
      "grant-reader",
      ROLE,
      "--statement-timeout",
      "1",
      "--connection-limit",
      "2",
    ]);
    expect(limited.code, limited.stderr).toBe(0);
    try {
      expect(await outcome("select pg_sleep(3)")).toBe("57014");
      // One session held here; a second is allowed, a third is over the limit.
      const sessions = await asReader(async () => {
        const others = [readerClient(), readerClient()];
        const codes: string[] = [];
        for (const other of others) {
          codes.push(
            await other.connect().then(
              () => "ok",
              (error: { code?: string; message?: string }) => error.code ?? error.message ?? "",
            ),
          );
        }
        await Promise.all(others.map((other) => other.end().catch(() => undefined)));
        return codes;
      });
      expect(sessions).toEqual(["ok", "53300"]);
    } finally {
      expect((await etl(["grant-reader", ROLE])).code).toBe(0);
    }
    for (const bad of [
      ["--statement-timeout", "0"],
      ["--connection-limit", "x"],
    ]) {
      const refused = await etl(["grant-reader", ROLE, ...bad]);
      expect(refused.code, bad.join(" ")).toBe(2);
    }
  });

  it("refuses an existing role with more powers than a reader, and the role running it (exit 2)", async () => {
    const powerful = `${ROLE}_createdb`;
    await warehouse.query(`create role ${pg.escapeIdentifier(powerful)} nologin createdb`);
    try {
      const result = await etl(["grant-reader", powerful]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("exists with CREATEDB");
    } finally {
      await dropRole(powerful);
    }
    const [me] = await warehouse.query<{ user: string }>("select current_user as user");
    const self = await etl(["grant-reader", me?.user ?? "root"]);
    expect(self.code).toBe(2);
  });
});

describe("etl grant-reader: what every role may do by default", () => {
  it.each([
    ["create a large object", "select lo_create(0)"],
    ["create a large object by lo_creat", "select lo_creat(-1)"],
    ["create a large object from bytes", "select lo_from_bytea(0, 'data')"],
    ["create a temporary table", "create temporary table bi_scratch (a int)"],
    ["create a temporary table as a query", "create temp table bi_scratch as select 1 as a"],
    ["take the migration lock", `select pg_advisory_lock(${MIGRATION_LOCK_KEY})`],
    ["take the migration lock shared", `select pg_advisory_lock_shared(${MIGRATION_LOCK_KEY})`],
    ["try the migration lock", `select pg_try_advisory_lock(${MIGRATION_LOCK_KEY})`],
    [
      "take the migration lock for a transaction",
      `select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`,
    ],
    ["take an advisory lock on two keys", "select pg_advisory_lock(1, 2)"],
  ])("cannot %s: permission denied", async (_what, statement) => {
    expect(await outcome(statement)).toBe("42501");
  });

  it("can run no function that takes an advisory lock or creates a large object, and created none", async () => {
    const runnable = await warehouse.query<{ name: string; reader: boolean }>(
      `select p.oid::regprocedure::text as name, has_function_privilege($1, p.oid, 'EXECUTE') as reader
         from pg_proc p
        where p.pronamespace = 'pg_catalog'::regnamespace
          and (p.proname ~ '^pg_(try_)?advisory_(xact_)?lock(_shared)?$'
               or p.proname in ('lo_creat', 'lo_create', 'lo_from_bytea', 'lo_import'))
        order by 1`,
      [ROLE],
    );
    // 16 lock functions (session or transaction, exclusive or shared, waiting or trying, bigint
    // or two int keys), 3 creating large objects, 2 importing a server file.
    expect(runnable).toHaveLength(21);
    expect(runnable.filter((fn) => fn.reader)).toEqual([]);
    const objects = await warehouse.query("select oid from pg_largeobject_metadata");
    expect(objects).toEqual([]);
  });

  it("can lift its own timeouts (Postgres lets every role), yet a migration behind its open transaction gives up within the bound, naming its session", async () => {
    const probe = "9999-12-31-999-lock-probe";
    const provider = migrationsWith({
      [probe]: {
        up: async (db) => {
          await sql`alter table sales.trend_items add column lock_probe int`.execute(db);
        },
      },
    });
    const reader = readerClient();
    await reader.connect();
    try {
      await reader.query("set statement_timeout = 0");
      await reader.query("set idle_in_transaction_session_timeout = 0");
      await reader.query("set application_name = 'bi-dashboard'");
      const lifted = await reader.query<{ statement_timeout: string }>("show statement_timeout");
      expect(lifted.rows[0]?.statement_timeout).toBe("0");
      await reader.query("begin");
      await reader.query("select count(*) from sales.trend_items");
      const [{ pid, client } = { pid: -1, client: null }] = (
        await reader.query<{ pid: number; client: string | null }>(
          "select pg_backend_pid() as pid, host(inet_client_addr()) as client",
        )
      ).rows;

      const failure = await migrateToLatest(warehouse.db, { lockWaitMs: 1000, provider }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(LockWaitError);
      const message = (failure as Error).message;
      expect(message).toContain(`waiting for a table lock of migration ${probe}`);
      expect(message).toContain(
        `pid ${pid} (user ${ROLE}, application "bi-dashboard"${client ? `, from ${client}` : ""}, idle in transaction since`,
      );
      expect(message).toContain("on sales.trend_items");
      expect(message).toContain(`pg_terminate_backend(${pid})`);
    } finally {
      await reader.end();
    }
    const applied = await warehouse.query("select 1 from etl.kysely_migration where name = $1", [
      probe,
    ]);
    expect(applied).toEqual([]);
    const column = await warehouse.query(
      "select 1 from information_schema.columns where table_schema = 'sales' and table_name = 'trend_items' and column_name = 'lock_probe'",
    );
    expect(column).toEqual([]);
  });

  it("leaves the pipeline's other roles their temporary tables and advisory locks, not large objects", async () => {
    const writer = `${ROLE}_etl`;
    const quoted = pg.escapeIdentifier(writer);
    await warehouse.query(`create role ${quoted} login`);
    try {
      await warehouse.query(`grant usage on schema etl to ${quoted}`);
      await warehouse.query(`grant insert on etl.attempts to ${quoted}`);
      const again = await etl(["grant-reader", ROLE]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`kept for the pipeline's roles: ${writer}`);
      expect(await outcome("create temporary table staging (a int)", writer)).toBe("ok");
      expect(await outcome("select pg_advisory_xact_lock(42)", writer)).toBe("ok");
      expect(await outcome("select lo_create(0)", writer)).toBe("42501");
      expect(await outcome("create temporary table staging (a int)")).toBe("42501");
    } finally {
      await dropRole(writer);
    }
  });

  it("exits 4 naming what it could not take away when a role the reader belongs to grants it", async () => {
    const group = `${ROLE}_grp`;
    const quoted = pg.escapeIdentifier(group);
    const [{ database } = { database: "" }] = await warehouse.query<{ database: string }>(
      "select current_database() as database",
    );
    await warehouse.query(`create role ${quoted} nologin`);
    try {
      await warehouse.query(`grant execute on function lo_create(oid) to ${quoted}`);
      await warehouse.query(
        `grant temporary on database ${pg.escapeIdentifier(database)} to ${quoted}`,
      );
      await warehouse.query(`grant ${quoted} to ${pg.escapeIdentifier(ROLE)}`);
      const result = await etl(["grant-reader", ROLE]);
      expect(result.code, result.stderr).toBe(4);
      expect(result.stdout).toContain(`not taken away: ${ROLE} can create temporary tables`);
      expect(result.stdout).toContain(
        `not taken away: ${ROLE} can create large objects (lo_create): granted to PUBLIC or a role it belongs to`,
      );
      expect(result.stdout).not.toContain("advisory locks");
    } finally {
      await dropRole(group);
    }
    expect((await etl(["grant-reader", ROLE])).code).toBe(0);
  });
});
