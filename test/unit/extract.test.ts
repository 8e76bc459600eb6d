import { describe, expect, it } from "vitest";
import {
  findList,
  recordsOf,
  toInteger,
  toMoney,
  toNumber,
  toText,
  unwrapObj,
} from "../../src/api/extract.js";

describe("findList", () => {
  const items = [{ id: 1 }, { id: 2 }];
  it.each([
    ["a bare array", items],
    ["{obj: [...]}", { obj: items }],
    ["{status: true, data: [...]}", { status: true, data: items }],
    ["{obj: {length, data: [...]}}", { obj: { length: 2, data: items } }],
    [
      "totals fields with the list under any key",
      { stream_count: 3, stream_percentage: 1.5, entries: items },
    ],
  ])("finds the records in %s", (_, body) => {
    expect(findList(body)).toEqual(items);
  });

  it("prefers an array of objects to an array of names", () => {
    expect(findList({ groups: ["Total"], rows: items })).toEqual(items);
  });

  it("is null when there is no list", () => {
    expect(findList({ stream_count: 3 })).toBeNull();
    expect(findList(null)).toBeNull();
    expect(findList("text")).toBeNull();
  });

  it("keeps only object records, the rest stays in the raw body", () => {
    expect(recordsOf([{ id: 1 }, null, "x", 3])).toEqual([{ id: 1 }]);
  });
});

describe("scalar readers", () => {
  it("reads numbers from numbers and numeric strings only", () => {
    expect(toNumber(" 12.5 ")).toBe(12.5);
    expect(toNumber(-3)).toBe(-3);
    expect(toNumber("12,5")).toBeNull();
    expect(toNumber("")).toBeNull();
    expect(toNumber(null)).toBeNull();
    expect(toNumber(Number.NaN)).toBeNull();
    expect(toInteger("42")).toBe(42);
    expect(toInteger("4.2")).toBeNull();
  });

  it("reads ids given as text or number", () => {
    expect(toText(12)).toBe("12");
    expect(toText("FR")).toBe("FR");
    expect(toText("")).toBeNull();
    expect(toText({})).toBeNull();
  });

  it("keeps money exact, with two places", () => {
    expect(toMoney("12.5")).toBe("12.50");
    expect(toMoney("0012.34")).toBe("12.34");
    expect(toMoney(150)).toBe("150.00");
    expect(toMoney("-3.10")).toBe("-3.10");
    expect(toMoney("90071992547409931.99")).toBe("90071992547409931.99");
    expect(toMoney("12.345")).toBeNull();
    expect(toMoney("12,34")).toBeNull();
    expect(toMoney(null)).toBeNull();
  });

  it("opens the statistics envelope and leaves anything else alone", () => {
    expect(unwrapObj({ obj: { a: 1 } })).toEqual({ a: 1 });
    expect(unwrapObj({ a: 1 })).toEqual({ a: 1 });
    expect(unwrapObj([1])).toEqual([1]);
  });
});
