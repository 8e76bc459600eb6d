import { FlowProducer, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { bullConnection } from "../../src/jobs/etl-queue.js";
import { foldCompletedChildren, foldedChildren } from "../../src/jobs/folded-children.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "../helpers/redis.js";
import { until } from "../helpers/until.js";

// Run progress folds a parent's completed children out of a hash BullMQ keeps beside the parent
// (`<job>:processed`), which is not BullMQ's public API: bullmq is pinned to one version in
// package.json, and an upgrade that moves or reshapes that hash fails here, by name.
const prefix = uniquePrefix("folded_children");
// The run in a queue of its own: the worker here takes only the partitions.
const runs = new Queue("folding-runs", { connection: bullConnection(REDIS_URL), prefix });
const partitions = new Queue("folding", { connection: bullConnection(REDIS_URL), prefix });
const flows = new FlowProducer({ connection: bullConnection(REDIS_URL), prefix });
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  await flows.close();
  await runs.close();
  await partitions.close();
  redis.disconnect();
  await deleteKeysWithPrefix(prefix);
});

describe("the children a run folds into a count (BullMQ's <job>:processed hash)", () => {
  it("holds what BullMQ counts as processed, and folding it moves that count to the run", async () => {
    const flow = await flows.add({
      name: "run",
      queueName: "folding-runs",
      children: [1, 2, 3].map((n) => ({ name: "partition", queueName: "folding", data: { n } })),
    });
    const parentId = flow.job.id ?? "";
    const worker = new Worker("folding", (job) => Promise.resolve(job.data), {
      connection: bullConnection(REDIS_URL),
      prefix,
      autorun: false,
    });
    const children = (flow.children ?? []).map((child) => child.job.id ?? "");
    const done = new Set<string>();
    worker.on("completed", (job) => done.add(job.id ?? ""));
    void worker.run();
    await until(() => Promise.resolve(children.every((id) => done.has(id))));
    await worker.close(true);

    const parent = await runs.getJob(parentId);
    expect(parent).toBeDefined();
    const counted = await parent?.getDependenciesCount();
    const hash = await redis.hgetall(`${runs.toKey(parentId)}:processed`);
    expect(counted?.processed).toBe(3);
    expect(Object.keys(hash).sort()).toEqual(children.map((id) => partitions.toKey(id)).sort());

    expect(await foldCompletedChildren(redis, runs, parentId)).toBe(3);
    expect((await parent?.getDependenciesCount())?.processed).toBe(0);
    expect(await foldedChildren(runs, parentId)).toBe(3);
    expect(await redis.exists(`${runs.toKey(parentId)}:processed`)).toBe(0);
    expect(await foldCompletedChildren(redis, runs, parentId)).toBe(0);
    expect(await foldedChildren(runs, parentId)).toBe(3);
  });
});
