import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAMS } from "../../src/streams/registry.js";
import { markPartitionFailed } from "../../src/warehouse/stream-state.js";
import { runCli } from "../helpers/cli.js";
import { REDIS_URL } from "../helpers/redis.js";
import { type SyncHarness, startSyncHarness } from "../helpers/sync-harness.js";
import { makeTempDir } from "../helpers/temp-dir.js";

const CHROMIUM = process.env.CHROMIUM ?? "chromium";
const dir = makeTempDir("status-html");
let harness: SyncHarness;

beforeAll(async () => {
  harness = await startSyncHarness("status_html", {
    today: "2026-01-31",
    etl: { dsp_keys: ["all"] },
  });
  await harness.sync({ only: ["trend_totals", "dsps"], from: "2026-01-29", to: "2026-01-30" });
  // A stream whose name needs escaping would be a bug elsewhere; an error text may hold markup.
  await markPartitionFailed(harness.warehouse.db, "invoices", "all", "upstream said <b>no</b>");
});

afterAll(async () => {
  await harness.close();
  dir.remove();
});

/** The page as a real browser builds it: Chromium, headless, its DOM once loaded. */
async function renderedDom(file: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(
      CHROMIUM,
      ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", pathToFileURL(file).href],
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

describe("etl status --html", () => {
  it("writes a page a browser shows with every stream, its freshness and its recent runs", async () => {
    dir.write("etl.config.json", harness.config);
    const result = await runCli(["status", "--html", "report.html"], {
      cwd: dir.path,
      env: { DATABASE_URL: harness.warehouse.url, REDIS_URL, LOG_LEVEL: "silent" },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("wrote report.html");

    const dom = await renderedDom(`${dir.path}/report.html`);
    const rows = new Map(
      [...dom.matchAll(/<tr data-stream="([^"]+)">(.*?)<\/tr>/gs)].map(([, stream, row]) => [
        stream,
        row ?? "",
      ]),
    );
    expect([...rows.keys()]).toEqual(STREAMS.map((s) => s.name));
    // Synced today: a list is current; the trends days synced are long past, so stale.
    expect(rows.get("dsps")).toMatch(/<td class="current">0<\/td>/);
    const trends = rows.get("trend_totals") ?? "";
    expect(trends).toMatch(/<td class="stale">\d+<\/td>/);
    // Today's column: the 10 attempts of the sync (2 days × 5 selection types).
    expect(trends).toMatch(/title="10 succeeded"/);
    expect(rows.get("trend_items")).toContain("never");
    // The failure is counted, and its text is shown as text, not as markup.
    const failed = rows.get("invoices") ?? "";
    expect(failed).toMatch(/<td class="failed-count">1<\/td>/);
    expect(dom).not.toContain("<b>no</b>");
  });
});
