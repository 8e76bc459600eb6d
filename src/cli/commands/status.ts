import { loadConfig } from "../../config/load-config.js";
import { STREAMS } from "../../streams/registry.js";
import { utcToday } from "../../time/calendar.js";
import { createWarehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import { daysBehind, type StreamStatus, streamStatuses } from "../../warehouse/stream-status.js";
import { ExitCode } from "../exit-codes.js";
import { queueStatus } from "../queue-status.js";
import { type Output, table } from "../output.js";

/** What a stream that synced still needs looked at: quarantined records, uncertain partitions. */
function attention(status: StreamStatus): string {
  const needs: string[] = [];
  if (status.rejected > 0) needs.push(`${status.rejected} records quarantined`);
  if (status.warned.length > 0) {
    needs.push(
      `${status.warned.length} partitions possibly incomplete (${status.warned[0]}${status.warned.length > 1 ? ", ..." : ""})`,
    );
  }
  return needs.join("; ");
}

/**
 * Per stream: the last success, how many days behind it is (daily streams: since the last day
 * synced, which is yesterday when current; others: since the last success), failed partitions.
 */
export async function statusCommand(out: Output): Promise<ExitCode> {
  const { env, etl } = loadConfig({ upstream: false });
  const db = createWarehouse(env.DATABASE_URL, { maxConnections: 2 });
  try {
    await migrateToLatest(db);
    const today = utcToday();
    const statuses = new Map((await streamStatuses(db)).map((s) => [s.stream, s]));
    const rows = STREAMS.map((stream) => {
      const status = statuses.get(stream.name);
      if (!status) return [stream.name, "never", "-", "0", "", ""];
      const lastSuccess =
        status.lastSuccessAt?.toISOString().slice(0, 16).replace("T", " ") ?? "never";
      const behind = daysBehind(status, today);
      const failed = status.failed.map((f) => f.partition);
      const shown = failed.slice(0, 3).join(", ") + (failed.length > 3 ? ", ..." : "");
      return [
        stream.name,
        lastSuccess,
        behind === null ? "-" : String(behind),
        String(failed.length),
        shown,
        attention(status),
      ];
    });
    for (const line of table([
      ["stream", "last success (UTC)", "days behind", "failed", "failed partitions", "attention"],
      ...rows,
    ])) {
      out.line(line);
    }
    out.line("");
    for (const line of await queueStatus(env.REDIS_URL, etl)) out.line(line);
    return ExitCode.ok;
  } finally {
    await db.destroy();
  }
}
