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
export interface StreamCursor {
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

const START: StreamCursor = { day: -1, offset: 0, done: false };

export function cursorOf(
  cursors: Readonly<Record<string, StreamCursor>> | undefined,
  stream: string,
): StreamCursor {
  return cursors?.[stream] ?? START;
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
export function rank(stream: Stream, cursor: StreamCursor): number {
  return stream.daily === true ? cursor.day : 0.5;
}

/** The cursor after the current step ran out of candidates. */
function nextStep(plan: WindowPlan, stream: Stream, cursor: StreamCursor): StreamCursor {
  if (stream.daily !== true || cursor.day + 1 >= plan.days.length) {
    return { ...cursor, offset: 0, done: true };
  }
  return { ...cursor, day: cursor.day + 1, offset: 0 };
}

/** The days and candidates of the cursor's step. */
function stepOptions(plan: WindowPlan, stream: Stream, cursor: StreamCursor): PlanOptions {
  if (stream.daily !== true) return { days: plan.days };
  const day = plan.days[cursor.day];
  return day === undefined ? { days: [], dated: false } : { days: [day], dated: true };
}

/**
 * Plans up to `room` partitions of the ready streams, newest first across them (see `rank`): the
 * newest day of every daily stream, the partitions without a day, then the day before, and so
 * on. A stream that becomes ready later (its artists known) starts from its own newest day, so it
 * comes first then. Hands each slice to `add`, with its rank, before planning the next, and
 * returns the cursors after them.
 */
export async function planWindow(
  plan: WindowPlan,
  ready: readonly Stream[],
  cursors: Readonly<Record<string, StreamCursor>>,
  room: number,
  add: (stream: Stream, partitions: readonly Partition[], rank: number) => Promise<void>,
): Promise<Record<string, StreamCursor>> {
  const next: Record<string, StreamCursor> = { ...cursors };
  let left = room;
  while (left > 0) {
    let stream: Stream | undefined;
    for (const s of ready) {
      const cursor = cursorOf(next, s.name);
      if (cursor.done) continue;
      if (!stream || rank(s, cursor) < rank(stream, cursorOf(next, stream.name))) stream = s;
    }
    if (!stream) break;
    const cursor = cursorOf(next, stream.name);
    const slices = planSlices(plan.deps, stream, plan.range, {
      ...plan.options,
      ...stepOptions(plan, stream, cursor),
      skip: cursor.offset,
      sliceSize: Math.min(left, PLAN_SLICE),
    });
    const step = await slices.next();
    await slices.return(undefined);
    if (step.done === true) {
      next[stream.name] = nextStep(plan, stream, cursor);
      continue;
    }
    const { partitions, candidates } = step.value;
    if (partitions.length > 0) await add(stream, partitions, rank(stream, cursor));
    left -= partitions.length;
    next[stream.name] = { ...cursor, offset: cursor.offset + candidates };
  }
  return next;
}
