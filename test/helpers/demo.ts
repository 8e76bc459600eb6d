import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { nodeEntry } from "./cli.js";
import { REDIS_URL } from "./redis.js";
import { PG_HOST_URL, dropDatabase, withDatabaseClient } from "./warehouse.js";
import { HANG_MS } from "./hang-limit.js";

/** The machine's Postgres server and Redis, as the demo's environment names them. */
export const DEMO_SERVICES = { DATABASE_URL: `${PG_HOST_URL}/postgres`, REDIS_URL };

export interface DemoResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `npm run demo -- <args>` as a process of its own, with only `env` (and PATH). One that hangs is
 * killed after ten minutes rather than outliving the test run: many times what a whole demo takes
 * on a busy machine.
 */
export function runDemo(env: Record<string, string>, args: readonly string[] = []) {
  return new Promise<DemoResult>((done) => {
    execFile(
      process.execPath,
      [...nodeEntry("sandbox/demo/main.ts"), ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: HANG_MS },
      (error, stdout, stderr) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Database names of a test file's own, never the demo's default one (another demo of this
 * machine may own it); `dropAll` removes every one named.
 */
export function demoTestDatabases() {
  const named: string[] = [];
  return {
    name(label: string): string {
      const name = `music_etl_test_demo_${label}_${randomBytes(4).toString("hex")}`;
      named.push(name);
      return name;
    },
    async dropAll(): Promise<void> {
      for (const name of named) await dropDatabase(name);
    },
  };
}

/** The comment on the database `name`, null when it has none. */
export async function databaseComment(name: string): Promise<string | null> {
  const { rows } = await withDatabaseClient((c) =>
    c.query<{ comment: string | null }>(
      "select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1",
      [name],
    ),
  );
  return rows[0]?.comment ?? null;
}
