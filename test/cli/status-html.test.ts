import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StatusReport, statusHtml, type StreamLine } from "../../src/cli/status-html.js";
import { STREAMS } from "../../src/streams/registry.js";
import { addDays, daysBetween } from "../../src/time/calendar.js";
import { quarantine } from "../../src/warehouse/rejected-records.js";
import type { AttemptStatus } from "../../src/warehouse/schema.js";
import { markPartitionFailed } from "../../src/warehouse/stream-state.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { HANG_MS } from "../helpers/hang-limit.js";

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
/** A laptop's screen, or a browser window beside another: the width the page must fit. */
const SCREEN_WIDTH = 1200;
/** A wide screen, where the page gives each stream's name and last success a line of its own. */
const WIDE_SCREEN_WIDTH = 1600;
const dir = makeTempDir("status-html");
let harness: SyncHarness;

/** An element of the rendered page with a colour of its own, as the probe reports it. */
interface ColouredElement {
  /** Its text colour (where not inherited) and background, but for the page's ink and paper. */
  readonly colours: string[];
  readonly text: string;
  /** Its aria-label, or else its title. */
  readonly label: string;
  readonly className: string;
  /** The stream of the row it is in. */
  readonly stream: string | null;
  /** Whether it is in a day's column (the sync attempts of the day). */
  readonly day: boolean;
  /** The colour named by the legend's row it is in. */
  readonly legend: string | null;
}

/** How the page is laid out in the browser's window, as the probe measured it. */
interface Layout {
  /** The window's width. */
  readonly viewport: number;
  /** The width the page is shown in: the window's, less its vertical scroll bar. */
  readonly clientWidth: number;
  /** The page's width: more than clientWidth when it scrolls sideways. */
  readonly scrollWidth: number;
  /** Every element whose text is cut (its overflow hidden) or spills out of its table cell. */
  readonly cut: string[];
  /** The streams' names and last successes shown on more than one line. */
  readonly broken: string[];
}

/**
 * Added to a copy of the page (which has no script of its own): every element whose computed
 * colour or background is not the page's ink or paper, and the page's layout, written into the
 * DOM as JSON.
 */
const PROBE = String.raw`<script>
(() => {
  const style = (element) => getComputedStyle(element);
  const plain = new Set([
    "rgba(0, 0, 0, 0)",
    style(document.body).color,
    style(document.body).backgroundColor,
    style(document.querySelector("thead th")).backgroundColor,
  ]);
  const found = [];
  for (const element of document.body.querySelectorAll("*")) {
    const own = style(element);
    const colours = [];
    if (own.color !== style(element.parentElement).color && !plain.has(own.color)) {
      colours.push(own.color);
    }
    if (!plain.has(own.backgroundColor)) colours.push(own.backgroundColor);
    if (colours.length === 0) continue;
    found.push({
      colours,
      text: element.textContent.trim(),
      label: element.getAttribute("aria-label") || element.getAttribute("title") || "",
      className: element.className,
      stream: element.closest("tr[data-stream]")?.dataset.stream ?? null,
      day: element.closest("td.day") !== null,
      legend: element.closest("#legend tbody tr")?.querySelector("th")?.textContent ?? null,
    });
  }
  const out = document.createElement("script");
  out.type = "application/json";
  out.id = "probe";
  out.textContent = JSON.stringify(found).replace(/</g, "\\u003c");
  document.body.append(out);
  const cut = [...document.body.querySelectorAll("*")].filter((element) => {
    const own = style(element);
    const clips = own.overflowX !== "visible" || own.textOverflow === "ellipsis";
    return (clips || element.matches("th, td")) && element.scrollWidth > element.clientWidth;
  });
  const lines = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  };
  const broken = [...document.querySelectorAll("#streams .name, #streams td.when")].filter(
    (element) => lines(element) > 1,
  );
  const layout = document.createElement("script");
  layout.type = "application/json";
  layout.id = "layout";
  layout.textContent = JSON.stringify({
    viewport: window.innerWidth,
    clientWidth: document.documentElement.clientWidth,
    scrollWidth: document.documentElement.scrollWidth,
    cut: cut.map((element) =>
      element.tagName.toLowerCase() + " " + element.textContent.trim().slice(0, 80) + ": " +
      element.scrollWidth + " px in " + element.clientWidth,
    ),
    broken: broken.map((element) => element.textContent.trim()),
  }).replace(/</g, "\\u003c");
  document.body.append(layout);
})();
</script>`;

