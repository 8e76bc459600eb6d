export interface ProgressSnapshot {
  readonly done: number;
  /** Partitions in all; null while some streams are not counted yet (see `doing`). */
  readonly total: number | null;
  readonly failed: number;
  /** Partitions per second lately (MovingRate); null until there is a while to measure. */
  readonly rate: number | null;
  /** What is being worked on, e.g. "planning 3 of 22 streams". */
  readonly doing: string;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(s / 60);
  const hours = Math.floor(minutes / 60);
  const mmss = `${String(minutes % 60).padStart(hours > 0 ? 2 : 1, "0")}:${String(s % 60).padStart(2, "0")}`;
  return hours > 0 ? `${hours}:${mmss}` : mmss;
}

/**
 * `[#######.....] 123/456 partitions, 2 failed, 12.3/s, ETA 0:27, completed`. While streams are
 * still being counted the total is a floor ("456+") and there is no ETA: the rest is unknown.
 */
export function progressLine(p: ProgressSnapshot, width = 24): string {
  const total = p.total ?? 0;
  const ratio = p.total !== null && total > 0 ? Math.min(1, p.done / total) : 0;
  const filled = Math.round(ratio * width);
  const eta =
    p.total !== null && p.rate !== null && p.rate > 0 && total > p.done
      ? clock((total - p.done) / p.rate)
      : "-";
  return [
    `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done}/${p.total ?? "?"} partitions`,
    ...(p.failed > 0 ? [`${p.failed} failed`] : []),
    p.rate === null ? "-/s" : `${p.rate.toFixed(1)}/s`,
    `ETA ${eta}`,
    p.doing,
  ].join(", ");
}
