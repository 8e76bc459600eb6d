import { errorMessage } from "../errors.js";
import { permanentCause } from "../http/upstream-errors.js";

/** A failed partition as a run's summary knows it. */
export interface FailedPartition {
  readonly stream: string;
  readonly partition: string;
  readonly error?: unknown;
}

/** How a failure no retry can cure is dealt with, said once under the lines that name them. */
export const PERMANENT_HINT =
  "the same request would fail again, so these are not retried, nor queued by `etl retry-failed` (unless --permanent): correct the configuration (an id the upstream does not know?), then `etl dismiss-failed` closes the failures of what it no longer plans";

function partitions(n: number): string {
  return n === 1 ? "1 partition" : `${n} partitions`;
}

function ofStreams(n: number): string {
  return n === 1 ? "of 1 stream" : `of ${n} streams`;
}

/** A cause's line: what the requests met, and how many partitions of how many streams. */
export function causeLine(cause: string, count: number, streams: number): string {
  return `${cause}: ${partitions(count)} ${ofStreams(streams)}`;
}

/**
 * One line per failure no retry can cure, by its cause (an unknown artist fails every partition
 * of every stream about it: one line, not a hundred), then one per other failed partition.
 */
export function failureLines(failed: readonly FailedPartition[]): string[] {
  const byCause = new Map<string, FailedPartition[]>();
  const others: string[] = [];
  for (const f of failed) {
    const cause = permanentCause(f.error);
    if (cause === null) {
      others.push(`${f.stream} ${f.partition}: ${errorMessage(f.error)}`);
      continue;
    }
    const group = byCause.get(cause) ?? [];
    group.push(f);
    byCause.set(cause, group);
  }
  const permanent = [...byCause].map(([cause, group]) => {
    const streams = new Set(group.map((f) => f.stream));
    const first = group[0];
    const example = first ? `, e.g. ${first.stream} ${first.partition}` : "";
    return `${causeLine(cause, group.length, streams.size)}${example}`;
  });
  return [...permanent, ...others, ...(permanent.length > 0 ? [PERMANENT_HINT] : [])];
}