let cli: CliResult;
let page: string;
let dom: string;
let coloured: ColouredElement[];
let layout: Layout;

/** The page as a real browser builds it: Chromium, headless, its DOM once loaded. */
async function renderedDom(file: string, width: number): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(
      CHROMIUM,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        `--window-size=${width},900`,
        "--dump-dom",
        pathToFileURL(file).href,
      ],
      { timeout: HANG_MS, maxBuffer: 16 * 1024 * 1024 },
    );
    return stdout;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      throw new Error("chromium is not installed: apt-get install chromium (.ci/run does)", {
        cause: error,
      });
    }
    throw error;
  }
}

/** A page as Chromium shows it in a window `width` pixels wide, with what the probe found. */
async function probed(
  name: string,
  html: string,
  width: number,
): Promise<{ dom: string; coloured: ColouredElement[]; layout: Layout }> {
  const shown = await renderedDom(
    dir.write(name, html.replace("</body>", `${PROBE}</body>`)),
    width,
  );
  const json = (id: string) =>
    JSON.parse(
      new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, "s").exec(
        shown,
      )?.[1] ?? "null",
    ) as unknown;
  return {
    dom: shown,
    coloured: json("probe") as ColouredElement[],
    layout: json("layout") as Layout,
  };
}

beforeAll(async () => {
  harness = await startSyncHarness("status_html", {
    today: "2026-01-31",
    etl: { dsp_keys: ["all", "a"], territory_keys: ["all", "a"] },
  });
  const db = harness.warehouse.db;
  await harness.sync({
    only: ["trend_totals", "dsps", "territories", "invoices"],
    from: "2026-01-29",
    to: "2026-01-30",
  });
  // Synced now, so all three are current: one territories partition then fails for good (an
  // error text may hold markup), and invoices quarantines a record.
  const [, lastTerritory] = await db
    .selectFrom("etl.stream_state")
    .select("partition")
    .where("stream", "=", "territories")
    .orderBy("partition")
    .execute();
  await markPartitionFailed(db, "territories", lastTerritory?.partition ?? "", "said <b>no</b>");
  // The longest stream name, with partition keys as long as they come: notes that must wrap.
  for (const day of ["2026-01-27", "2026-01-28", "2026-01-29", "2026-01-30"]) {
    const key = `987654321|short_video|commenters|demographic|${day}|page-0000000000000001`;
    await markPartitionFailed(db, "artist_stats_social_audience_stats", key, "HTTP 500");
  }
  await quarantine(db, "invoices", "all", [
    { table: "royalties.invoices", reason: "no invoice", record: { total: 1 }, responseId: null },
  ]);

  dir.write("etl.config.json", harness.config);
  cli = await runCli(["status", "--html", "report.html"], {
    cwd: dir.path,
    env: { DATABASE_URL: harness.warehouse.url, REDIS_URL, LOG_LEVEL: "silent" },
  });
  page = readFileSync(`${dir.path}/report.html`, "utf8");
  ({ dom, coloured, layout } = await probed("probed.html", page, SCREEN_WIDTH));
});

afterAll(async () => {
  await harness.close();
  dir.remove();
});

/** The page is shown whole in a window `width` pixels wide: nothing scrolls sideways or is cut. */
function expectFits(shown: Layout, width: number): void {
  expect(shown.viewport).toBe(width);
  expect(shown.clientWidth).toBeGreaterThan(0);
  expect(shown.clientWidth).toBeLessThanOrEqual(width);
  expect(shown.scrollWidth).toBeLessThanOrEqual(shown.clientWidth);
  expect(shown.cut).toEqual([]);
}

/** The colour the legend gives a stream's state. */
function stateColour(state: string): string | undefined {
  return coloured.find((e) => e.legend !== null && e.className === `state state-${state}`)
    ?.colours[0];
}

/** The state of a stream's row, as the page shows it. */
function stateOf(stream: string): ColouredElement | undefined {
  return coloured.find((e) => e.stream === stream && e.className.startsWith("state "));
}

