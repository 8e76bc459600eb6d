// The alert rules and the dashboard's queries, checked by promtool: the parser and rule engine of
// Prometheus itself, so what passes here is what Prometheus loads and how it evaluates it.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import {
  ALERT_TESTS,
  ALERTS,
  dashboardExpressions,
  PROMETHEUS_CONFIG,
  ruleTests,
  rules,
} from "../helpers/ops-files.js";
import { promtool } from "../helpers/promtool.js";
import { makeTempDir } from "../helpers/temp-dir.js";

/** EtlWorkerDown → etl-worker-down: the alert's section of docs/operations.md. */
function anchor(alert: string): string {
  return alert.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

const alerts = rules().filter((rule) => rule.alert !== undefined);

describe("alert rules", () => {
  it("are valid rules to promtool, and the Prometheus config loads them", () => {
    expect(promtool("check", "rules", ALERTS)).toContain("SUCCESS");
    expect(promtool("check", "config", PROMETHEUS_CONFIG)).toContain("SUCCESS");
  });

  // promtool evaluates every rule at each minute of each test's hours: some 27 CPU-seconds, alone
  // on a quiet machine, and past a minute beside the rest of the suite on two cores.
  it("pass their unit tests (promtool test rules)", () => {
    expect(promtool("test", "rules", ALERT_TESTS)).toContain("SUCCESS");
  });

  it("each wait with for, carry a severity and annotations naming their runbook section", () => {
    expect(alerts.length).toBeGreaterThan(0);
    for (const rule of alerts) {
      const name = rule.alert ?? "";
      expect(rule.for, name).toMatch(/^\d+[smh]$/);
      expect(["critical", "warning"], name).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, name).toBeTruthy();
      expect(rule.annotations?.description, name).toMatch(
        new RegExp(`Runbook: docs/operations\\.md#${anchor(name)}$`),
      );
    }
  });

  it("each have their section in the runbook", () => {
    const runbook = readFileSync(resolve(PROJECT_ROOT, "docs/operations.md"), "utf8");
    for (const rule of alerts) {
      const name = rule.alert ?? "";
      expect(runbook, name).toContain(`<a id="${anchor(name)}"></a>\n### ${name} (`);
    }
  });

  it("each have series that fire them and series that must not", () => {
    const cases = ruleTests().flatMap((test) => test.alert_rule_test ?? []);
    for (const name of new Set(alerts.map((rule) => rule.alert ?? ""))) {
      const mine = cases.filter((c) => c.alertname === name);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${name} fires in a test`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${name} stays quiet in a test`,
      ).toBe(true);
    }
  });
});

describe("the dashboard's queries", () => {
  const dir = makeTempDir("dashboard-rules");
  afterAll(() => dir.remove());

  it("are valid PromQL to promtool", () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(0);
    // Each query as a recording rule (JSON is YAML); Grafana's range variable as a duration.
    const file = dir.write("dashboard.rules.yml", {
      groups: [
        {
          name: "dashboard",
          rules: expressions.map((expr, index) => ({
            record: `dashboard:query_${index}`,
            expr: expr.replaceAll("$__rate_interval", "5m"),
          })),
        },
      ],
    });
    expect(promtool("check", "rules", file)).toContain("SUCCESS");
  });
});
