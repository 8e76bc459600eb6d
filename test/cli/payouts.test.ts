import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../sandbox/index.js";
import { etlEnv, etlIn } from "../helpers/cli.js";
import { deleteKeysWithPrefix, uniquePrefix } from "../helpers/redis.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

const prefix = uniquePrefix("payouts-command");
const dir = makeTempDir("payouts-command");
let warehouse: TestWarehouse;
let sandbox: Sandbox;

interface RequestRow {
  request_id: string;
  amount: string;
  status: string;
  payout_id: string | null;
  message: string | null;
  response: unknown;
}

const etl = etlIn(dir.path, () => etlEnv(sandbox, warehouse.url, null, { LOG_LEVEL: "silent" }));

const requests = () =>
  warehouse.query<RequestRow>(
    "select request_id, amount::text, status, payout_id, message, response from royalties.payout_requests order by requested_at",
  );

beforeAll(async () => {
  warehouse = await createTestWarehouse("payouts_command");
  dir.write("etl.config.json", {
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    max_concurrency: 4,
    max_retries: 2,
  });
  dir.write("no-retries.json", {
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    max_retries: 0,
  });
});

afterAll(async () => {
  await warehouse?.drop();
  await deleteKeysWithPrefix(prefix);
  dir.remove();
});

beforeEach(async () => {
  // A fresh upstream each time: its balance, withdrawal type and payouts start over.
  sandbox = await startSandbox({ apiKey: "payouts-command-key-1", today: "2026-01-31" });
  await warehouse.query("truncate royalties.payout_requests, royalties.payouts cascade");
});

afterEach(async () => {
  await sandbox.close();
});