describe("etl status --html", () => {
  it("fits a screen 1,200 pixels wide, however long a stream's notes, with no text cut", () => {
    expectFits(layout, SCREEN_WIDTH);
  });

  it("writes a page a browser shows with every stream, its state and its recent runs", () => {
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("wrote report.html");
    expect(page).not.toContain("<script");

    const rows = new Map(
      [...dom.matchAll(/<tr data-stream="([^"]+)">(.*?)<\/tr>/gs)].map(([, stream, row]) => [
        stream,
        row ?? "",
      ]),
    );
    expect([...rows.keys()]).toEqual(STREAMS.map((s) => s.name));
    // Synced today: a list is current; the trends days synced are long past, so behind (synced
    // now, it is not stale: its schedule's threshold has not gone by).
    expect(stateOf("dsps")?.text).toBe("✓ current");
    expect(stateOf("trend_totals")?.text).toBe("✗ behind");
    expect(stateOf("trend_items")?.text).toBe("– never");
    // Today's column: the 10 attempts of the sync (2 days × 5 selection types).
    expect(rows.get("trend_totals")).toMatch(/title="10 succeeded"/);
    // An error text is never markup.
    expect(dom).not.toContain("<b>no</b>");
  });

  it("shows a stream with failed partitions, or needing attention, as such: never as current", () => {
    const healthy = stateColour("current");
    expect(healthy).toBeDefined();
    expect(stateOf("dsps")?.colours).toEqual([healthy]);

    const failed = stateOf("territories");
    expect(failed).toMatchObject({ text: "✗ failed", colours: [stateColour("failed")] });
    expect(failed?.label).toMatch(/^failed: 1 partitions failed for good .*; 0 days behind$/);
    const attention = stateOf("invoices");
    expect(attention).toMatchObject({ text: "! attention", colours: [stateColour("attention")] });
    expect(attention?.label).toContain("needs attention: 1 records quarantined");
    for (const stream of ["territories", "invoices"]) {
      const marks = coloured.filter((e) => e.stream === stream && !e.day);
      expect(marks.flatMap((e) => e.colours)).not.toContain(healthy);
    }
    expect(stateColour("failed")).not.toBe(healthy);
    expect(stateColour("attention")).not.toBe(healthy);
  });

  it("names in its legend every colour the page shows, with what it means", () => {
    const shown = new Set(coloured.filter((e) => e.legend === null).flatMap((e) => e.colours));
    const legend = new Map<string, Set<string>>();
    for (const sample of coloured.filter((e) => e.legend !== null)) {
      for (const colour of sample.colours) {
        legend.set(colour, (legend.get(colour) ?? new Set()).add(sample.legend ?? ""));
      }
    }
    // States (red, amber, green, grey) and outcomes (green here) at the least.
    expect(shown.size).toBeGreaterThanOrEqual(4);
    for (const colour of shown) {
      expect(legend.get(colour), colour).toBeDefined();
    }
    // Each colour in one row of the legend, which names it.
    for (const [colour, names] of legend) {
      expect([...names], colour).toHaveLength(1);
      expect([...names][0], colour).toMatch(/^[a-z]+$/);
    }
    expect(new Set([...legend.values()].map((names) => [...names][0])).size).toBe(legend.size);
  });

  it("marks every colour with a symbol or words too, and an accessible text", () => {
    expect(coloured.length).toBeGreaterThan(0);
    for (const element of coloured) {
      expect(element.text, JSON.stringify(element)).toMatch(/^[✓!✗–‖⊘▸]/);
      expect(element.label, JSON.stringify(element)).not.toBe("");
    }
    // In greyscale a bar still reads: each part is its outcome's symbol and count.
    const today = coloured.filter((e) => e.stream === "trend_totals" && e.day);
    expect(today.map((e) => [e.text, e.label])).toContainEqual(["✓ 10", "10 succeeded"]);
  });
});

/** Streams and days of a busy account's page. */
const BUSY_STREAMS = 30;
const BUSY_DAYS = 14;

/** A partition key as long as they come. */
const longKey = (day: string) =>
  `987654321|short_video|commenters|demographic|${day}|page-0000000000000001`;

/**
 * 30 streams (the registry's, and more named like its longest) over 14 days, as wide as they
 * come in a browser: every state, long notes, and one stream with every outcome each day, counts of four
 * characters once shortened.
 */
