import { describe, expect, it } from "vitest";
import { columnNameOf } from "../../src/schema/column-names.js";
import { fieldPath, forEachField, pathKey } from "../../src/schema/record-fields.js";
import { ColumnDiscovery } from "../../src/streams/column-discovery.js";
import type { DiscoveredColumns } from "../../src/warehouse/discovered-columns.js";

const known = (...columns: [string[], "date" | "bigint" | "text"][]): DiscoveredColumns =>
  new Map(
    columns.map(([field, kind]) => [pathKey(field), { column: columnNameOf(field), field, kind }]),
  );

describe("a record's fields", () => {
  it("keep their path's key and their column's name past what the process remembers of them", () => {
    // More parents, and more fields of one parent, than the caches of keys and names hold.
    const record: Record<string, unknown> = { wide: {} };
    for (let i = 0; i < 12_000; i++) {
      record[`parent${i}`] = { [`innerName${i}`]: i };
      (record.wide as Record<string, unknown>)[`field${i}`] = i;
    }
    const visited: [string, string[]][] = [];
    forEachField(record, (key, _value, name, inner) =>
      visited.push([key, [...fieldPath(name, inner)]]),
    );
    expect(visited).toHaveLength(24_000);
    for (const [key, path] of visited) expect(key).toBe(pathKey(path));

    for (let load = 0; load < 2; load++) {
      const discovery = new ColumnDiscovery(null, new Map());
      discovery.note({ raw: record }, {});
      const wanted = discovery.wanted();
      expect(wanted).toHaveLength(24_000);
      expect(wanted.find((w) => w.field[0] === "parent11999")?.field).toEqual([
        "parent11999",
        "innerName11999",
      ]);
      expect(columnNameOf(["parent11999", "innerName11999"])).toBe("parent11999__inner_name11999");
    }
  });
});

describe("a load's discovered columns", () => {
  it("hold a repeated day once it fits and still refuse the value that does not", () => {
    const discovery = new ColumnDiscovery(
      null,
      known([["released"], "date"], [["plays"], "bigint"]),
    );
    const misfits: unknown[] = [];
    const values = ["2026-01-05", "2026-01-05", "soon", "2026-01-05", "2026-02-30"];
    const completed = values.map(
      (released, plays) =>
        discovery.complete({ raw: { released, plays } }, (_field, _expected, value) =>
          misfits.push(value),
        ).released,
    );
    expect(completed).toEqual(["2026-01-05", "2026-01-05", null, "2026-01-05", null]);
    expect(misfits).toEqual(["soon", "2026-02-30"]);
  });

  it("widen for a value that follows a repeated one the column held", () => {
    const discovery = new ColumnDiscovery(null, known([["released"], "date"]));
    for (const released of ["2026-01-05", "2026-01-05", "2026-01-05", "next week"]) {
      discovery.note({ raw: { released } }, {});
    }
    expect(discovery.wanted()).toEqual([
      expect.objectContaining({ field: ["released"], kind: "text" }),
    ]);
  });

  it("are read again after the table changed, its new kinds asked of values seen before", () => {
    const discovery = new ColumnDiscovery(null, known([["code"], "text"]));
    const misfits: unknown[] = [];
    const complete = () =>
      discovery.complete({ raw: { code: "A1" } }, (_f, _e, value) => misfits.push(value)).code;
    expect(complete()).toBe("A1");
    discovery.learn(known([["code"], "bigint"]));
    expect(complete()).toBeNull();
    expect(misfits).toEqual(["A1"]);
  });
});
