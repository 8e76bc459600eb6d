import { describe, expect, it } from "vitest";
import { JsonDecimal } from "../../src/json/json-body.js";
import {
  type ColumnKind,
  holds,
  kindOfValue,
  storedValue,
  widen,
} from "../../src/columns/value-kinds.js";

describe("the kind of a discovered column", () => {
  it("is read from the first value: JSON's types, and what a string plainly is", () => {
    const kinds: [unknown, ColumnKind | null][] = [
      [null, null],
      [true, "boolean"],
      [42, "bigint"],
      [-9007199254740991, "bigint"],
      [new JsonDecimal("9223372036854775807"), "bigint"],
      [new JsonDecimal("9223372036854775808"), "numeric"],
      [12.5, "numeric"],
      [new JsonDecimal("12.3400"), "numeric"],
      ["12.50", "numeric"],
      // Whole numbers sent as strings are codes as often as numbers: "0012", a UPC.
      ["12", "text"],
      ["0012.5", "text"],
      ["2026-01-31", "date"],
      ["2026-02-31", "text"],
      ["2026-01-31T10:20:30", "timestamp"],
      ["2026-01-31 10:20:30.123", "timestamp"],
      ["2026-01-31T10:20:30.000Z", "timestamptz"],
      ["2026-01-31T10:20:30+0100", "timestamptz"],
      ["2026-01-31T25:20:30Z", "text"],
      ["", "text"],
      ["Zoë Vale", "text"],
      [[1, 2], "jsonb"],
      [{ a: 1 }, "jsonb"],
    ];
    for (const [value, kind] of kinds) expect([value, kindOfValue(value)]).toEqual([value, kind]);
  });

  it("widens to hold a later value, never narrows", () => {
    const steps: [ColumnKind, unknown, ColumnKind][] = [
      ["bigint", 7, "bigint"],
      ["bigint", "7", "bigint"],
      ["bigint", 7.5, "numeric"],
      ["bigint", new JsonDecimal("1e400"), "numeric"],
      ["numeric", 7, "numeric"],
      ["numeric", "7", "numeric"],
      ["numeric", "n/a", "text"],
      ["bigint", true, "text"],
      ["boolean", 1, "text"],
      ["date", "2026-01-31T10:00:00Z", "text"],
      ["timestamptz", "2026-01-31T10:00:00", "text"],
      ["text", 12.5, "text"],
      ["text", false, "text"],
      ["text", [1], "jsonb"],
      ["bigint", { a: 1 }, "jsonb"],
      ["jsonb", "x", "jsonb"],
      ["date", null, "date"],
    ];
    for (const [kind, value, wider] of steps) {
      expect([kind, value, widen(kind, value)]).toEqual([kind, value, wider]);
      expect(holds(widen(kind, value), value)).toBe(true);
    }
  });

  it("stores each value exactly: a number's text as sent, a scalar in jsonb as JSON", () => {
    expect(storedValue("numeric", new JsonDecimal("12.3400"))).toBe("12.3400");
    expect(storedValue("text", 12.5)).toBe("12.5");
    expect(storedValue("text", true)).toBe("true");
    expect(storedValue("jsonb", "x")).toBe('"x"');
    expect(storedValue("jsonb", new JsonDecimal("1.10"))).toBe("1.10");
    expect(storedValue("jsonb", [1])).toEqual([1]);
    expect(storedValue("boolean", false)).toBe(false);
    expect(storedValue("bigint", undefined)).toBeNull();
  });
});
