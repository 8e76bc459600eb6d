import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replaySources, type ReplaySourceRow } from "../../src/warehouse/replay-sources.js";
import type { Database } from "../../src/warehouse/schema.js";
import { type PlanNode, rowsExamined } from "../helpers/plan-work.js";
import { createTestWarehouse, queriesSent, type TestWarehouse } from "../helpers/warehouse.js";

interface Attempt {
  readonly id: number;
  readonly stream: string;
  readonly partition: string;
  /** A daily partition's day; null for one of no day (its syncs count by extracted_on). */
  readonly day: string | null;
  readonly extractedOn: string;
  readonly kind: "sync" | "replay";
  readonly status: "succeeded" | "failed";
  readonly landed: boolean;
}

const DAYS = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"];

const day = (i: number) => DAYS[i % DAYS.length] ?? "";

/** Attempts of two streams, daily partitions and others, interleaved as workers record them. */
function attempts(): Attempt[] {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    // The high bits: a power-of-two modulus leaves the low ones a short cycle.
    return Math.floor(seed / 65_536) % n;
  };
  return Array.from({ length: 400 }, (_, i) => {
    const daily = next(3) > 0;
    const partition = daily ? `p${next(12)}` : `whole${next(3)}`;
    return {
      id: i + 1,
      stream: next(4) === 0 ? "other" : "trends",
      partition,
      day: daily ? day(Number(partition.slice(1))) : null,
      extractedOn: day(next(DAYS.length)),
      kind: next(5) === 0 ? "replay" : "sync",
      status: next(6) === 0 ? "failed" : "succeeded",
      landed: next(10) > 0,
    };
  });
}

/** What replaySources must give, by the plain reading of its contract. */
function expected(
  all: readonly Attempt[],
  scope: "partition" | "day" | "all",
  range: { from?: string; to?: string },
): string[] {
  const kept = all.filter((a) => {
    const countedOn = a.day ?? a.extractedOn;
    return (
      a.stream === "trends" &&
      a.kind === "sync" &&
      a.status === "succeeded" &&
      a.landed &&
      (range.from === undefined || countedOn >= range.from) &&
      (range.to === undefined || countedOn <= range.to)
    );
  });
  const group = (a: Attempt) =>
    scope === "partition"
      ? a.partition
      : scope === "day"
        ? `${a.partition} ${a.extractedOn}`
        : a.id;
  const last = new Map<string | number, Attempt>();
  for (const a of kept) if ((last.get(group(a))?.id ?? 0) < a.id) last.set(group(a), a);
  return [...last.values()].sort((a, b) => a.id - b.id).map((a) => String(a.id));
}

let warehouse: TestWarehouse;
const ALL = attempts();

beforeAll(async () => {
  warehouse = await createTestWarehouse("replay_sources");
  for (const a of ALL) {
    await warehouse.query(
      `insert into etl.attempts
         (attempt_id, stream, partition, status, kind, response_ids, partition_data, extracted_on)
       overriding system value
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        a.id,
        a.stream,
        a.partition,
        a.status,
        a.kind,
        a.landed ? [String(a.id)] : null,
        a.day === null ? {} : { day: a.day },
        a.extractedOn,
      ],
    );
  }
});

afterAll(() => warehouse.drop());

async function read(
  scope: "partition" | "day" | "all",
  range: { from?: string; to?: string },
  slice: number,
): Promise<{ ids: string[]; slices: ReplaySourceRow[][] }> {
  const slices: ReplaySourceRow[][] = [];
  for await (const rows of replaySources(warehouse.db, "trends", scope, range, slice))
    slices.push(rows);
  return { ids: slices.flat().map((row) => row.attemptId), slices };
}

describe("replaySources", () => {
  const ranges = [
    {},
    { from: "2026-03-02" },
    { to: "2026-03-02" },
    { from: "2026-03-03", to: "2026-03-03" },
  ];
  describe.each(["partition", "day", "all"] as const)("%s", (scope) => {
    it.each(ranges)(
      "gives the last successful landed syncs within %o, oldest first",
      async (range) => {
        const want = expected(ALL, scope, range);
        expect(want.length).toBeGreaterThan(0);
        for (const slice of [1, 3, 1_000]) {
          const { ids, slices } = await read(scope, range, slice);
          expect(ids).toEqual(want);
          expect(slices.every((rows) => rows.length > 0 && rows.length <= slice)).toBe(true);
        }
      },
    );
  });

  it("carries each sync's partition, its data, its day and its responses", async () => {
    const { slices } = await read("all", {}, 1_000);
    const first = slices[0]?.[0];
    const source = ALL.find((a) => String(a.id) === first?.attemptId);
    expect(first).toEqual({
      attemptId: String(source?.id),
      partition: source?.partition,
      partitionData: source?.day === null ? {} : { day: source?.day },
      extractedOn: source?.extractedOn,
      responseIds: [String(source?.id)],
      pages: null,
    });
  });
});

describe("a slice's statement", () => {
  const SLICE = 100;

  beforeAll(async () => {
    // 400 partitions synced 10 times each, beside the attempts above.
    await warehouse.query(
      `insert into etl.attempts
         (attempt_id, stream, partition, status, kind, response_ids, partition_data, extracted_on)
       overriding system value
       select 10000 + i, 'dense', 'p' || (i % 400), 'succeeded', 'sync', array[10000 + i]::bigint[],
              '{}', '2026-03-01'
         from generate_series(1, 4000) as i`,
    );
    await warehouse.query("alter table etl.attempts set (autovacuum_enabled = false)");
  });

  it.each(["without", "with"])(
    "looks at what the slice holds, not at the stream's history, %s statistics",
    async (statistics) => {
      // A warehouse just backfilled, or whose autovacuum is off, has none.
      await warehouse.query(
        statistics === "with"
          ? "analyze etl.attempts"
          : "delete from pg_statistic where starelid = 'etl.attempts'::regclass",
      );
      for (const scope of ["partition", "day"] as const) {
        const [first] = await queriesSent<Database>(warehouse.url, async (db) => {
          for await (const rows of replaySources(db, "dense", scope, {}, SLICE)) {
            expect(rows.length).toBeGreaterThan(0);
            break;
          }
        });
        const [explained] = await warehouse.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
          `explain (analyze, format json) ${first?.sql ?? ""}`,
          [...(first?.parameters ?? [])],
        );
        const examined = rowsExamined(explained?.["QUERY PLAN"][0].Plan as PlanNode);
        // The slice, a row or two of each sync's partition after it, and what an index by attempt
        // passes of the other stream: the stream holds 40 times the slice, and a plan that reads
        // it whole for the slice, or for each sync, is caught.
        expect(examined).toBeGreaterThanOrEqual(SLICE);
        expect(examined).toBeLessThanOrEqual(10 * SLICE);
      }
    },
  );
});
