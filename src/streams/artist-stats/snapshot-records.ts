/** A snapshot answer as records: its object, or none when the upstream sent nothing. */
export function snapshotRecords(data: unknown): unknown[] {
  return data === null || data === undefined ? [] : [data];
}
