import { describe, expect, it } from "vitest";
import { field, toInteger, toText } from "../../src/api/read-values.js";
import { fieldsRead } from "../../src/columns/fields-read.js";
import { pathKey } from "../../src/columns/record-fields.js";

const keys = (...paths: string[][]) => new Set(paths.map(pathKey));

describe("the fields a declaration reads", () => {
  it("are every field its columns ask for, nested ones by their path", () => {
    const read = (record: unknown) => {
      const r = record as Record<string, unknown>;
      void toInteger(r.id);
      void toText(r.code);
      void toText(r.country_code);
      void toText(field(r, "photo", "mimeType"));
      return record;
    };
    expect(fieldsRead(read)).toEqual(
      keys(["id"], ["code"], ["country_code"], ["photo"], ["photo", "mimeType"]),
    );
  });

  it("are relative to where the row's raw is taken from", () => {
    const read = (record: unknown) => {
      const r = record as { raw: Record<string, unknown>; key: unknown };
      void toText(r.key);
      void toText(r.raw.period);
      return r.raw;
    };
    expect(fieldsRead(read)).toEqual(keys(["period"]));
  });

  it("are found through arithmetic and text made of a field", () => {
    const read = (record: unknown) => {
      const r = record as { raw: Record<string, unknown>; step: number };
      void new Date(Date.UTC(2026, 0, 5 + r.step)).toISOString();
      void `${String(r.raw.name)}!`;
      return r.raw;
    };
    expect(fieldsRead(read)).toEqual(keys(["name"]));
  });

  it("are unknown when the reader throws or returns nothing of the record", () => {
    expect(
      fieldsRead((record) => {
        for (const item of record as unknown[]) void item;
        return record;
      }),
    ).toBeNull();
    expect(fieldsRead(() => ({}))).toBeNull();
  });
});
