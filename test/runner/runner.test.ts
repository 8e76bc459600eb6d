import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toInteger } from "../../src/api/read-values.js";
import { AuthError, UpstreamStatusError } from "../../src/http/upstream-errors.js";
import { syncPartition } from "../../src/runner/extract/sync-partition.js";
import { runSync } from "../../src/runner/run-sync.js";
import { readListPage } from "../../src/api/list-page.js";
import type { Paging } from "../../src/streams/paging.js";
import { defineStream } from "../../src/streams/stream.js";
import { type Partition } from "../../src/streams/partition.js";
import { createLogger } from "../../src/logging/logger.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import type { ApiClient, Answer } from "../../src/api/api-client.js";
import type { PageRecords, Stream } from "../../src/streams/stream.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";
import type { Row } from "../../src/warehouse/row.js";

const request = { operation: "test.op", method: "GET", path: "/test" };
let warehouse: TestWarehouse;

beforeAll(async () => {
  warehouse = await createTestWarehouse("runner");
  // The typed column the test streams of list items declare.
  await warehouse.query("alter table sales.trend_items add count bigint");
});

afterAll(() => warehouse.drop());

/** A page handed to the runner as one response whose body is the page itself. */
function answer(page: unknown): Answer[] {
  return [
    {
      operation: "test.op",
      params: {},
      status: 200,
      body: page,
      bytes: Buffer.from(JSON.stringify(page)),
    },
  ];
}

/**
 * The test's answers say where the next page starts (`next`, a page number), whatever a real
 * paging would: its text stands as the next-page link, and the page number is asked for.
 */
const TEST_PAGING: Paging<number, { readonly page: number | null }> = {
  style: "next link",
  request: (page) => ({ params: { page } }),
  next: (list) => ({ next: list?.nextLink ? Number(list.nextLink) : null, warnings: [] }),
};

function readAnswer<R>(answers: readonly Answer[]): PageRecords<R> {
  const { records, next } = answers[0]?.body as { records: R[]; next: number | null };
  return {
    records,
    list: { ...readListPage(records), nextLink: next === null ? null : `${next}` },
  };
}

/**
 * A stream of one day over sales.trend_totals whose one page holds `records`, made rows by
 * `rows`: for what the load makes of records, not of pages.
 */
function oneDayStream<R>(name: string, day: string, records: R[], rows: (record: R) => Row[]) {
  return defineStream<Partition, R, typeof TEST_PAGING>({
    name,
    family: "trends",
    paging: TEST_PAGING,
    partitions: () => [{ key: day, day }],
    fetch: async () => {
      await Promise.resolve();
      return answer({ records, next: null });
    },
    read: readAnswer,
    outputs: [
      {
        target: { table: "sales.trend_totals", key: ["day", "selection_type"] },
        mode: "upsert",
        rows,
      },
    ],
  });
}

/** A stream over sales.trend_totals whose fetch is the test's: the runner is what is tested. */
function testStream(
  name: string,
  days: string[],
  fetch: (day: string, cursor: unknown) => unknown,
) {
  return defineStream<Partition & { day: string }, { day: string; n: number }, typeof TEST_PAGING>({
    name,
    family: "trends",
    paging: TEST_PAGING,
    partitions: () => days.map((day) => ({ key: day, day })),
    fetch: async (_context, partition, page) => {
      await Promise.resolve();
      return answer(fetch(partition.day, page.params.page));
    },
    read: readAnswer,
    outputs: [
      {
        target: {
          table: "sales.trend_totals",
          key: ["day", "selection_type"],
        },
        mode: "upsert",
        rows: (record) => [
          { day: record.day, selection_type: "dsp", stream_count: record.n, raw: record },
        ],
      },
    ],
  });
}

function deps(maxConcurrency = 4, writeBatchRows = 5_000, writeBatchBytes = 2 ** 21) {
  return {
    db: warehouse.db,
    api: {} as ApiClient,
    logger: createLogger({ level: "silent", secrets: [] }),
    config: etlConfigSchema.parse({
      start_date: "2026-01-01",
      max_concurrency: maxConcurrency,
      write_batch_rows: writeBatchRows,
      write_batch_bytes: writeBatchBytes,
    }),
    today: "2026-02-01",
  };
}

