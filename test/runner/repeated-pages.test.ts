import { describe, expect, it } from "vitest";
import { RepeatedPages } from "../../src/runner/extract/repeated-pages.js";

const SMALL = 1_000;
const LARGE = 10 * 1024 * 1024;

const page = (...ids: number[]) => ids.map((id) => ({ id, name: `n${id}` }));

describe("a page served again", () => {
  it("is told at the second serving of a small page, and only when every record repeats", () => {
    const pages = new RepeatedPages();
    expect(pages.repeats(page(1, 2, 3), SMALL)).toBe(false);
    // Same count, first and last: only the whole digest tells these apart.
    expect(pages.repeats(page(1, 9, 3), SMALL)).toBe(false);
    expect(pages.repeats(page(1, 9, 3), SMALL)).toBe(true);
  });

  it("is told a page later when the page was too large to keep", () => {
    const pages = new RepeatedPages();
    expect(pages.repeats(page(1, 2), LARGE)).toBe(false);
    expect(pages.repeats(page(1, 2), LARGE)).toBe(false);
    expect(pages.repeats(page(1, 2), LARGE)).toBe(true);
  });

  it("is not a page that follows one with no records, nor a page of other records", () => {
    const pages = new RepeatedPages();
    expect(pages.repeats(page(1), SMALL)).toBe(false);
    expect(pages.repeats([], SMALL)).toBe(false);
    expect(pages.repeats([], SMALL)).toBe(false);
    expect(pages.repeats(page(1), SMALL)).toBe(false);
    expect(pages.repeats(page(2), SMALL)).toBe(false);
    expect(pages.repeats(page(1, 2), SMALL)).toBe(false);
    expect(pages.repeats(page(1, 2, 2), SMALL)).toBe(false);
  });
});
