import { randomBytes } from "node:crypto";
import pg from "pg";
import { deleteKeysWithPrefix } from "../test/helpers/redis.js";
import { dropDatabase, PG_HOST_URL, withDatabaseClient } from "../test/helpers/warehouse.js";

// The bench uses the tests' local Postgres and Redis, through the same helpers.
export { REDIS_URL } from "../test/helpers/redis.js";

/** A database and a Redis prefix of the bench's own, removed when it is done. */
export interface Scratch {
  readonly database: string;
  readonly databaseUrl: string;
  readonly redisPrefix: string;
  drop(): Promise<void>;
}

/** A new database, empty or (`template`: a database no one is connected to) a copy of another. */
export async function createScratch(label: string, template?: string): Promise<Scratch> {
  const suffix = randomBytes(4).toString("hex");
  const database = `music_etl_bench_${label}_${suffix}`;
  const copy = template === undefined ? "" : ` template ${pg.escapeIdentifier(template)}`;
  await withDatabaseClient((c) =>
    c.query(`create database ${pg.escapeIdentifier(database)}${copy}`),
  );
  const redisPrefix = `bench-${label}-${suffix}`;
  return {
    database,
    databaseUrl: `${PG_HOST_URL}/${database}`,
    redisPrefix,
    async drop() {
      await dropDatabase(database);
      await deleteKeysWithPrefix(redisPrefix);
    },
  };
}
