// Alternative shapes of payloads the spec leaves "not shown" (the `shapes` knobs). They change
// how records are presented, never which records there are: the routes read the same dataset.
import type {
  EmptyObject,
  Income,
  StatPoint,
  StatSeries,
  VideoMarketCoverage,
} from "./dataset/records.js";
import type { ShapeKnobs } from "./interfaces.js";

/** Records a page serves: what the client asked for, or fewer under pageCap, said nowhere. */
export function servedLimit(asked: number, shapes: ShapeKnobs): number {
  return shapes.pageCap === null ? asked : Math.min(asked, shapes.pageCap);
}

/** The `obj` of /stat/{source} in the shape statPoints names. */
export function statBody(series: StatSeries, shapes: ShapeKnobs): unknown {
  const metrics = Object.entries(series.metrics);
  switch (shapes.statPoints) {
    case "timestp":
      return { link: series.link, ...series.metrics };
    case "date-field":
      return {
        link: series.link,
        ...Object.fromEntries(
          metrics.map(([metric, points]) => [
            metric,
            points.map(({ value, timestp, daily_diff, interpolated }) => ({
              value,
              date: dayOf(timestp),
              daily_diff,
              interpolated,
            })),
          ]),
        ),
      };
    case "pairs":
      return {
        link: series.link,
        ...Object.fromEntries(
          metrics.map(([metric, points]) => [
            metric,
            points.map((point: StatPoint) => [Date.parse(point.timestp), point.value]),
          ]),
        ),
      };
    case "metric-rows":
      return metrics.flatMap(([metric, points]) =>
        points.map(({ value, timestp, daily_diff }) => ({
          metric,
          date: dayOf(timestp),
          value,
          daily_diff,
        })),
      );
  }
}

/**
 * A single object (invoice, trends totals): bare, `{status: true, data}` with wrappedObjects, or
 * `{status: true, <name>: value}` with namedObjects (which wins when both are set).
 */
export function objectBody(value: unknown, shapes: ShapeKnobs, name: string): unknown {
  if (shapes.namedObjects) return { status: true, [name]: value };
  return shapes.wrappedObjects ? { status: true, data: value } : value;
}

/**
 * A page of a list in a nested paging envelope (namedObjects): `{data: page, total, ...extra}`,
 * which the route puts under its own envelope key. `total` counts the whole list.
 */
export function nestedPage(
  page: unknown[],
  total: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { data: page, total, ...extra };
}

/** The `obj` of a snapshot: the object, or with listSnapshots a list of it (empty when it is). */
export function snapshotBody(snapshot: object, shapes: ShapeKnobs): unknown {
  if (!shapes.listSnapshots) return snapshot;
  return Object.keys(snapshot).length === 0 ? [] : [snapshot];
}

/** The `obj` of /video-market-coverage: the object, or with listSnapshots its list of markets. */
export function coverageBody(
  coverage: VideoMarketCoverage | EmptyObject,
  shapes: ShapeKnobs,
): unknown {
  if (!shapes.listSnapshots) return coverage;
  return "markets" in coverage ? coverage.markets : [];
}

/** Incomes as served: without their id under incomesWithoutIds. */
export function incomeRecords(incomes: readonly Income[], shapes: ShapeKnobs): unknown[] {
  if (!shapes.incomesWithoutIds) return [...incomes];
  return incomes.map(({ id: _id, ...rest }) => rest);
}

function dayOf(instant: string): string {
  return instant.slice(0, 10);
}
