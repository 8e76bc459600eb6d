import { describe, expect, it } from "vitest";
import { readListPage } from "../../src/api/list-page.js";
import { linkPath } from "../../src/http/link-path.js";
import { PageSizes } from "../../src/streams/page-sizes.js";
import { nextFromBody, type OffsetCursor, offsetPaging } from "../../src/streams/paging.js";
import type { ReadContext } from "../../src/streams/stream.js";

const ASKED = 100;
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));

function context(pageSizes: PageSizes, position = 0): ReadContext {
  return {
    today: "2026-01-31",
    position,
    pageSizes,
    ownsLink: (link) => linkPath("http://127.0.0.1:8787", link) !== null,
  };
}

/** Pages a list of `total` records served at most `cap` at a time; the requests it took. */
function page(
  total: number,
  cap: number,
  sizes: PageSizes,
  body: (list: unknown[]) => unknown = (list) => list,
) {
  const paging = offsetPaging("op", ASKED, "size");
  let cursor: OffsetCursor | null = null;
  let requests = 0;
  let read = 0;
  const warnings: string[] = [];
  for (;;) {
    requests += 1;
    const { offset } = paging.params(cursor);
    const served = items(total).slice(offset, offset + Math.min(ASKED, cap));
    const list = readListPage(body(served));
    const step = paging.next(list, cursor, context(sizes, read));
    read += served.length;
    warnings.push(...step.warnings.map((w) => w.message));
    if (step.next === null) return { requests, read, warnings };
    cursor = step.next;
  }
}

describe("offset paging", () => {
  it("reads a list whose pages are capped below the size asked, learning the cap once", () => {
    const sizes = new PageSizes();
    // 190 records, 50 a page: 4 pages with data and no probe once the cap is known.
    expect(page(190, 50, sizes)).toEqual({ requests: 4, read: 190, warnings: [] });
    expect(sizes.cap("op")).toBe(50);
    expect(page(120, 50, sizes)).toEqual({ requests: 3, read: 120, warnings: [] });
    expect(page(30, 50, sizes)).toEqual({ requests: 1, read: 30, warnings: [] });
  });

  it("probes only pages as long as the longest seen to end a list, until a cap is learned", () => {
    const sizes = new PageSizes();
    // Never capped: after a list of 12 ended, shorter ones need no probe.
    expect(page(12, 1_000, sizes).requests).toBe(2);
    expect(page(10, 1_000, sizes).requests).toBe(1);
    expect(page(7, 1_000, sizes).requests).toBe(1);
    // As long as that ending: it may be a cap that list happened to fill, so it is probed.
    expect(page(12, 1_000, sizes).requests).toBe(2);
  });

  it("is not fooled by a first list exactly as long as the cap", () => {
    const sizes = new PageSizes();
    // 7 records capped at 7: the probe is empty, 7 may end lists or be the cap.
    expect(page(7, 7, sizes)).toEqual({ requests: 2, read: 7, warnings: [] });
    // A longer list then gives pages of 7: probed, the cap is learned, the list read whole.
    expect(page(30, 7, sizes)).toEqual({ requests: 5, read: 30, warnings: [] });
    expect(sizes.cap("op")).toBe(7);
    expect(page(20, 7, sizes)).toEqual({ requests: 3, read: 20, warnings: [] });
  });

  it("keeps what it learned, to page the same way in the next run", () => {
    const sizes = new PageSizes();
    page(190, 50, sizes);
    const kept = sizes.takeChanged();
    expect(kept).toEqual([{ operation: "op", cap: 50, ending: null }]);
    expect(sizes.takeChanged()).toEqual([]);
    const next = new PageSizes({ known: kept });
    expect(page(190, 50, next)).toEqual({ requests: 4, read: 190, warnings: [] });
  });

  it("trusts a stated total, and says when the pages end before it", () => {
    const sizes = new PageSizes();
    const wrapped = (list: unknown[]) => ({ obj: { length: 190, data: list } });
    expect(page(190, 50, sizes, wrapped)).toEqual({ requests: 4, read: 190, warnings: [] });
    const lying = (list: unknown[]) => ({ obj: { length: 500, data: list } });
    expect(page(190, 50, new PageSizes(), lying).warnings).toEqual([
      "the response reports 500 records, 190 were read",
    ]);
  });
});

describe("paging by the body", () => {
  const sizes = new PageSizes();

  it("follows a next link on the upstream's own origin, and asks for the next page number", () => {
    const linked = readListPage({
      data: items(10),
      links: { next: "http://127.0.0.1:8787/api/v1/payouts?page=2" },
    });
    expect(nextFromBody(linked, context(sizes)).next).toEqual({
      link: "http://127.0.0.1:8787/api/v1/payouts?page=2",
    });
    const numbered = readListPage({ data: items(10), current_page: 1, last_page: 3 });
    expect(nextFromBody(numbered, context(sizes)).next).toEqual({ page: 2 });
    const last = readListPage({ data: items(4), current_page: 3, last_page: 3, total: 24 });
    expect(nextFromBody(last, context(sizes, 20))).toEqual({ next: null, warnings: [] });
  });

  it("never follows a link elsewhere, and reports the list as possibly truncated", () => {
    for (const next of [
      "http://127.0.0.2:8787/api/v1/payouts?page=2",
      "https://127.0.0.1:8787/api/v1/payouts?page=2",
      "http://evil.example/api/v1/payouts?page=2",
      "http://127.0.0.1:8787.evil.example/api/v1/payouts?page=2",
    ]) {
      const step = nextFromBody(
        readListPage({ data: items(10), next_page_url: next }),
        context(sizes),
      );
      expect(step.next).toBeNull();
      expect(step.warnings.map((w) => w.kind)).toEqual(["truncated"]);
    }
  });

  it("says so when the body counts more records than it has served and gives no way on", () => {
    const step = nextFromBody(
      readListPage({ status: true, data: items(10), total: 25 }),
      context(sizes),
    );
    expect(step).toEqual({
      next: null,
      warnings: [{ kind: "truncated", message: "the response reports 25 records, 10 were read" }],
    });
  });
});

describe("linkPath", () => {
  it("keeps a base URL's own path prefix", () => {
    expect(
      linkPath(
        "https://api.example.com/music",
        "https://api.example.com/music/api/v1/incomes?page=2",
      ),
    ).toBe("/api/v1/incomes?page=2");
    expect(
      linkPath("https://api.example.com/music", "https://api.example.com/other/api/v1/incomes"),
    ).toBeNull();
  });
});
