import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import { quarantine } from "../../src/warehouse/rejected-records.js";
import { markPartitionFailed } from "../../src/warehouse/stream-state.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
const SCREEN_WIDTH = 1200;
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

/**
 * Added to a copy of the page (which has no script of its own): every element whose computed
 * colour or background is not the page's ink or paper, written into the DOM as JSON.
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
  const days = [...document.querySelectorAll("tr[data-stream] td.day")];
  const widths = document.createElement("script");
  widths.type = "application/json";
  widths.id = "widths";
  widths.textContent = JSON.stringify({
    viewport: window.innerWidth,
    dayColumnsEnd: Math.max(...days.map((td) => td.getBoundingClientRect().right)),
  });
  document.body.append(widths);
})();
</script>`;

let cli: CliResult;
let page: string;
let dom: string;
let coloured: ColouredElement[];
let widths: { viewport: number; dayColumnsEnd: number };

/** The page as a real browser builds it: Chromium, headless, its DOM once loaded. */
async function renderedDom(file: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(
      CHROMIUM,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        // A laptop's screen, or a browser window beside another: the width the page must fit.
        `--window-size=${SCREEN_WIDTH},900`,
        "--dump-dom",
        pathToFileURL(file).href,
      ],
      { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
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
  dom = await renderedDom(dir.write("probed.html", page.replace("</body>", `${PROBE}</body>`)));
  const probe = /<script type="application\/json" id="probe">(.*?)<\/script>/s.exec(dom)?.[1];
  coloured = JSON.parse(probe ?? "null") as ColouredElement[];
  const measured = /<script type="application\/json" id="widths">(.*?)<\/script>/s.exec(dom)?.[1];
  widths = JSON.parse(measured ?? "null") as typeof widths;
});

afterAll(async () => {
  await harness.close();
  dir.remove();
});

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
  it("shows every day's column on a screen 1,200 pixels wide, however long a stream's notes", () => {
    expect(widths.viewport).toBe(SCREEN_WIDTH);
    expect(widths.dayColumnsEnd).toBeGreaterThan(0);
    expect(widths.dayColumnsEnd).toBeLessThanOrEqual(SCREEN_WIDTH);
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
