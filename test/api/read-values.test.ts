import { describe, expect, it } from "vitest";
import {
  dayOfTime,
  oneOrMany,
  toDecimal,
  toInstant,
  toInteger,
  toMoney,
  toText,
} from "../../src/api/read-values.js";
import { JsonDecimal } from "../../src/json/json-body.js";
import { readListPage, recordsOf, unwrapObject } from "../../src/api/list-page.js";

const findList = (body: unknown) => {
  const page = readListPage(body);
  return page.found && page.items.length + page.otherLists.length > 0 ? page.items : null;
};

describe("readListPage", () => {
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

  it("says when there is no list, and tells an empty answer from an unrecognised one", () => {
    expect(readListPage({ stream_count: 3 }).found).toBe(false);
    expect(readListPage("text").found).toBe(false);
    expect(readListPage({ obj: { followers: { value: 3 } } }).found).toBe(false);
    for (const empty of [null, {}, { obj: null }, { status: true, data: null }, { obj: [] }]) {
      expect(readListPage(empty)).toMatchObject({ found: true, items: [] });
    }
  });

  it("names the other lists of a body that holds several", () => {
    expect(readListPage({ top: items, rest: [{ id: 3 }] })).toMatchObject({
      items,
      otherLists: ["rest"],
    });
    expect(readListPage({ data: items, extra: [{ id: 3 }] }).otherLists).toEqual(["extra"]);
  });

  it.each([
    ["a total beside the list", { total: 25, data: items }, { total: 25 }],
    ["{obj: {length, data}}", { obj: { length: 190, data: items } }, { total: 190 }],
    [
      "a Laravel paginator",
      { current_page: 1, last_page: 3, next_page_url: "http://x/api/v1/p?page=2", data: items },
      { page: 1, lastPage: 3, nextLink: "http://x/api/v1/p?page=2" },
    ],
    [
      "meta and links objects",
      { data: items, meta: { current_page: 2, last_page: 2, total: 12 }, links: { next: null } },
      { page: 2, lastPage: 2, total: 12, nextLink: null },
    ],
  ])("reads what %s says of the rest of the list", (_, body, expected) => {
    expect(readListPage(body)).toMatchObject(expected);
  });

  it("keeps only object records, the rest stays in the raw body", () => {
    expect(recordsOf([{ id: 1 }, null, "x", 3])).toEqual([{ id: 1 }]);
  });
});