/** Page `cursor` (0, 1, ...) of a partition: records on two days of `month` per page. */
function twoDaysPerPage(month: string, cursor: unknown, pages: number) {
  const page = (cursor as number | null) ?? 0;
  const day = (i: number) => `${month}-${String(page * 2 + i + 1).padStart(2, "0")}`;
  return {
    records: [0, 1].map((i) => ({ day: day(i), n: page })),
    next: page + 1 < pages ? page + 1 : null,
  };
}

/** A stream of `pages` pages of 300 trend items of one day: page p holds items 300p..300p+299. */
function itemsStream(name: string, day: string, pages: number, countOf = (i: number) => i) {
  return defineStream<Partition, number, typeof TEST_PAGING>({
    name,
    family: "trends",
    paging: TEST_PAGING,
    partitions: () => [{ key: `${name}|${day}`, day }],
    fetch: async (_context, _partition, asked) => {
      await Promise.resolve();
      const page = asked.params.page ?? 0;
      return answer({
        records: Array.from({ length: 300 }, (_, i) => page * 300 + i),
        next: page + 1 < pages ? page + 1 : null,
      });
    },
    read: readAnswer,
    outputs: [
      {
        target: {
          table: "sales.trend_items",
          key: ["day", "selection_type", "sale_type", "item_id"],
        },
        mode: "upsert",
        rows: (i) => [
          {
            day,
            selection_type: "asset",
            sale_type: "stream",
            item_id: `a${i}`,
            count: countOf(i),
            raw: { i },
          },
        ],
      },
    ],
  });
}

/** Data rows of a day whose version is not the transaction's that checkpointed their partition. */
async function rowsOutsideCheckpointVersion(stream: string, day: string): Promise<number> {
  const [row] = await warehouse.query<{ n: number }>(
    `select count(*)::int as n from sales.trend_items t, etl.stream_state s
      where t.day = $2 and s.stream = $1 and t.xmin::text <> s.xmin::text`,
    [stream, day],
  );
  return row?.n ?? -1;
}

/** A partition's state rows: [partition, last_status]. */
async function stateRows(stream: string): Promise<[string, string][]> {
  const rows = await warehouse.query<{ partition: string; last_status: string }>(
    "select partition, last_status from etl.stream_state where stream = $1 order by partition",
    [stream],
  );
  return rows.map((r) => [r.partition, r.last_status]);
}

/**
 * Makes Postgres itself refuse one partition's audit row: its opening (insert), or any change to
 * it (update: closing it as succeeded, and as failed too), as a database that fails for a moment
 * would.
 */
async function refuseInSyncRuns(
  operation: "insert" | "update",
  stream: string,
  partition: string,
): Promise<void> {
  const name = `refuse_${stream.replace(/\W/g, "_")}`;
  await warehouse.query(`
    create function etl.${name}() returns trigger language plpgsql as $$
    begin
      if new.stream = '${stream}' and new.partition = '${partition}' then
        raise exception 'refused by the test';
      end if;
      return new;
    end $$`);
  await warehouse.query(
    `create trigger ${name} before ${operation} on etl.attempts for each row execute function etl.${name}()`,
  );
}

