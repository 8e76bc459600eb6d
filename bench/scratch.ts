import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { pgConnectionConfig } from "../src/warehouse/pg-connection-config.js";

export const PG_URL = process.env.BENCH_DATABASE_URL ?? "postgres://127.0.0.1:5432";
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A database and a Redis prefix of the bench's own, removed when it is done. */
export interface Scratch {
  readonly databaseUrl: string;
  readonly redisPrefix: string;
  drop(): Promise<void>;
}

async function admin<T>(task: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgConnectionConfig(`${PG_URL}/postgres`));
  await client.connect();
  try {
    return await task(client);
  } finally {
    await client.end();
  }
}

export async function createScratch(label: string): Promise<Scratch> {
  const suffix = randomBytes(4).toString("hex");
  const name = `music_etl_bench_${label}_${suffix}`;
  await admin((c) => c.query(`create database ${pg.escapeIdentifier(name)}`));
  const redisPrefix = `bench-${label}-${suffix}`;
  return {
    databaseUrl: `${PG_URL}/${name}`,
    redisPrefix,
    async drop() {
      await admin((c) =>
        c.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`),
      );
      const redis = new Redis(REDIS_URL);
      try {
        let cursor = "0";
        do {
          const [next, keys] = await redis.scan(cursor, "MATCH", `${redisPrefix}*`, "COUNT", 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== "0");
      } finally {
        redis.disconnect();
      }
    },
  };
}
