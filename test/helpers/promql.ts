// PromQL as the tests of ops/ read it: which series an expression selects, and how. Enough of the
// language for the rules and the dashboard we write, not a parser of all of it.

/**
 * The words of PromQL (as of Prometheus 2.x) that are not metric names. Label names are not
 * among them: they stand in braces, or in the label lists of by, without, on, ignoring,
 * group_left and group_right, which are dropped before the words are read.
 */
const PROMQL_WORDS = new Set(
  [
    // Operators, modifiers and literals.
    "and or unless atan2 bool offset start end inf nan group_left group_right",
    // Aggregations.
    "sum min max avg group stddev stdvar count count_values bottomk topk quantile limitk",
    "limit_ratio",
    // Functions.
    "abs absent absent_over_time ceil changes clamp clamp_max clamp_min day_of_month",
    "day_of_week day_of_year days_in_month delta deriv exp floor histogram_avg histogram_count",
    "histogram_fraction histogram_quantile histogram_stddev histogram_stdvar histogram_sum",
    "holt_winters double_exponential_smoothing hour idelta increase info irate label_join",
    "label_replace ln log2 log10 minute month predict_linear rate resets round scalar sgn sort",
    "sort_desc sort_by_label sort_by_label_desc sqrt time timestamp vector year",
    "avg_over_time min_over_time max_over_time sum_over_time count_over_time quantile_over_time",
    "stddev_over_time stdvar_over_time last_over_time present_over_time mad_over_time",
    "acos acosh asin asinh atan atanh cos cosh deg pi rad sin sinh tan tanh",
  ].flatMap((words) => words.split(" ")),
);

/** One vector selector: `name{matchers}`. */
export interface VectorSelector {
  readonly name: string;
  /** What stands between its braces (`job="x", status!="200"`); "" for none. */
  readonly matchers: string;
}

const STRING = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/;
/** Braces, whose label values (strings) may hold braces themselves. */
const BRACES = new RegExp(`\\{((?:${STRING.source}|[^{}"'\`])*)\\}`, "g");

/**
 * The vector selectors of an expression, in order. Dropped first: the braces (kept aside, with
 * their label values), string literals (label_replace's arguments), Grafana variables, the label
 * lists of by, without, on, ignoring, group_left and group_right, ranges; then every identifier
 * but PromQL's own words, numbers and durations is a metric name.
 */
export function vectorSelectors(expr: string): VectorSelector[] {
  const braces: string[] = [];
  const code = expr
    .replace(BRACES, (_, matchers: string) => `{${braces.push(matchers) - 1}}`)
    .replace(new RegExp(STRING.source, "g"), '""')
    .replace(/\$\{\w+\}|\$\w+/g, "")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
    .replace(/\[[^\]]*\]/g, "");
  return (
    [...code.matchAll(/([A-Za-z0-9_.:]+)(?:\s*\{(\d+)\})?/g)]
      // PromQL's keywords are case-insensitive (SUM BY, Inf).
      .filter(([, word = ""]) => !/^[0-9.]/.test(word) && !PROMQL_WORDS.has(word.toLowerCase()))
      .map(([, name = "", brace]) => ({
        name,
        matchers: brace === undefined ? "" : (braces[Number(brace)] ?? "").trim(),
      }))
  );
}

/** The metric names an expression reads, in order. */
export function metricNames(expr: string): string[] {
  return vectorSelectors(expr).map((selector) => selector.name);
}
