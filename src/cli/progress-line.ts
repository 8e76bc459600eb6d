export interface ProgressSnapshot {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  readonly elapsedMs: number;
  /** What is being worked on, e.g. "stream 3/22 trend_items". */
  readonly doing: string;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** `[#######.....] 123/456 partitions, 2 failed, 12.3/s, ETA 0:27, stream 3/22 trend_items` */
export function progressLine(p: ProgressSnapshot, width = 24): string {
  const ratio = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const filled = Math.round(ratio * width);
  const rate = p.elapsedMs > 0 ? (p.done * 1000) / p.elapsedMs : 0;
  const eta = rate > 0 && p.total > p.done ? clock((p.total - p.done) / rate) : "-";
  return [
    `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done}/${p.total} partitions`,
    ...(p.failed > 0 ? [`${p.failed} failed`] : []),
    `${rate.toFixed(1)}/s`,
    `ETA ${eta}`,
    p.doing,
  ].join(", ");
}
