// The reference documents name everything a user can set, run or scrape: a key, a command or a
// metric added without its line in the docs fails here.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { envSchema } from "../../src/config/env-schema.js";
import { etlConfigSchema } from "../../src/config/etl-config-schema.js";
import { createEtlMetrics } from "../../src/metrics/etl-metrics.js";
import { PROJECT_ROOT, runCli } from "../helpers/cli.js";

const doc = (name: string) => readFileSync(resolve(PROJECT_ROOT, "docs", name), "utf8");

describe("the reference documents", () => {
  it("docs/configuration.md has a row for every environment variable and config key", () => {
    const text = doc("configuration.md");
    const keys = [
      ...Object.keys(envSchema.shape),
      ...Object.keys(etlConfigSchema.parse({ start_date: "2026-01-01" })),
    ];
    expect(keys).toContain("plan_window");
    expect(keys.filter((key) => !new RegExp(`^\\| \`${key}[\`.]`, "m").test(text))).toEqual([]);
  });

  it("docs/cli.md has a row for every command `etl --help` lists", async () => {
    const help = await runCli(["--help"], { cwd: PROJECT_ROOT, env: {} });
    const listed = help.stdout.slice(
      help.stdout.indexOf("Commands:"),
      help.stdout.indexOf("\n\n", help.stdout.indexOf("Commands:")),
    );
    const commands = [...listed.matchAll(/^ {2}([a-z][a-z-]+)\b/gm)].map((m) => m[1] ?? "");
    expect(commands).toContain("runs");
    const text = doc("cli.md");
    expect(commands.filter((c) => c !== "help" && !text.includes(`| \`${c}`))).toEqual([]);
  });

  it("every metric says itself in one short line, and docs/operations.md has its row", async () => {
    const metrics = (
      await createEtlMetrics({ streams: ["trend_items"] }).registry.getMetricsAsJSON()
    ).filter((metric) => metric.name.startsWith("etl_"));
    expect(metrics.map((metric) => metric.name)).toContain("etl_workers");
    const rows = new Set(
      [
        ...doc("operations.md").matchAll(
          /^\| `(etl_[a-z_]+)` \| (?:counter|gauge|histogram) \| /gm,
        ),
      ].map((row) => row[1]),
    );
    expect(metrics.filter((metric) => !rows.has(metric.name)).map((m) => m.name)).toEqual([]);
    const long = metrics.filter((metric) => metric.help.length > 100 || metric.help.includes("\n"));
    expect(long.map((metric) => `${metric.name}: ${metric.help}`)).toEqual([]);
  });
});
