/** What a stream's state is decided from: its line of `etl status`. */
export interface HealthFacts {
  /** Partitions that failed for good. */
  readonly failed: number;
  /** Null when the stream never succeeded. */
  readonly daysBehind: number | null;
  /** What needs looking at, empty when nothing does. */
  readonly attention: string;
  /**
   * No success for longer than its schedule allows: the EtlStreamStale alert's rule, as
   * analytics.stream_freshness.stale says it (STALE_AFTER_INTERVALS).
   */
  readonly stale: boolean;
}

/** Every state a stream can be in, worst first, as the page's legend lists them. */
export const STREAM_HEALTHS = [
  "failed",
  "stale",
  "behind",
  "attention",
  "late",
  "never",
  "current",
] as const;

export type StreamHealth = (typeof STREAM_HEALTHS)[number];

type Freshness = Extract<StreamHealth, "never" | "current" | "late" | "behind">;

/** How far behind a stream is: current (0–1 days), late (2–3), behind (more), or never synced. */
function freshness(daysBehind: number | null): Freshness {
  if (daysBehind === null) return "never";
  if (daysBehind <= 1) return "current";
  return daysBehind <= 3 ? "late" : "behind";
}

/**
 * The worst state that applies to a stream (in the order of STREAM_HEALTHS): partitions failed
 * for good, then stale, then anything needing attention, then its freshness. A stream with a
 * problem therefore never looks current, however fresh its other partitions are.
 */
export function streamHealth({ failed, daysBehind, attention, stale }: HealthFacts): StreamHealth {
  const fresh = freshness(daysBehind);
  if (failed > 0) return "failed";
  if (stale) return "stale";
  if (fresh === "behind") return fresh;
  if (attention !== "") return "attention";
  return fresh;
}
