import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeepJson, JsonDecimal, jsonText, parseJsonBody } from "../../src/json/json-body.js";
import {
  columnTypes,
  storableJson,
  storableRow,
  storableText,
  storableTextOf,
} from "../../src/warehouse/storable-values.js";
import { toArrayLiteral } from "../../src/warehouse/array-literal.js";
import { upsertRows } from "../../src/warehouse/write-rows.js";
import { createTestWarehouse, type TestWarehouse } from "../helpers/warehouse.js";

// The check of what a column can hold is only right if Postgres agrees with it: every value
// below is both checked and tried, one row at a time, against a real table of every type.

const COLUMNS: Record<string, string> = {
  small: "smallint",
  whole: "integer",
  big: "bigint",
  amount: "numeric",
  ratio: "double precision",
  title: "text",
  code: "varchar(3)",
  day: "date",
  at: "timestamptz",
  flag: "boolean",
  names: "text[]",
  ids: "bigint[]",
  raw: "jsonb",
};

const TEXT_COLUMNS = new Set(["title", "code"]);

const HOSTILE: Record<string, unknown[]> = {
  small: [32767, -32768, 32768, "40000", 1.5],
  whole: [2147483647, 2147483648, -2147483649, "12", new JsonDecimal("3000000000")],
  big: [
    "9223372036854775807",
    "9223372036854775808",
    new JsonDecimal("123456789012345678901234567890"),
    Number.MAX_SAFE_INTEGER,
  ],
  amount: [
    new JsonDecimal("123456789012345678901234567890.1234"),
    "1e131071",
    "1e131072",
    "1e-16383",
    "1e-16384",
    "0.1e-16383",
    "0e-20000",
    new JsonDecimal("1e400"),
  ],
  ratio: [new JsonDecimal("1e308"), new JsonDecimal("1e309"), "1e-400", "0.0", 1.5],
  title: ["plain", "nul \u0000 inside", "lone \ud800 high", "lone \udc00 low", "pair 😀", ""],
  code: ["abc", "abcd", "😀😀😀", "😀😀😀😀"],
  day: ["2026-01-01", "0001-01-01", "0000-01-01", new Date(Date.UTC(-4712, 0, 1))],
  at: ["2026-01-01T00:00:00Z", new Date(Date.UTC(-5000, 0, 1))],
  flag: [true, false],
  // Array columns are written as literals (the artists' ids, from columns already stored).
  names: [toArrayLiteral(["a", "b"]), toArrayLiteral(["a", "b\u0000"]), toArrayLiteral([])],
  ids: [toArrayLiteral([1, "2"])],
};

describe("values a column can hold, as Postgres sees them", () => {
  let warehouse: TestWarehouse;

  beforeAll(async () => {
    warehouse = await createTestWarehouse("storable_values");
    const columns = Object.entries(COLUMNS).map(([name, type]) => `${name} ${type}`);
    await warehouse.query(
      `create table public.hostile (id int primary key, ${columns.join(", ")}, synced_at timestamptz not null default now())`,
    );
  });
  afterAll(() => warehouse.drop());

  /** Whether Postgres stores the value as sent (the driver makes a lone surrogate U+FFFD). */
  async function holds(column: string, id: number, value: unknown): Promise<boolean> {
    const target = { table: "public.hostile", key: ["id"], columns: [column] };
    const stored = await upsertRows(warehouse.db as unknown as Kysely<unknown>, target, [
      { id, [column]: value },
    ]).then(
      () => true,
      () => false,
    );
    if (!stored || !TEXT_COLUMNS.has(column)) return stored;
    const [row] = await warehouse.query(`select ${column} from public.hostile where id = $1`, [id]);
    return row?.[column] === value;
  }

  it("keeps exactly the values Postgres accepts, and nulls the rest", async () => {
    const types = await columnTypes(warehouse.db, "public.hostile");
    expect(types.get("code")).toEqual({ type: "varchar", maxLength: 3 });
    let id = 0;
    const disagreements: string[] = [];
    for (const [column, values] of Object.entries(HOSTILE)) {
      for (const value of values) {
        id += 1;
        const { row, changes } = storableRow({ id, [column]: value }, types);
        const held = await holds(column, id, value);
        const kept = changes.length === 0;
        if (kept !== held) {
          disagreements.push(
            `${column} ${jsonText(value)}: kept ${kept}, Postgres holds it ${held}`,
          );
        }
        if (!kept) {
          expect(row[column]).toBeNull();
          expect(changes).toEqual([{ column, expected: expect.any(String) as string, value }]);
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("stores any JSON, changing only what jsonb cannot hold, and says what changed", async () => {
    const body = parseJsonBody(
      `{"title": "a\\u0000b", "lone": "\\ud800", "big": 123456789012345678901234567890,
        "huge": 1e200000, "ok": [1, "x", {"n": 2.50}],
        "nested": ${"[".repeat(10_000)}1${"]".repeat(10_000)}, "k\\u0000ey": 1}`,
    ) as Record<string, unknown>;
    const { value, changed } = storableJson(body);
    const stored = value as Record<string, unknown>;
    expect(changed).toEqual(["a\u0000b", "\ud800", body.huge, body.nested, "k\u0000ey"]);
    expect(stored.title).toBe("a\ufffdb");
    expect(stored.lone).toBe("\ufffd");
    expect(stored.huge).toBe("1e200000");
    expect(stored["k\ufffdey"]).toBe(1);
    expect(stored.ok).toBe(body.ok);
    const [row] = await warehouse.query<{ big: string; nested: string; depth: number }>(
      `select $1::jsonb->>'big' as big, $1::jsonb as raw`,
      [jsonText(value)],
    );
    // The 30 digits as sent, not the double closest to them.
    expect(row?.big).toBe("123456789012345678901234567890");
    // Kept as structure down to MAX_JSON_DEPTH (the record is the first level), as text below.
    expect(jsonText(value)).toContain(`${"[".repeat(255)}"${"[".repeat(10_000 - 255)}1`);
  });

  it("keeps a number's digits and a too-deep part's text from the body", () => {
    const body = parseJsonBody(
      `[12.30, 99999999999999999999, ${'{"a":'.repeat(300)}1${"}".repeat(300)}]`,
    ) as unknown[];
    expect(body[0]).toEqual(new JsonDecimal("12.30"));
    expect(body[1]).toEqual(new JsonDecimal("99999999999999999999"));
    let part = body[2];
    for (let depth = 1; depth < 256; depth += 1) part = (part as { a: unknown }).a;
    expect(part).toEqual(new DeepJson(`${'{"a":'.repeat(300 - 255)}1${"}".repeat(300 - 255)}`));
    expect(JSON.parse(jsonText(body)) as unknown[]).toHaveLength(3);
  });

  it("tells text Postgres can hold from text it cannot", () => {
    expect([storableText("😀"), storableText("a\u0000"), storableText("\udfff")]).toEqual([
      true,
      false,
      false,
    ]);
    expect(storableTextOf("x\u0000\ud83d")).toBe("x\ufffd\ufffd");
  });
});
