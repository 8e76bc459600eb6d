import { describe, expect, it } from "vitest";
import { columnNameOf } from "../../src/columns/column-names.js";
import { fieldPath, forEachField, pathKey } from "../../src/columns/record-fields.js";
import { ColumnDiscovery } from "../../src/columns/column-discovery.js";
import type { DiscoveredColumns } from "../../src/columns/discovered-columns.js";

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
      // A declared column of a field's name holds it: found by the name made for the field.
      discovery.note({ raw: record, parent11999__inner_name11999: 11999, field0: 0 }, {});
      const wanted = discovery.wanted().map((w) => w.field.join("."));
      expect(wanted).toHaveLength(24_000 - 1);
      expect(wanted).not.toContain("parent11999.innerName11999");
      expect(wanted).toContain("parent11998.innerName11998");
      expect(wanted).toContain("wide.field0");
    }
  });
});

describe("a load's discovered columns", () => {
  it("hold a repeated day once it fits and still refuse each value that does not, column by column", () => {
    const discovery = new ColumnDiscovery(
      null,
      known([["released"], "date"], [["code"], "bigint"]),
    );
    const misfits: [string, unknown][] = [];
    const values = ["2026-01-05", "soon", "soon", "2026-01-05", "2026-02-30"];
    const completed = values.map((released) => {
      const row = discovery.complete({ raw: { released, code: released } }, (field, _e, value) =>
        misfits.push([field, value]),
      );
      return [row.released, row.code];
    });
    expect(completed).toEqual([
      ["2026-01-05", null],
      [null, null],
      [null, null],
      ["2026-01-05", null],
      [null, null],
    ]);
    expect(misfits.filter(([field]) => field === "released").map(([, v]) => v)).toEqual([
      "soon",
      "soon",
      "2026-02-30",
    ]);
    expect(misfits.filter(([field]) => field === "code")).toHaveLength(5);
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