describe("the runner", () => {
  it("records a failed partition with its error, and the other partitions go on", async () => {
    const stream = testStream("failing", ["2026-01-01", "2026-01-02", "2026-01-03"], (day) => {
      if (day === "2026-01-02") throw new UpstreamStatusError(request, 500, "boom", null);
      return { records: [{ day, n: 1 }], next: null };
    });
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-01", to: "2026-01-03" });
    expect(summary?.partitions).toBe(3);
    expect(summary?.failed.map((f) => f.partition)).toEqual(["2026-01-02"]);
    const runs = await warehouse.query<{ partition: string; status: string; error: string | null }>(
      "select partition, status, error from etl.attempts where stream = 'failing' order by partition",
    );
    expect(runs.map((r) => [r.partition, r.status])).toEqual([
      ["2026-01-01", "succeeded"],
      ["2026-01-02", "failed"],
      ["2026-01-03", "succeeded"],
    ]);
    expect(runs[1]?.error).toContain("HTTP 500: boom");
    const state = await warehouse.query<{ partition: string; last_status: string }>(
      "select partition, last_status from etl.stream_state where stream = 'failing' order by partition",
    );
    expect(state.map((s) => s.last_status)).toEqual(["succeeded", "failed", "succeeded"]);
    const days = await warehouse.query<{ day: string }>(
      "select day::text from sales.trend_totals where selection_type = 'dsp' order by day",
    );
    expect(days.map((d) => d.day)).toEqual(["2026-01-01", "2026-01-03"]);
  });

  it("stops the whole run at the first refused credential", async () => {
    const attempted: string[] = [];
    const stream = testStream("refused", ["2026-01-04", "2026-01-05", "2026-01-06"], (day) => {
      attempted.push(day);
      throw new AuthError(request, "Invalid token");
    });
    // One request slot: two partitions in flight (one may write while the other fetches).
    await expect(
      runSync(deps(1), [stream], { from: "2026-01-04", to: "2026-01-06" }),
    ).rejects.toBeInstanceOf(AuthError);
    expect(attempted.sort()).toEqual(["2026-01-04", "2026-01-05"]);
    // Not a failure of the partition: interrupted, with the reason, and its state left alone.
    const runs = await warehouse.query<{ partition: string; status: string; error: string }>(
      "select partition, status, error from etl.attempts where stream = 'refused' order by 1",
    );
    expect(runs.map((r) => [r.partition, r.status])).toEqual([
      ["2026-01-04", "interrupted"],
      ["2026-01-05", "interrupted"],
    ]);
    expect(runs[0]?.error).toContain("refused the credential");
    expect(await stateRows("refused")).toEqual([]);
  });

  it("records the partitions a stop cuts short as interrupted, never failed, and starts no other", async () => {
    const days = ["2026-06-01", "2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05"];
    const stop = new AbortController();
    let started = 0;
    const stream: Stream = {
      ...testStream("stopped", days, () => null),
      fetch: async ({ call }) => {
        started += 1;
        if (started === 2) stop.abort(new Error("stopped by SIGTERM"));
        // A request in flight when the stop comes is cancelled by it.
        return new Promise((_, reject) => {
          const signal = call.signal as AbortSignal;
          if (signal.aborted) reject(signal.reason as Error);
          signal.addEventListener("abort", () => reject(signal.reason as Error));
        });
      },
    };
    const [summary] = await runSync({ ...deps(1), signal: stop.signal }, [stream], {
      from: days[0] ?? "",
      to: days.at(-1) ?? "",
    });
    expect(started).toBe(2);
    expect(summary).toMatchObject({ partitions: 2, interrupted: 2, failed: [] });
    const runs = await warehouse.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from etl.attempts where stream = 'stopped' group by status",
    );
    expect(runs).toEqual([{ status: "interrupted", n: 2 }]);
    expect(await stateRows("stopped")).toEqual([]);
  });

  it("fails only the partition whose audit row Postgres refuses to open, and goes on", async () => {
    await refuseInSyncRuns("insert", "open-refused", "2026-07-02");
    const days = ["2026-07-01", "2026-07-02", "2026-07-03"];
    const stream = testStream("open-refused", days, (day) => ({
      records: [{ day, n: 7 }],
      next: null,
    }));
    const [summary] = await runSync(deps(), [stream], { from: days[0] ?? "", to: "2026-07-03" });
    expect(summary?.partitions).toBe(3);
    expect(summary?.failed.map((f) => f.partition)).toEqual(["2026-07-02"]);
    expect(String(summary?.failed[0]?.error)).toContain("refused by the test");
    expect(await stateRows("open-refused")).toEqual([
      ["2026-07-01", "succeeded"],
      ["2026-07-02", "failed"],
      ["2026-07-03", "succeeded"],
    ]);
  });

  it("fails only the partition whose closing writes Postgres refuses, even the failure's", async () => {
    await refuseInSyncRuns("update", "close-refused", "2026-07-05");
    const days = ["2026-07-04", "2026-07-05", "2026-07-06"];
    const stream = testStream("close-refused", days, (day) => ({
      records: [{ day, n: 8 }],
      next: null,
    }));
    const [summary] = await runSync(deps(), [stream], { from: days[0] ?? "", to: "2026-07-06" });
    expect(summary?.failed.map((f) => f.partition)).toEqual(["2026-07-05"]);
    const runs = await warehouse.query<{ partition: string; status: string; error: string | null }>(
      "select partition, status, error from etl.attempts where stream = 'close-refused' order by partition",
    );
    // Nothing could record its end: its attempt stays running until it is picked up again.
    expect(runs.map((r) => [r.partition, r.status])).toEqual([
      ["2026-07-04", "succeeded"],
      ["2026-07-05", "running"],
      ["2026-07-06", "succeeded"],
    ]);
    expect(String(summary?.failed[0]?.error)).toContain("refused by the test");
    // Its rows were in the refused transaction: none of them is stored.
    const stored = await warehouse.query<{ day: string }>(
      "select day::text from sales.trend_totals where stream_count = 8 order by day",
    );
    expect(stored.map((r) => r.day)).toEqual(["2026-07-04", "2026-07-06"]);
  });

  it("fails a partition whose upstream returns the same page forever, instead of looping", async () => {
    const stream = testStream("ignores-offset", ["2026-01-07"], (day, cursor) => ({
      records: [{ day, n: 1 }],
      next: ((cursor as number | null) ?? 0) + 1,
    }));
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-07", to: "2026-01-07" });
    expect(summary?.failed[0]?.error).toBeInstanceOf(Error);
    expect(String(summary?.failed[0]?.error)).toContain("same page again");
  });

  it("keeps the rows of a partition's earlier pages consistent when a later page fails", async () => {
    const stream = testStream("second-page-fails", ["2026-01-08"], (day, cursor) => {
      if (cursor === 1) throw new UpstreamStatusError(request, 503, "unavailable", null);
      return { records: [{ day, n: 5 }], next: 1 };
    });
    const [summary] = await runSync(deps(), [stream], { from: "2026-01-08", to: "2026-01-08" });
    expect(summary?.failed).toHaveLength(1);
    const [state] = await warehouse.query<{ last_status: string; checkpoint: unknown }>(
      "select last_status, checkpoint from etl.stream_state where stream = 'second-page-fails'",
    );
    // Not checkpointed: the next run syncs the partition again from its first page.
    expect(state).toEqual({ last_status: "failed", checkpoint: {} });
  });

  it.each([
    ["write_batch_rows", [4, 4]],
    // A page of two records is a response of about 75 bytes: the second page passes 100.
    ["write_batch_bytes", [4, 5_000, 100]],
  ])(
    "writes a partition's rows in batches of %s: a later failure keeps the batches already written",
    async (bound, bounds) => {
      const stream = testStream(`batched_${bound}`, ["2026-02-01"], (_day, cursor) => {
        if (cursor === 3) throw new UpstreamStatusError(request, 503, "unavailable", null);
        return twoDaysPerPage("2026-02", cursor, 5);
      });
      await warehouse.query(
        "delete from sales.trend_totals where day between '2026-02-01' and '2026-02-28'",
      );
      // Pages of 2 rows: pages 0-1 are written, page 2 was read but not yet written.
      const [summary] = await runSync(deps(...bounds), [stream], {
        from: "2026-02-01",
        to: "2026-02-01",
      });
      expect(summary?.failed).toHaveLength(1);
      const stored = await warehouse.query<{ day: string }>(
        "select day::text from sales.trend_totals where selection_type = 'dsp' and day between '2026-02-01' and '2026-02-28' order by day",
      );
      expect(stored.map((r) => r.day)).toEqual([
        "2026-02-01",
        "2026-02-02",
        "2026-02-03",
        "2026-02-04",
      ]);
    },
  );

  it("writes a page larger than write_batch_rows a batch at a time, its responses with the first", async () => {
    const days = ["2026-03-01", "2026-03-02", null, "2026-03-03", "2026-03-04", "2026-03-05"];
    const stream = oneDayStream("page-in-batches", "2026-03-01", days, (day) => {
      if (day === "2026-03-05") throw new Error("the reader fails on the page's last record");
      return [{ day, selection_type: "dsp", stream_count: 1, raw: { day } }];
    });
    const outcome = await syncPartition(deps(4, 2), stream, {
      key: "2026-03-01",
      day: "2026-03-01",
    });
    expect(outcome.status).toBe("failed");
    // Rows of two full batches were written before the reader failed on the page's last record;
    // read all at once, the page would have written none.
    const stored = await warehouse.query<{ day: string }>(
      "select day::text from sales.trend_totals where day between '2026-03-01' and '2026-03-31' order by day",
    );
    expect(stored.map((r) => r.day)).toEqual([
      "2026-03-01",
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
    ]);
    // The record without a key, read after the page's responses were landed with the first
    // batch, is quarantined by the second with that response.
    const rejected = await warehouse.query<{ matches: boolean }>(
      `select r.response_id = s.response_id as matches
         from etl.rejected_records r join etl.responses s on s.stream = r.stream
        where r.stream = 'page-in-batches'`,
    );
    expect(rejected).toEqual([{ matches: true }]);
  });

  it("writes a column that only a later row of the batch has, and nulls none a row lacks", async () => {
    const days = ["2026-08-11", "2026-08-12"];
    let served: { day: string | undefined; downloads?: number }[] = [
      { day: days[0] },
      { day: days[1], downloads: 7 },
    ];
    const stream = defineStream<Partition, { day: string; downloads?: number }, typeof TEST_PAGING>(
      {
        name: "later-column",
        family: "trends",
        paging: TEST_PAGING,
        partitions: () => [{ key: "later-column" }],
        fetch: async () => {
          await Promise.resolve();
          return answer({ records: served, next: null });
        },
        read: readAnswer,
        outputs: [
          {
            target: { table: "sales.trend_totals", key: ["day", "selection_type"] },
            mode: "upsert",
            rows: ({ day, downloads }) => [
              {
                day,
                selection_type: "dsp",
                ...(downloads === undefined ? {} : { download_count: downloads }),
                raw: { day },
              },
            ],
          },
        ],
      },
    );
    const outcome = await syncPartition(deps(), stream, { key: "later-column" });
    expect(outcome.status).toBe("succeeded");
    const stored = await warehouse.query<{ day: string; download_count: string | null }>(
      `select day::text, download_count::text from sales.trend_totals
        where selection_type = 'dsp' and day between '2026-08-11' and '2026-08-12' order by day`,
    );
    expect(stored).toEqual([
      { day: "2026-08-11", download_count: null },
      { day: "2026-08-12", download_count: "7" },
    ]);
    // A later read whose rows do not name the column leaves what was stored in it.
    served = [{ day: days[1] }];
    expect((await syncPartition(deps(), stream, { key: "later-column" })).status).toBe("succeeded");
    const [kept] = await warehouse.query<{ download_count: string | null }>(
      `select download_count::text from sales.trend_totals
        where selection_type = 'dsp' and day = '2026-08-12'`,
    );
    expect(kept?.download_count).toBe("7");
  });

  it("counts an untyped value read twice from one place (key and column) once", async () => {
    const day = "2026-08-01";
    const stream = oneDayStream(
      "read-twice",
      day,
      [
        { day, n: "n/a" },
        { day: "2026-08-02", n: "n/a" },
      ],
      (record) => [
        {
          day: record.day,
          selection_type: "dsp",
          stream_count: toInteger(record.n),
          download_count: toInteger(record.n),
          raw: record,
        },
      ],
    );
    const outcome = await syncPartition(deps(), stream, { key: day, day });
    expect(outcome.status).toBe("succeeded");
    expect(outcome.untyped).toEqual([
      { field: "n", expected: "integer", count: 2, examples: ['"n/a"'] },
    ]);
  });

  it("types the fields a reader does not look for, and warns only of values it could not type", async () => {
    const day = "2026-08-03";
    const records: Record<string, unknown>[] = [
      // One field read holds a value that cannot be typed: a warning.
      { selection: "dsp", streams: "n/a" },
      // Renamed upstream: the reader asks for `streams`, `downloads`; neither is there, and the
      // fields that are become columns of their own, named as the upstream names them.
      { selection: "asset", stream_total: 5, download_total: 2 },
      { selection: "label" },
    ];
    const stream = oneDayStream("renamed-fields", day, records, (record) => [
      {
        day,
        selection_type: String(record.selection),
        stream_count: toInteger(record.streams),
        download_count: toInteger(record.downloads),
        raw: record,
      },
    ]);
    const outcome = await syncPartition(deps(), stream, { key: day, day });
    expect(outcome.status).toBe("succeeded");
    expect(outcome.warnings.map((w) => w.kind)).toEqual(["untyped"]);
    expect(
      await warehouse.query(
        `select selection_type, stream_total, download_total from sales.trend_totals
          where day = $1 order by selection_type`,
        [day],
      ),
    ).toEqual([
      { selection_type: "asset", stream_total: "5", download_total: "2" },
      { selection_type: "dsp", stream_total: null, download_total: null },
      { selection_type: "label", stream_total: null, download_total: null },
    ]);
    const [state] = await warehouse.query<{ warnings: { kind: string }[] }>(
      "select warnings from etl.stream_state where stream = 'renamed-fields'",
    );
    expect(state?.warnings.map((w) => w.kind)).toEqual(["untyped"]);
  });

  it("writes a partition smaller than a batch once, at its end, and times its phases", async () => {
    const pages: unknown[] = [];
    const stream = testStream("timed", ["2026-03-01"], (_day, cursor) => {
      pages.push(cursor);
      return twoDaysPerPage("2026-03", cursor, 3);
    });
    const slowStream = {
      ...stream,
      fetch: async (...args: Parameters<typeof stream.fetch>) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return stream.fetch(...args);
      },
    };
    const outcome = await syncPartition(deps(), slowStream, {
      key: "2026-03-01",
      day: "2026-03-01",
    });
    expect(outcome.status).toBe("succeeded");
    expect(outcome.rowsWritten).toBe(6);
    // One transaction for the whole partition: every row has the same xmin.
    const [versions] = await warehouse.query<{ n: number }>(
      "select count(distinct xmin::text)::int as n from sales.trend_totals where day between '2026-03-01' and '2026-03-31'",
    );
    expect(versions?.n).toBe(1);
    expect(pages).toEqual([null, 1, 2]);
    // Each of the three pages' fetches sleeps 40 ms: the fetch phase holds them (a machine's
    // load can only lengthen it), and the write took some time of its own.
    expect(outcome.timings.fetchMs).toBeGreaterThanOrEqual(3 * 39);
    expect(outcome.timings.writeMs).toBeGreaterThan(0);
  });

  // A partition smaller than write_batch_rows is written by the transaction that checkpoints it.
  // COPY runs there under a savepoint, so copied rows carry a subtransaction's version, merged
  // rows the version of that transaction itself, which also wrote the partition's state.
  it("copies the rows of a partition that never ran straight in, and merges them once it has", async () => {
    const day = "2026-04-01";
    const partition = { key: `copied|${day}`, day };
    const first = await syncPartition(deps(), itemsStream("copied", day, 3), partition);
    expect(first).toMatchObject({ status: "succeeded", rowsWritten: 900 });
    expect(await rowsOutsideCheckpointVersion("copied", day)).toBe(900);

    const changed = itemsStream("copied", day, 3, (i) => (i % 3 === 0 ? -i - 1 : i));
    const again = await syncPartition(deps(), changed, partition);
    expect(again).toMatchObject({ status: "succeeded", rowsWritten: 300 });
    expect(await rowsOutsideCheckpointVersion("copied", day)).toBe(600);
    const [negative] = await warehouse.query<{ n: number }>(
      "select count(*)::int as n from sales.trend_items where day = $1 and count < 0",
      [day],
    );
    expect(negative?.n).toBe(300);
  });

  it("merges the rows of a partition that never ran when one of its keys proves stored", async () => {
    const day = "2026-04-02";
    // Another partition stored the first 300 items, with other counts, first.
    await syncPartition(
      deps(),
      itemsStream("first-writer", day, 1, (i) => i + 1),
      {
        key: `first-writer|${day}`,
        day,
      },
    );
    const outcome = await syncPartition(deps(), itemsStream("second-writer", day, 4), {
      key: `second-writer|${day}`,
      day,
    });
    // 300 rows changed, 900 new: every one written once, none lost or doubled.
    expect(outcome).toMatchObject({ status: "succeeded", rowsWritten: 1_200 });
    const stored = await warehouse.query<{ n: number; wrong: number }>(
      `select count(*)::int as n,
              count(*) filter (where count <> substr(item_id, 2)::int)::int as wrong
         from sales.trend_items where day = $1`,
      [day],
    );
    expect(stored).toEqual([{ n: 1_200, wrong: 0 }]);
    expect(await rowsOutsideCheckpointVersion("second-writer", day)).toBe(0);
  });
});
