// etl.attempts was etl.sync_runs, its id run_id, until migration 037, which keeps a view of the old
// names for a release. The statements here are the release before's own (its attempt's opening,
// as src/warehouse/attempts.ts sent it, and its close), sent through that view.
import { randomBytes } from "node:crypto";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { down, up } from "../../migrations/2026-12-03-037-attempts-table.js";
import { startAttempt } from "../../src/warehouse/attempts.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("old_attempt_names");
});

afterAll(() => warehouse.drop());

const OLD_START_ATTEMPT = `
  with earlier as (
    select run_id from etl.sync_runs where stream = $1 and partition = $2 limit 1
  ), abandoned as (
    update etl.sync_runs
       set status = 'abandoned', finished_at = now(), closed_by = $3, error = $4
     where stream = $1 and partition = $2 and status = 'running' and $5::boolean
    returning run_id
  )
  insert into etl.sync_runs
    (stream, partition, kind, extracted_on, runner, partition_data, replay_of, run)
  values ($1, $2, $6, $7::date, $3, $8::jsonb, $9::bigint, $10)
  returning run_id, exists (select 1 from earlier) as ever_ran,
    (select count(*) from abandoned)::int as abandoned`;

const oldStartParams = (partition: string, closeAbandoned: boolean) => [
  "s",
  partition,
  "old-host:1",
  "gone",
  closeAbandoned,
  "sync",
  "2026-01-01",
  "{}",
  null,
  "run-1",
];

async function oldStart(partition: string, closeAbandoned: boolean) {
  const [row] = await warehouse.query<{ run_id: string; ever_ran: boolean; abandoned: number }>(
    OLD_START_ATTEMPT,
    oldStartParams(partition, closeAbandoned),
  );
  if (!row) throw new Error("no attempt opened");
  return row;
}

describe("a worker of the release before 037", () => {
  it("opens, closes and abandons its attempts through etl.sync_runs, into etl.attempts", async () => {
    const first = await oldStart("p", false);
    expect(first).toMatchObject({ ever_ran: false, abandoned: 0 });
    const second = await oldStart("p", true);
    expect(second).toMatchObject({ ever_ran: true, abandoned: 1 });
    await warehouse.query(
      "update etl.sync_runs set status = 'succeeded', finished_at = now(), requests = 3 where run_id = $1",
      [second.run_id],
    );
    const rows = await warehouse.query<{ attempt_id: string; status: string; requests: number }>(
      `select attempt_id::text, status, requests from etl.attempts
        where stream = 's' and partition = 'p' order by attempt_id`,
    );
    expect(rows).toEqual([
      { attempt_id: String(first.run_id), status: "abandoned", requests: 0 },
      { attempt_id: String(second.run_id), status: "succeeded", requests: 3 },
    ]);
  });

  it("reads this release's attempts under the old names", async () => {
    const { attemptId } = await startAttempt(warehouse.db, "s", "new", {
      kind: "sync",
      extractedOn: "2026-01-01",
    });
    const rows = await warehouse.query<{ run_id: string; status: string }>(
      "select run_id::text, status from etl.sync_runs where stream = 's' and partition = 'new'",
    );
    expect(rows).toEqual([{ run_id: attemptId, status: "running" }]);
  });

  it("keeps what its own role could do on the table, as the view's grants", async () => {
    const role = `old_worker_${randomBytes(4).toString("hex")}`;
    const db = warehouse.db as unknown as Kysely<unknown>;
    await db.transaction().execute((trx) => down(trx));
    await sql`create role ${sql.id(role)}`.execute(db);
    try {
      await sql`grant usage on schema etl to ${sql.id(role)}`.execute(db);
      await sql`grant select, insert, update on etl.sync_runs to ${sql.id(role)}`.execute(db);
      await db.transaction().execute((trx) => up(trx));
      const opened = await db.transaction().execute(async (trx) => {
        await sql`set local role ${sql.id(role)}`.execute(trx);
        return trx.executeQuery<{ run_id: string }>(
          CompiledQuery.raw(OLD_START_ATTEMPT, oldStartParams("own-role", false)),
        );
      });
      const [row] = await warehouse.query<{ attempt_id: string }>(
        "select attempt_id::text from etl.attempts where partition = 'own-role'",
      );
      expect(row?.attempt_id).toBe(String(opened.rows[0]?.run_id));
    } finally {
      await sql`drop owned by ${sql.id(role)}`.execute(db);
      await sql`drop role ${sql.id(role)}`.execute(db);
    }
  });
});
