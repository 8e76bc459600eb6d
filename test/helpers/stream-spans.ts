import type { TestWarehouse } from "./warehouse.js";

export interface StreamSpan {
  /** When the stream's first attempt started. */
  readonly first: number;
  /** When its last attempt ended. */
  readonly last: number;
}

/** Each stream's attempts in etl.attempts, from the first start to the last end (epoch ms). */
export async function streamSpans(
  warehouse: Pick<TestWarehouse, "query">,
): Promise<(stream: string) => StreamSpan> {
  const rows = await warehouse.query<{ stream: string; first: Date; last: Date }>(
    `select stream, min(started_at) as first, max(finished_at) as last
       from etl.attempts group by stream`,
  );
  return (stream) => {
    const row = rows.find((r) => r.stream === stream);
    if (!row) throw new Error(`no attempt of ${stream}`);
    return { first: row.first.getTime(), last: row.last.getTime() };
  };
}