describe("etl payouts request", () => {
  it("requests a payout, names it, and records the request as accepted", async () => {
    const before = sandbox.data.payouts().length;
    const result = await etl(["payouts", "request", "--amount", "150.00", "--yes"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const payouts = sandbox.data.payouts();
    expect(payouts).toHaveLength(before + 1);
    const made = payouts.at(-1);
    expect(made?.amount).toBe("150.00");
    expect(result.stdout).toContain(`accepted: payout ${made?.id} of 150.00 EUR, status pending`);
    expect(result.stdout).toContain("Payout requested");
    expect(result.stdout).toContain("balance left: 1084.56");
    expect(await requests()).toEqual([
      expect.objectContaining({
        request_id: made?.metadata.idempotency_key,
        amount: "150.00",
        status: "accepted",
        payout_id: made?.id,
        message: "Payout requested",
      }),
    ]);
    expect(sandbox.data.balance()).toBe("1084.56");
  });

  it("retries a dropped answer with the same key: one payout, two POSTs", async () => {
    sandbox.setKnobs({ dropFirstPayoutResponse: true });
    const before = sandbox.data.payouts().length;
    const result = await etl(["payouts", "request", "--amount", "200.50", "--yes"]);
    expect(result.code).toBe(0);
    expect(sandbox.stats().byOperation["royalties.requestPayout"]).toBe(2);
    const payouts = sandbox.data.payouts();
    expect(payouts).toHaveLength(before + 1);
    const [row] = await requests();
    expect(row).toMatchObject({ status: "accepted", payout_id: payouts.at(-1)?.id });
    expect(payouts.at(-1)?.metadata.idempotency_key).toBe(row?.request_id);
    expect(result.stdout).toContain("sent 2 times with the same key");
    expect(sandbox.data.balance()).toBe("1034.06");
  });

  it("resumes a request left pending by a crash, with its key, and makes no second payout", async () => {
    const key = randomUUID();
    await warehouse.query(
      "insert into royalties.payout_requests (request_id, amount, requested_at) values ($1, 300.00, now() - interval '10 minutes')",
      [key],
    );
    // The crashed run's POST reached the upstream; its answer was never recorded.
    const made = sandbox.data.requestPayout(30_000, key);
    expect(made.kind).toBe("created");
    const before = sandbox.data.payouts().length;

    const result = await etl(["payouts", "request", "--amount", "300", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`resuming request ${key} from `);
    expect(sandbox.data.payouts()).toHaveLength(before);
    expect(sandbox.stats().byOperation["royalties.requestPayout"]).toBe(1);
    expect(sandbox.data.balance()).toBe("934.56");
    const rows = await requests();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      request_id: key,
      status: "accepted",
      payout_id: made.kind === "created" ? made.payout.id : null,
    });
  });

  it("records an unknown outcome when no answer comes, and a re-run settles it with the same key", async () => {
    sandbox.setKnobs({ dropFirstPayoutResponse: true });
    const before = sandbox.data.payouts().length;
    const lost = await etl(["payouts", "request", "--amount", "250.00", "--yes"], {
      ETL_CONFIG: "no-retries.json",
    });
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain("outcome unknown after 1 try");
    expect(lost.stderr).toContain("royalties.requestPayout");
    const [unknown] = await requests();
    expect(unknown).toMatchObject({ status: "unknown", payout_id: null });
    expect(sandbox.data.payouts()).toHaveLength(before + 1);

    const again = await etl(["payouts", "request", "--amount", "250.00", "--yes"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`resuming request ${unknown?.request_id} from `);
    expect(sandbox.data.payouts()).toHaveLength(before + 1);
    expect(await requests()).toEqual([
      expect.objectContaining({ status: "accepted", payout_id: sandbox.data.payouts().at(-1)?.id }),
    ]);
    expect(sandbox.data.balance()).toBe("984.56");
  });

  it("shows the last known balance as a hint only: the upstream decides", async () => {
    await warehouse.query(
      `insert into royalties.payouts (payout_id, amount, wallet, created_at, raw, last_seen_on)
       values ('4999', 500.00, 100.00, now() - interval '3 days', '{}', current_date)`,
    );
    const result = await etl(["payouts", "request", "--amount", "150.00", "--yes"]);
    expect(result.stdout).toContain("last known balance: 100.00 (left after payout 4999 of ");
    expect(result.stdout).toContain("warning: 150.00 is above it");
    expect(result.code).toBe(0);
    expect(sandbox.data.balance()).toBe("1084.56");
  });

  it("does not resume an unfinished request of another amount, and says it is there", async () => {
    const key = randomUUID();
    await warehouse.query(
      "insert into royalties.payout_requests (request_id, amount, status) values ($1, 120.00, 'unknown')",
      [key],
    );
    const result = await etl(["payouts", "request", "--amount", "130.00", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("resuming");
    expect(result.stdout).toContain(`note: request ${key} of 120.00`);
    const rows = await requests();
    expect(rows.map((r) => [r.amount, r.status])).toEqual([
      ["120.00", "unknown"],
      ["130.00", "accepted"],
    ]);
  });

  it("exits 1 on an amount above the balance, saying funds are insufficient", async () => {
    const before = sandbox.data.payouts().length;
    const result = await etl(["payouts", "request", "--amount", "5000.00", "--yes"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("refused: Insufficient funds");
    expect(result.stdout).toContain("type 1: insufficient funds");
    expect(sandbox.data.payouts()).toHaveLength(before);
    expect(await requests()).toEqual([
      expect.objectContaining({
        status: "refused",
        payout_id: null,
        message: "Insufficient funds",
        response: { status: false, message: "Insufficient funds", type: 1 },
      }),
    ]);
  });

  it("after `payouts monthly`, a request is refused with the type-0 meaning", async () => {
    const monthly = await etl(["payouts", "monthly", "--yes"]);
    expect(monthly.code).toBe(0);
    expect(monthly.stdout).toContain(
      "accepted: withdrawal type set to monthly (withdrawal_type 2)",
    );
    expect(sandbox.data.withdrawalType()).toBe(2);

    const result = await etl(["payouts", "request", "--amount", "150.00", "--yes"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "refused: Withdrawal type cannot be changed to request at this time",
    );
    expect(result.stdout).toContain("type 0: the withdrawal type cannot change now");
    expect((await requests())[0]?.status).toBe("refused");
  });

  it.each([
    ["99.99", "must be at least 100"],
    ["150,00", "use a period as the decimal separator (150.00), not a comma\n"],
    [
      "1,50",
      "use a period as the decimal separator (1.50), not a comma; and 1.50 must be at least 100",
    ],
    ["150.001", "at most two decimals"],
    ["abc", "must be a positive number"],
  ])("refuses --amount %s with exit 2, sending and writing nothing", async (amount, message) => {
    const result = await etl(["payouts", "request", "--amount", amount, "--yes"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--amount ${amount}: `);
    expect(result.stderr).toContain(message);
    expect(sandbox.stats().requests).toBe(0);
    expect(await requests()).toEqual([]);
  });

  it("refuses without a terminal and without --yes: exit 2, nothing sent or written", async () => {
    const result = await etl(["payouts", "request", "--amount", "150.00"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("pass --yes");
    expect(sandbox.stats().requests).toBe(0);
    expect(await requests()).toEqual([]);
  });
});

describe("etl payouts threshold and monthly", () => {
  it("sets the threshold", async () => {
    const result = await etl(["payouts", "threshold", "--amount", "200", "--yes"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'accepted: threshold set to 200.00 (upstream: "Threshold updated")',
    );
    expect(sandbox.data.threshold()).toBe("200.00");
  });

  it("validates the threshold and asks for --yes without a terminal", async () => {
    const bad = await etl(["payouts", "threshold", "--amount", "200,5", "--yes"]);
    expect(bad.code).toBe(2);
    const unconfirmed = await etl(["payouts", "monthly"]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("pass --yes");
    expect(sandbox.stats().requests).toBe(0);
    expect(sandbox.data.withdrawalType()).toBe(1);
  });
});
