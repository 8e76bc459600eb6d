import { describe, expect, it } from "vitest";
import { readListPage } from "../../src/api/list-page.js";
import { linkPath } from "../../src/http/link-path.js";
import { PageSizes } from "../../src/streams/page-sizes.js";
import type { ListPage } from "../../src/api/list-page.js";
import {
  NEXT_LINK_PAGING,
  type OffsetCursor,
  offsetPaging,
  pageNumberPaging,
  windowPaging,
} from "../../src/streams/paging.js";
import type { ReadContext } from "../../src/streams/partition.js";

const ASKED = 100;
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));
const PARTITION = { key: "all" };

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
    const offset = paging.request(cursor, PARTITION)?.params.offset ?? 0;
    const served = items(total).slice(offset, offset + Math.min(ASKED, cap));
    const list = readListPage(body(served));
    const step = paging.next(list, cursor, context(sizes, read), PARTITION);
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
  const nextFromBody = (list: ListPage, at: ReadContext) =>
    NEXT_LINK_PAGING.next(list, null, at, PARTITION);

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

describe("page numbers", () => {
  const paging = pageNumberPaging(100);
  const page = (n: number, stated: Partial<ListPage>) => ({ ...readListPage(items(n)), ...stated });

  it("asks from page 0, and counts pages against the size the body states and its total", () => {
    const sizes = new PageSizes();
    expect(paging.request(null, PARTITION)?.params).toEqual({ page: 0, page_size: 100 });
    const stated = { pageSize: 25, total: 60 };
    expect(paging.next(page(25, stated), null, context(sizes), PARTITION).next).toBe(1);
    expect(paging.next(page(25, stated), 1, context(sizes, 25), PARTITION).next).toBe(2);
    expect(paging.next(page(10, stated), 2, context(sizes, 50), PARTITION)).toEqual({
      next: null,
      warnings: [],
    });
  });

  it("counts against the size asked when the body states none, and reports a short total", () => {
    const sizes = new PageSizes();
    expect(paging.next(page(100, {}), 0, context(sizes), PARTITION).next).toBe(1);
    expect(paging.next(page(40, { total: 300 }), 1, context(sizes, 100), PARTITION)).toEqual({
      next: null,
      warnings: [{ kind: "truncated", message: "the response reports 300 records, 140 were read" }],
    });
  });
});

describe("windows", () => {
  const paging = windowPaging(365);
  const partition = { key: "7|social_1", since: "2025-01-01", until: "2026-06-30" };

  it("asks a series a window at a time, the cursor the next window's first day", () => {
    const at = context(new PageSizes());
    expect(paging.request(null, partition)?.params).toEqual({
      since: "2025-01-01",
      until: "2025-12-31",
    });
    expect(paging.next(null, null, at, partition).next).toBe("2026-01-01");
    expect(paging.request("2026-01-01", partition)?.params).toEqual({
      since: "2026-01-01",
      until: "2026-06-30",
    });
    expect(paging.next(null, "2026-01-01", at, partition).next).toBeNull();
  });

  it("asks nothing of a series whose window is empty", () => {
    expect(paging.request(null, { ...partition, since: "2026-07-01" })).toBeNull();
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