describe("scalar readers", () => {
  it("reads numbers from numbers and numeric strings only, as their exact text", () => {
    expect(toDecimal(" 12.5 ")).toBe("12.5");
    expect(toDecimal(-3)).toBe("-3");
    expect(toDecimal("12.3400")).toBe("12.3400");
    expect(toDecimal("1E3")).toBe("1E3");
    expect(toDecimal(new JsonDecimal("0.10000000000000000001"))).toBe("0.10000000000000000001");
    expect(toDecimal("12,5")).toBeNull();
    expect(toDecimal("")).toBeNull();
    expect(toDecimal(null)).toBeNull();
    expect(toDecimal(Number.NaN)).toBeNull();
    expect(toInteger("42")).toBe(42);
    expect(toInteger("42.0")).toBe(42);
    expect(toInteger(new JsonDecimal("42.0"))).toBe(42);
    expect(toInteger("4.2")).toBeNull();
    expect(toInteger("90071992547409931")).toBeNull();
  });

  it("reads ids given as text or number", () => {
    expect(toText(12)).toBe("12");
    expect(toText("FR")).toBe("FR");
    expect(toText("")).toBeNull();
    expect(toText({})).toBeNull();
  });

  it("keeps money exact, every decimal as it came", () => {
    expect(toMoney("12.5")).toBe("12.5");
    expect(toMoney("12.3400")).toBe("12.3400");
    expect(toMoney(150)).toBe("150");
    expect(toMoney(1234.5678)).toBe("1234.5678");
    expect(toMoney(new JsonDecimal("1234.5600"))).toBe("1234.5600");
    expect(toMoney("-3.10")).toBe("-3.10");
    expect(toMoney("90071992547409931.99")).toBe("90071992547409931.99");
    expect(toMoney("12,34")).toBeNull();
    expect(toMoney("12.34 EUR")).toBeNull();
    expect(toMoney(null)).toBeNull();
  });

  it("reads instants in ISO and SQL forms, with or without a zone (UTC), and epoch times", () => {
    expect(toInstant("2026-01-05T12:30:00Z")).toBe("2026-01-05T12:30:00Z");
    expect(toInstant("2026-01-05 12:30:00")).toBe("2026-01-05T12:30:00Z");
    expect(toInstant("2026-01-05 12:30:00.123")).toBe("2026-01-05T12:30:00.123Z");
    expect(toInstant("2026-01-05 12:30:00 UTC")).toBe("2026-01-05T12:30:00Z");
    expect(toInstant("2026-01-05T12:30:00+01:00")).toBe("2026-01-05T12:30:00+01:00");
    expect(toInstant("2026-01-05T12:30:00+0100")).toBe("2026-01-05T12:30:00+0100");
    expect(toInstant(1_767_616_200)).toBe("2026-01-05T12:30:00.000Z");
    expect(toInstant("05/01/2026")).toBeNull();
  });

  it("opens the statistics envelope and a status/data envelope, and leaves anything else alone", () => {
    expect(unwrapObject({ obj: { a: 1 } })).toEqual({ a: 1 });
    expect(unwrapObject({ status: true, data: { a: 1 } })).toEqual({ a: 1 });
    expect(unwrapObject({ data: { a: 1 }, total: 3 })).toEqual({ a: 1 });
    expect(unwrapObject({ status: true, invoice: { a: 1 } })).toEqual({ a: 1 });
    expect(unwrapObject({ data: { data: { a: 1 }, page: 1 } })).toEqual({ a: 1 });
    expect(unwrapObject({ status: "paid", lines: [{ a: 1 }] })).toEqual({
      status: "paid",
      lines: [{ a: 1 }],
    });
    for (const nothing of [{}, [], { obj: [] }, { status: true, data: {} }, { status: true }]) {
      expect(unwrapObject(nothing)).toBeNull();
    }
    expect(unwrapObject({ a: 1 })).toEqual({ a: 1 });
    expect(unwrapObject([1])).toEqual([1]);
  });
});

describe("the day of a series point's time", () => {
  it("reads ISO dates and instants, and epoch seconds or milliseconds as numbers or digits", () => {
    expect(dayOfTime("2026-01-05")).toBe("2026-01-05");
    expect(dayOfTime("2026-01-05T23:59:59.000Z")).toBe("2026-01-05");
    // 2026-01-05T12:00:00Z: seconds below 10^11, milliseconds above.
    expect(dayOfTime(1_767_614_400)).toBe("2026-01-05");
    expect(dayOfTime(1_767_614_400_000)).toBe("2026-01-05");
    expect(dayOfTime("1767614400")).toBe("2026-01-05");
    expect(dayOfTime("1767614400000")).toBe("2026-01-05");
  });

  it("gives null for a time it cannot place on a day", () => {
    expect(dayOfTime("21/01/2026")).toBeNull();
    expect(dayOfTime("12345678")).toBeNull();
    expect(dayOfTime(Number.NaN)).toBeNull();
    expect(dayOfTime(1e20)).toBeNull();
    expect(dayOfTime(undefined)).toBeNull();
    expect(dayOfTime({ date: "2026-01-05" })).toBeNull();
  });
});

describe("lists sent in more than one form", () => {
  it("takes one item or a list of them, and null as none", () => {
    expect(oneOrMany([{ a: 1 }, 2])).toEqual([{ a: 1 }, 2]);
    expect(oneOrMany({ a: 1 })).toEqual([{ a: 1 }]);
    expect(oneOrMany("x")).toEqual(["x"]);
    expect(oneOrMany(null)).toEqual([]);
  });
});
