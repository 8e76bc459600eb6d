import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { etlEnv, imageNodeOptions } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import { spawnEtl } from "../helpers/worker-process.js";

const MIB = 1024 * 1024;
/** Bytes of one income as the sandbox serves it, about: incomes are counted from sizes. */
const BYTES_PER_INCOME = 165;
const DEFAULT_LIMIT = etlConfigSchema.parse({ start_date: "2026-01-01" }).max_response_bytes;
const prefix = uniquePrefix("large_response");
const dir = makeTempDir("large-response");
let warehouse: TestWarehouse;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  warehouse = await createTestWarehouse("large_response");
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    // The sandbox makes a list this long in seconds, on a machine other tests share.
    request_timeout_ms: 120_000,
  });
});

afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.close();
  await warehouse.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

/** A sandbox whose incomes list is one answer of about `bytes`, and that answer's exact size. */
async function sandboxServing(bytes: number): Promise<{ sandbox: Sandbox; bodyBytes: number }> {
  const sandbox = await startSandbox({
    apiKey: "large-response-key-0123456789",
    today: "2026-01-31",
    size: { incomes: Math.round(bytes / BYTES_PER_INCOME) },
  });
  sandboxes.push(sandbox);
  const response = await fetch(`${sandbox.url}/api/v1/incomes`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  await response.body?.cancel();
  sandbox.resetStats();
  return { sandbox, bodyBytes: Number(response.headers.get("content-length")) };
}

/** `etl sync --only incomes` run by node as the image runs it: with the image's NODE_OPTIONS. */
async function syncIncomes(sandbox: Sandbox) {
  const sync = spawnEtl(["sync", "--only", "incomes"], {
    cwd: dir.path,
    env: etlEnv(sandbox, warehouse.url, join(dir.path, "etl.config.json"), {
      NODE_OPTIONS: imageNodeOptions(),
    }),
  });
  const code = await sync.exited;
  return {
    code,
    signal: sync.child.signalCode,
    output: `${sync.stdout()}\n${sync.logs.join("\n")}`,
  };
}

async function incomesState() {
  const [state] = await warehouse.query<{ last_status: string; last_error: string | null }>(
    "select last_status, last_error from etl.stream_state where stream = 'incomes'",
  );
  return state;
}

describe("a large answer under the image's heap", () => {
  it("of 50 MiB fails its partition with the size limit, and the process does not crash", async () => {
    expect(imageNodeOptions()).toMatch(/^--max-old-space-size=\d+$/);
    const { sandbox, bodyBytes } = await sandboxServing(51 * MIB);
    expect(bodyBytes).toBeGreaterThanOrEqual(50 * MIB);
    const sync = await syncIncomes(sandbox);
    // Exit 1, a failed partition: not killed by a signal, not V8's abort when the heap runs out.
    expect(sync.signal).toBeNull();
    expect(sync.code, sync.output).toBe(1);
    expect(sync.output).not.toMatch(/heap out of memory|FATAL ERROR/);
    const refusal = `HTTP 200 answer larger than max_response_bytes (${DEFAULT_LIMIT} bytes, ${DEFAULT_LIMIT / MIB} MiB): its Content-Length says ${bodyBytes} bytes`;
    expect(sync.output).toContain(refusal);
    expect((await incomesState())?.last_error).toContain(refusal);
    expect((await incomesState())?.last_status).toBe("failed");
    // Refused once: a larger answer is not asked for again.
    expect(sandbox.stats().byOperation["royalties.listIncomes"]).toBe(1);
    expect(await warehouse.query("select 1 from etl.responses where stream = 'incomes'")).toEqual(
      [],
    );
  });

  it("just under max_response_bytes is synced", async () => {
    const { sandbox, bodyBytes } = await sandboxServing(DEFAULT_LIMIT * 0.97);
    expect(bodyBytes).toBeLessThanOrEqual(DEFAULT_LIMIT);
    expect(bodyBytes).toBeGreaterThan(DEFAULT_LIMIT * 0.9);
    const sync = await syncIncomes(sandbox);
    expect(sync.signal).toBeNull();
    expect(sync.code, sync.output).toBe(0);
    expect((await incomesState())?.last_status).toBe("succeeded");
    const [landed] = await warehouse.query<{ bytes: number }>(
      "select octet_length(body) as bytes from etl.responses where stream = 'incomes'",
    );
    expect(landed?.bytes).toBe(bodyBytes);
    const [stored] = await warehouse.query<{ n: number }>(
      "select count(*)::int as n from royalties.incomes",
    );
    expect(stored?.n).toBe(sandbox.data.incomes().length);
  });
});
