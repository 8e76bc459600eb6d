import { describe, expect, it } from "vitest";
import { columnNameOf, numberedName, snakeCase } from "../../src/columns/column-names.js";

describe("a discovered column's name", () => {
  it("is the field's name in snake case", () => {
    const names: [string, string][] = [
      ["station_name", "station_name"],
      ["mimeType", "mime_type"],
      ["modificationTime", "modification_time"],
      ["HTTPStatus", "http_status"],
      ["cm_artist", "cm_artist"],
      ["Zoë Vale", "zoe_vale"],
      ["Ünïcødé-Çafé", "unicode_cafe"],
      ["  spaced  out ", "spaced_out"],
      ["a__b", "a_b"],
      ["7day_change", "_7day_change"],
      ["日本語", "field"],
      ["_id", "id"],
    ];
    for (const [field, column] of names) expect([field, snakeCase(field)]).toEqual([field, column]);
  });

  it("joins an object's field to its name with __, and fits Postgres's 63 bytes", () => {
    expect(columnNameOf(["photo", "mimeType"])).toBe("photo__mime_type");
    const long = columnNameOf(["a".repeat(80)]);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(63);
    expect(long).not.toBe(columnNameOf(["a".repeat(81)]));
  });

  it("numbered, still fits Postgres's 63 bytes, and ends in no doubled _", () => {
    expect(numberedName("foo_bar", 2)).toBe("foo_bar_2");
    const long = numberedName(`${"a".repeat(61)}_b`, 12);
    expect(long).toBe(`${"a".repeat(60)}_12`);
    // Cut just after a `_`: that one goes, not to read as two.
    expect(numberedName(`${"a".repeat(59)}_bcd`, 12)).toBe(`${"a".repeat(59)}_12`);
  });
});
