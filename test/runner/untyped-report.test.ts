import { describe, expect, it } from "vitest";
import { toInteger, toMoney, toDecimal, toText, toDay } from "../../src/api/read-values.js";
import { collectUntyped, type UntypedValue } from "../../src/api/untyped-values.js";
import { mergeUntyped, UntypedReport } from "../../src/runner/load/untyped-report.js";

describe("values the readers cannot type", () => {
  it("are noted for the task being run, and absent or empty values are not", async () => {
    const noted: UntypedValue[] = [];
    await collectUntyped(noted, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      toInteger("n/a");
      toDecimal("12,5");
      toMoney("150,00");
      toDay("21/01/2026");
      toText({ en: "Title" });
      for (const missing of [null, undefined, ""]) toDecimal(missing);
      toInteger("7");
      toText("fine");
    });
    expect(noted).toEqual([
      { expected: "integer", value: "n/a" },
      { expected: "number", value: "12,5" },
      { expected: "money", value: "150,00" },
      { expected: "day", value: "21/01/2026" },
      { expected: "text", value: { en: "Title" } },
    ]);
  });

  it("are kept apart for tasks that run at the same time, and outside a task nothing is noted", async () => {
    const a: UntypedValue[] = [];
    const b: UntypedValue[] = [];
    const task = (value: string) => async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        toDecimal(value);
      }
    };
    await Promise.all([collectUntyped(a, task("a")), collectUntyped(b, task("b"))]);
    toDecimal("outside");
    expect(a.map((n) => n.value)).toEqual(["a", "a", "a"]);
    expect(b.map((n) => n.value)).toEqual(["b", "b", "b"]);
  });

  it("are reported by the field they came in, each occurrence found once", () => {
    const records = [
      { id: "1", count: null, raw: { id: "1", count: "n/a", percentage: "n/a" } },
      { id: "2", count: 4, raw: { id: "2", count: 4, stats: [{ value: "12,5" }] } },
    ];
    const report = new UntypedReport();
    report.addNoted(
      [
        { expected: "integer", value: "n/a" },
        { expected: "number", value: "n/a" },
        { expected: "number", value: "12,5" },
        { expected: "number", value: "nowhere" },
      ],
      records,
    );
    report.addNoted([{ expected: "integer", value: "n/a" }], [{ raw: { count: "n/a" } }]);
    expect(report.fields()).toEqual([
      { field: "count", expected: "integer", count: 2, examples: ['"n/a"'] },
      { field: "?", expected: "number", count: 1, examples: ['"nowhere"'] },
      { field: "percentage", expected: "number", count: 1, examples: ['"n/a"'] },
      { field: "stats[].value", expected: "number", count: 1, examples: ['"12,5"'] },
    ]);
  });

  it("merge across partitions, keeping at most three short examples", () => {
    const long = "x".repeat(100);
    const merged = mergeUntyped([
      [{ field: "count", expected: "integer", count: 2, examples: ['"a"', '"b"'] }],
      [{ field: "count", expected: "integer", count: 3, examples: ['"c"', '"d"'] }],
      [{ field: "name", expected: "text", count: 1, examples: [] }],
    ]);
    expect(merged).toEqual([
      { field: "count", expected: "integer", count: 5, examples: ['"a"', '"b"', '"c"'] },
      { field: "name", expected: "text", count: 1, examples: [] },
    ]);
    const report = new UntypedReport();
    report.addNoted([{ expected: "text", value: long }], [{ raw: { name: long } }]);
    expect(report.fields()[0]?.examples[0]).toHaveLength(60);
  });
});
