import type { StreamSummary } from "../runner/run-sync.js";
import { ExitCode } from "./exit-codes.js";
import { type Output, table } from "./output.js";
import { failureLines } from "./failure-lines.js";
import { runSchemaChangeLines } from "./schema-change-lines.js";

/** One stream's line of a run's table, as a sync prints it and `etl runs show` prints it again. */
export interface StreamRow {
  readonly stream: string;
  readonly partitions: number;
  readonly failed: number;
  readonly requests: number;
  readonly rowsWritten: number;
  readonly rowsRejected: number;
  readonly warned: number;
  readonly seconds: number;
}

function rowCells(s: StreamRow): string[] {
  return [
    s.stream,
    String(s.partitions),
    String(s.failed),
    String(s.requests),
    String(s.rowsWritten),
    String(s.rowsRejected),
    String(s.warned),
    s.seconds.toFixed(1),
  ];
}

/** A run's table: a row per stream and their total, which took `seconds` from end to end. */
export function streamTable(rows: readonly StreamRow[], seconds: number): string[] {
  const sum = (pick: (row: StreamRow) => number) => rows.reduce((n, row) => n + pick(row), 0);
  const total: StreamRow = {
    stream: "total",
    partitions: sum((r) => r.partitions),
    failed: sum((r) => r.failed),
    requests: sum((r) => r.requests),
    rowsWritten: sum((r) => r.rowsWritten),
    rowsRejected: sum((r) => r.rowsRejected),
    warned: sum((r) => r.warned),
    seconds,
  };
  return table([
    ["stream", "partitions", "failed", "requests", "rows", "rejected", "warned", "seconds"],
    ...rows.map(rowCells),
    rowCells(total),
  ]);
}

/** Records quarantined and partitions whose lists may hold more than was read. */
function reportAttention(summaries: readonly StreamSummary[], out: Output): boolean {
  const rejected = summaries.filter((s) => s.rowsRejected > 0);
  const warned = summaries.flatMap((s) => s.warned);
  if (rejected.length === 0 && warned.length === 0) return false;
  out.line("");
  for (const s of rejected) {
    out.line(
      `${s.stream}: ${s.rowsRejected} records yielded no storable row; kept in etl.rejected_records (etl replay loads them again once the reader is fixed)`,
    );
  }
  if (warned.length > 0) {
    out.line(`${warned.length} partitions need attention (responses kept in etl.responses):`);
    for (const w of warned.slice(0, 20)) {
      out.line(`  ${w.stream} ${w.partition}: ${w.warnings.map((x) => x.message).join("; ")}`);
    }
    if (warned.length > 20)
      out.line(`  ... and ${warned.length - 20} more (etl.attempts.warnings)`);
  }
  return true;
}

/** The fields whose values typed columns could not hold: the upstream has drifted. */
function reportUntyped(summaries: readonly StreamSummary[], out: Output): void {
  const rows = summaries.flatMap((s) =>
    s.untyped.map((u) => [s.stream, u.field, u.expected, String(u.count), u.examples.join(" ")]),
  );
  if (rows.length === 0) return;
  out.line("");
  out.line(
    "Values that could not be typed (stored as null, kept in raw; see etl.attempts.untyped_values):",
  );
  for (const line of table([["stream", "field", "expected", "values", "examples"], ...rows])) {
    out.line(`  ${line}`);
  }
}

/** Answers that declared failure: retried, never loaded; the attempt keeps the last of them. */
function reportFailureBodies(summaries: readonly StreamSummary[], out: Output): void {
  const streams = summaries.filter((s) => s.failureBodies > 0);
  if (streams.length === 0) return;
  out.line("");
  out.line(
    `Answers that declared failure (2xx with {status: false, ...} and the like; retried, none stored; the last kept in etl.attempts.failure_body): ${streams.map((s) => `${s.stream} ${s.failureBodies}`).join(", ")}`,
  );
}

/**
 * The summary of a sync or a replay: a row per stream, the columns it added or widened, what
 * could not be typed, what was quarantined or may be incomplete, what was interrupted and what
 * failed. A run stopped by a signal exits 130 (it did not end); failed partitions exit 1; a run
 * that stored everything it could but quarantined records or suspects a truncated list exits 4
 * (attention), never 0. A column added or widened is news, not attention: it never changes the
 * exit code.
 */
export function printSummaries(
  summaries: readonly StreamSummary[],
  durationMs: number,
  out: Output,
): ExitCode {
  const failed = summaries.flatMap((s) => s.failed);
  const interrupted = summaries.reduce((n, s) => n + s.interrupted, 0);
  const rows = summaries.map((s) => ({
    ...s,
    failed: s.failed.length,
    warned: s.warned.length,
    seconds: s.durationMs / 1000,
  }));
  for (const line of streamTable(rows, durationMs / 1000)) out.line(line);
  // In the order they were made, across streams, as `etl runs show` lists them.
  const changes = summaries
    .flatMap((s) => s.schemaChanges)
    .sort((a, b) => Number(a.changeId) - Number(b.changeId));
  for (const line of runSchemaChangeLines(changes)) out.line(line);
  reportUntyped(summaries, out);
  reportFailureBodies(summaries, out);
  const attention = reportAttention(summaries, out);
  if (interrupted > 0) {
    out.line("");
    out.line(
      `${interrupted} partitions were interrupted before they ended (not failed): the next run takes them up`,
    );
  }
  if (failed.length > 0) {
    out.line("");
    out.line(`${failed.length} partitions failed:`);
    for (const line of failureLines(failed)) out.line(`  ${line}`);
  }
  if (interrupted > 0) return ExitCode.interrupted;
  if (failed.length > 0) return ExitCode.failure;
  return attention ? ExitCode.attention : ExitCode.ok;
}

/** Where a run's record is: its attempts and per-stream table, again, later. */
export function runRecordedLine(runId: string): string {
  return `run ${runId}: \`etl runs show ${runId}\` prints this table again from etl.attempts`;
}
