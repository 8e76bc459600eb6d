/** "26 h 05 min", "4 min 10 s", "12 s". */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  if (minutes > 0) return `${minutes} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}
