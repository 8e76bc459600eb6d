import {
  type DayRange,
  PLAN_SLICE,
  type PlanOptions,
  planSlices,
} from "../runner/plan/plan-partitions.js";
import type { RunnerDeps } from "../runner/attempt-record.js";
import type { Stream } from "../streams/stream.js";
import type { Partition } from "../streams/partition.js";

/**
 * Where a run's planning of one stream stands: saved in the run's job data, so that the run's
 * next top-up, or a worker taking the run up after a crash, goes on from there.
 */
export interface PlanPosition {
  /**
   * For a daily stream (planned its partitions without a day first, then one day at a time,
   * newest first): -1 while planning the partitions without a day, then the day's index.
   * Unused for the others, planned whole as the stream makes them.
   */
  readonly day: number;
  /** Candidates of the current step looked at before (due or not). */
  readonly offset: number;
  readonly done: boolean;
}

const START: PlanPosition = { day: -1, offset: 0, done: false };

export function positionOf(
  positions: Readonly<Record<string, PlanPosition>> | undefined,
  stream: string,
): PlanPosition {
  return positions?.[stream] ?? START;
}

/** What the window is planned from: the run's range, its days newest first, and how it plans. */
export interface WindowPlan {
  readonly deps: Pick<RunnerDeps, "db" | "config" | "today">;
  readonly range: DayRange;
  /** The range's days, newest first. */
  readonly days: readonly string[];
  readonly options: Pick<
    PlanOptions,
    "failedOnly" | "permanentToo" | "lookbackOnly" | "trackedArtistIds"
  >;
}

/**
 * How soon a stream's next partitions come: the newest day of every daily stream first (what the
 * dashboards look at), then the partitions without a day (a snapshot, a series, a lookup: what
 * the warehouse holds of "now"), then each older day in turn. A daily stream's own partitions
 * without a day (none of the streams has any) come before its days.
 */
export function rank(stream: Stream, position: PlanPosition): number {
  return stream.daily === true ? position.day : 0.5;
}

/** The position after the current step ran out of candidates. */
function nextStep(plan: WindowPlan, stream: Stream, position: PlanPosition): PlanPosition {
  if (stream.daily !== true || position.day + 1 >= plan.days.length) {
    return { ...position, offset: 0, done: true };
  }
  return { ...position, day: position.day + 1, offset: 0 };
}

/** The days and candidates of the position's step. */
function stepOptions(plan: WindowPlan, stream: Stream, position: PlanPosition): PlanOptions {
  if (stream.daily !== true) return { days: plan.days };
  const day = plan.days[position.day];
  return day === undefined ? { days: [], dated: false } : { days: [day], dated: true };
}

/**
 * Plans up to `room` partitions of the ready streams, newest first across them (see `rank`): the
 * newest day of every daily stream, the partitions without a day, then the day before, and so
 * on. A stream that becomes ready later (its artists known) starts from its own newest day, so it
 * comes first then. Hands each slice to `add`, with its rank, before planning the next, and
 * returns the positions after them.
 */
export async function planWindow(
  plan: WindowPlan,
  ready: readonly Stream[],
  positions: Readonly<Record<string, PlanPosition>>,
  room: number,
  add: (stream: Stream, partitions: readonly Partition[], rank: number) => Promise<void>,
): Promise<Record<string, PlanPosition>> {
  const next: Record<string, PlanPosition> = { ...positions };
  let left = room;
  while (left > 0) {
    let stream: Stream | undefined;
    for (const s of ready) {
      const position = positionOf(next, s.name);
      if (position.done) continue;
      if (!stream || rank(s, position) < rank(stream, positionOf(next, stream.name))) stream = s;
    }
    if (!stream) break;
    const position = positionOf(next, stream.name);
    const slices = planSlices(plan.deps, stream, plan.range, {
      ...plan.options,
      ...stepOptions(plan, stream, position),
      skip: position.offset,
      sliceSize: Math.min(left, PLAN_SLICE),
    });
    const step = await slices.next();
    await slices.return(undefined);
    if (step.done === true) {
      next[stream.name] = nextStep(plan, stream, position);
      continue;
    }
    const { partitions, candidates } = step.value;
    if (partitions.length > 0) await add(stream, partitions, rank(stream, position));
    left -= partitions.length;
    next[stream.name] = { ...position, offset: position.offset + candidates };
  }
  return next;
}
