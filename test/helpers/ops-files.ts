// The monitoring files of ops/, read for the tests that check them: the alert rules, their
// promtool unit tests and the Grafana dashboard.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { PROJECT_ROOT } from "./cli.js";

export const ALERTS = "ops/prometheus/alerts.yml";
export const ALERT_TESTS = "ops/prometheus/alerts.test.yml";
export const PROMETHEUS_CONFIG = "ops/prometheus/prometheus.yml";
export const DASHBOARD = "ops/grafana/dashboards/music-etl.json";

/** An alerting rule (`alert`) or a recording rule (`record`). */
export interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface RuleTest {
  readonly name?: string;
  readonly input_series?: readonly { readonly series: string }[];
  readonly alert_rule_test?: readonly {
    readonly alertname: string;
    readonly exp_alerts?: readonly unknown[];
  }[];
}

interface Panel {
  readonly title?: string;
  readonly targets?: readonly { readonly expr?: string }[];
  readonly panels?: readonly Panel[];
}

/** A dashboard panel as its queries show it. */
export interface DashboardPanel {
  readonly title: string;
  /** The PromQL of its queries. */
  readonly expressions: readonly string[];
}

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), "utf8");

/** Every rule of alerts.yml, all groups together. */
export function rules(): Rule[] {
  const file = parse(read(ALERTS)) as { groups: { rules: Rule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

/** The test cases of alerts.test.yml. */
export function ruleTests(): RuleTest[] {
  return (parse(read(ALERT_TESTS)) as { tests: RuleTest[] }).tests;
}

/** Every panel of the dashboard, rows' panels included. */
export function dashboardPanels(): DashboardPanel[] {
  const walk = (panels: readonly Panel[]): DashboardPanel[] =>
    panels.flatMap((panel) => [
      {
        title: panel.title ?? "",
        expressions: (panel.targets ?? []).flatMap((target) => (target.expr ? [target.expr] : [])),
      },
      ...walk(panel.panels ?? []),
    ]);
  return walk((JSON.parse(read(DASHBOARD)) as { panels: Panel[] }).panels);
}

/** The PromQL of every panel's queries, rows' panels included. */
export function dashboardExpressions(): string[] {
  return dashboardPanels().flatMap((panel) => panel.expressions);
}

/** A template variable of the dashboard, as Grafana's JSON model has it. */
export interface DashboardVariable {
  readonly name: string;
  readonly type: string;
  /** For a query variable, its query: `label_values(<selector>, <label>)`. */
  readonly query?: string;
  readonly multi?: boolean;
  readonly includeAll?: boolean;
  /** What All stands for in the queries (default: every value found, as a regex). */
  readonly allValue?: string;
}

/** The dashboard's template variables, in order. */
export function dashboardVariables(): DashboardVariable[] {
  const dashboard = JSON.parse(read(DASHBOARD)) as { templating: { list: DashboardVariable[] } };
  return dashboard.templating.list;
}
