import { afterAll, describe, expect, it } from "vitest";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { createEtlQueue } from "../../src/jobs/etl-queue.js";
import { reconcileSchedulers, restoreSchedulers } from "../../src/jobs/schedulers.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";

const prefix = uniquePrefix("schedulers");
const OFF = { catalogue: null, trends: null, artist_stats: null, royalties: null };
/** A config with these families scheduled (daily at 03:15 UTC), the others off. */
function configOf(...families: (keyof typeof OFF)[]) {
  const schedules = Object.fromEntries(
    families.map((family) => [family, { pattern: "15 3 * * *", tz: "UTC" }]),
  );
  return etlConfigSchema.parse({
    start_date: "2026-01-01",
    redis_prefix: prefix,
    schedules: { ...OFF, ...schedules },
  });
}
const older = configOf("catalogue", "trends");
const newer = configOf("catalogue");
// Only this file's prefix is touched: the machine's Redis is shared, and is never flushed here.
const queue = createEtlQueue(REDIS_URL, older);

async function schedulerKeys(): Promise<string[]> {
  return (await queue.getJobSchedulers()).map((s) => s.key).sort();
}

afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(prefix);
});

describe("restoring the job schedulers of a running worker", () => {
  it("finds nothing to do while the schedulers the last reconciliation made are there", async () => {
    await reconcileSchedulers(queue, older);
    expect(await schedulerKeys()).toEqual(["family-catalogue", "family-trends"]);
    expect(await restoreSchedulers(queue, older)).toBeNull();
  });

  it("makes again a scheduler gone alone", async () => {
    await queue.removeJobScheduler("family-trends");
    expect(await restoreSchedulers(queue, older)).toEqual({
      reason: "schedulers gone",
      changes: [{ scheduler: "family-trends", change: "upserted" }],
    });
    expect(await schedulerKeys()).toEqual(["family-catalogue", "family-trends"]);
  });

  it("never brings back, from an older config, a schedule a newer one removed", async () => {
    await reconcileSchedulers(queue, newer);
    expect(await schedulerKeys()).toEqual(["family-catalogue"]);
    expect(await restoreSchedulers(queue, older)).toBeNull();
    expect(await schedulerKeys()).toEqual(["family-catalogue"]);
  });

  it("with every key gone (Redis lost its data), reconciles with the worker's config", async () => {
    await deleteKeysWithPrefix(prefix);
    expect(await schedulerKeys()).toEqual([]);
    expect(await restoreSchedulers(queue, newer)).toEqual({
      reason: "redis lost its data",
      changes: [{ scheduler: "family-catalogue", change: "upserted" }],
    });
    expect(await schedulerKeys()).toEqual(["family-catalogue"]);
    expect(await queue.getJobCountByTypes("delayed")).toBe(1);
    expect(await restoreSchedulers(queue, newer)).toBeNull();
  });
});