function busyReport(): StatusReport {
  const days = daysBetween(addDays("2026-01-31", 1 - BUSY_DAYS), "2026-01-31");
  const longest = [...STREAMS].sort((a, b) => b.name.length - a.name.length);
  const more = longest
    .slice(0, Math.max(0, BUSY_STREAMS - STREAMS.length))
    .map((s) => ({ name: `${s.name}_by_territory`, family: s.family }));
  const named = [...STREAMS.map((s) => ({ name: s.name, family: s.family })), ...more];
  const streams = named.map(({ name, family }, i): StreamLine => ({
    stream: name,
    family,
    schedule: "45 3 * * * America/Argentina/Buenos_Aires",
    lastSuccess: i % 7 === 6 ? "never" : "2026-01-31 03:47",
    daysBehind: i % 7 === 6 ? null : i % 6,
    stale: i % 5 === 4,
    missingDays: i % 2 === 0 ? 1234 : null,
    failed: i % 4 === 0 ? 4321 : 0,
    failedShown: i % 4 === 0 ? `${days.slice(0, 3).map(longKey).join(", ")}, ...` : "",
    attention:
      i % 3 === 0
        ? `12 partitions retrying; 345 records quarantined; 3 partitions possibly incomplete (${longKey("2026-01-27")}, ...); 7 answers declared failure in 7 days (retried, none stored)`
        : "",
  }));
  const widest = longest[0]?.name ?? "";
  const attempt = (stream: string, day: string, status: AttemptStatus, attempts: number) => ({
    stream,
    day,
    status,
    attempts,
  });
  const attempts = named.flatMap(({ name }, i) =>
    days.flatMap((day, d) =>
      name === widest
        ? [
            attempt(name, day, "succeeded", 1_234_567),
            attempt(name, day, "failed", 5678),
            attempt(name, day, "interrupted", 999),
            attempt(name, day, "abandoned", 345),
            attempt(name, day, "running", 12),
          ]
        : [
            attempt(name, day, "succeeded", [10, 480, 12_345][i % 3] ?? 0),
            ...((i + d) % 4 === 0 ? [attempt(name, day, "failed", 3)] : []),
          ],
    ),
  );
  return {
    generatedAt: new Date("2026-01-31T12:00:00Z"),
    days,
    streams,
    attempts,
    schemaChanges: [`sales.items.${"very_long_field_name_".repeat(8)}: added (numeric)`],
    queue: [
      `queue: Redis unreachable at redis://redis.example:6379 (${"connect ETIMEDOUT ".repeat(10)})`,
    ],
  };
}

describe("the status page of 30 streams over 14 days", () => {
  const report = busyReport();
  const html = statusHtml(report);
  let shown: { dom: string; coloured: ColouredElement[]; layout: Layout };
  let wide: { dom: string; coloured: ColouredElement[]; layout: Layout };

  beforeAll(async () => {
    shown = await probed("busy.html", html, SCREEN_WIDTH);
    wide = await probed("busy-wide.html", html, WIDE_SCREEN_WIDTH);
  });

  it("fits a screen 1,200 pixels wide: nothing scrolls sideways, no cell's text is cut", () => {
    expect(report.streams.length).toBeGreaterThanOrEqual(BUSY_STREAMS);
    expect(report.days).toHaveLength(BUSY_DAYS);
    expectFits(shown.layout, SCREEN_WIDTH);
  });

  it("fits a screen 1,600 pixels wide too, where no name or time is broken", () => {
    expectFits(wide.layout, WIDE_SCREEN_WIDTH);
    expect(wide.layout.broken).toEqual([]);
    // The probe sees a name or time broken: at 1,200 pixels the longest are.
    expect(shown.layout.broken.length).toBeGreaterThan(0);
  });

  it("shows every stream, every day and every note in full", () => {
    const rows = [...shown.dom.matchAll(/<tr data-stream="([^"]+)">/g)].map(([, stream]) => stream);
    expect(rows).toEqual(report.streams.map((line) => line.stream));
    expect(shown.dom.match(/<th scope="col" class="day">/g)).toHaveLength(BUSY_DAYS);
    for (const line of report.streams.filter((l) => l.attention !== "" || l.failedShown !== "")) {
      const notes = new RegExp(`<tr class="notes" data-notes="${line.stream}">(.*?)</tr>`, "s");
      const text = notes.exec(shown.dom)?.[1]?.replace(/<[^>]+>/g, "") ?? "";
      expect(text, line.stream).toContain(line.failedShown);
      expect(text, line.stream).toContain(line.attention);
    }
  });

  it("shortens a count of a thousand or more, its exact count in its title", () => {
    const parts = shown.coloured.filter((e) => e.day).map((e) => [e.text, e.label]);
    expect(parts).toContainEqual(["✓ 1.2M", "1234567 succeeded"]);
    expect(parts).toContainEqual(["✗ 5.6k", "5678 failed"]);
    expect(parts).toContainEqual(["‖ 999", "999 interrupted"]);
  });
});
