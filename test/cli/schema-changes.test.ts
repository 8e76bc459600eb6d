import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { utcMinuteOf } from "../../src/time/calendar.js";
import { evolveTable } from "../../src/columns/discovered-columns.js";
import { etlIn } from "../helpers/cli.js";
import { NO_SCHEDULES, processSetting } from "../helpers/process-setting.js";
import { endProcesses, type EtlProcess, spawnWorker } from "../helpers/worker-process.js";

// A column added or widened is news an operator reads everywhere they look (the run's summary,
// `runs show`, a waited backfill, `status`, /metrics), and never a reason to exit 4.

const setting = processSetting("schema-changes", { apiKey: "schema-key-1", today: "2026-01-31" });
const processes: EtlProcess[] = [];

afterAll(() => endProcesses(processes));

function env(): Record<string, string> {
  return setting.configure({
    start_date: "2026-01-01",
    requests_per_second: 1000,
    max_concurrency: 4,
    worker_concurrency: 2,
    job_lock_ms: 2_000,
    shutdown_grace_ms: 1_000,
    dsp_keys: ["all"],
    territory_keys: ["all"],
    schedules: NO_SCHEDULES,
  });
}

const etl = etlIn(setting.dir.path, env);

interface ChangeRow {
  table_name: string;
  column_name: string;
  change: string;
  from_type: string | null;
  to_type: string;
  changed_at: Date;
}

/** What etl.schema_changes holds of a run's attempts, in the order they were made. */
function changesOfRun(runId: string): Promise<ChangeRow[]> {
  return setting.warehouse.query<ChangeRow>(
    `select c.* from etl.schema_changes c join etl.attempts s on c.attempt_id = s.attempt_id::text
      where s.run = $1 order by c.change_id`,
    [runId],
  );
}

/** `table.column: type`, or `table.column: from → to`, as the reports print a change. */
function changeText(row: ChangeRow): string {
  const type = row.from_type === null ? row.to_type : `${row.from_type} → ${row.to_type}`;
  return `${row.table_name}.${row.column_name}: ${type}`;
}

/** The block a run's report prints of its changes, from etl.schema_changes itself. */
function block(heading: string, rows: readonly ChangeRow[]): string {
  return [heading, ...rows.map((row) => `  ${changeText(row)}`)].join("\n");
}

const runIdOf = (stdout: string) =>
  /^run (run-[0-9a-f-]+): `etl runs show/m.exec(stdout)?.[1] ?? "";

let driftRun = "";
let backfillRun = "";

describe("columns added or widened, as an operator sees them", () => {
  it("a sync whose only news is new columns lists them after its table and exits 0", async () => {
    const before = await etl(["sync", "--only", "dsps"]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).not.toContain("etl.schema_changes");

    setting.sandbox.setKnobs({ drift: { extraFields: true } });
    const sync = await etl(["sync", "--only", "dsps"]);
    expect(sync.code, sync.stdout).toBe(0);
    driftRun = runIdOf(sync.stdout);
    const made = await changesOfRun(driftRun);
    expect(made.map(changeText)).toEqual([
      "catalogue.dsps.x_unexpected: text",
      "catalogue.dsps.x_flags__beta: boolean",
    ]);
    // Right after the stream table (its total line), and nothing else to report.
    const lines = sync.stdout.split("\n");
    const total = lines.findIndex((line) => line.startsWith("total "));
    expect(lines.slice(total + 1, total + 3 + made.length)).toEqual([
      "",
      ...block("2 columns added (etl.schema_changes):", made).split("\n"),
    ]);
    expect(sync.stdout).not.toMatch(/attention|could not be typed|quarantined/);

    const shown = await etl(["runs", "show", driftRun]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(block("2 columns added (etl.schema_changes):", made));
    const earlier = await etl(["runs", "show", runIdOf(before.stdout)]);
    expect(earlier.stdout).not.toContain("etl.schema_changes");
  });

  it("`runs show` says what a widening was and how many of each", async () => {
    // The run's dsps attempt widens the column it added: as a later value needing text would.
    const [attempt] = await setting.warehouse.query<{ attempt_id: string; partition: string }>(
      "select attempt_id::text, partition from etl.attempts where run = $1",
      [driftRun],
    );
    await evolveTable(
      setting.warehouse.db as unknown as Kysely<unknown>,
      "catalogue.dsps",
      [{ field: ["x_flags", "beta"], kind: "text" }],
      { stream: "dsps", partition: attempt?.partition ?? "", attemptId: attempt?.attempt_id ?? "" },
    );
    const made = await changesOfRun(driftRun);
    expect(made.map(changeText)).toContain("catalogue.dsps.x_flags__beta: boolean → text");
    const shown = await etl(["runs", "show", driftRun]);
    expect(shown.stdout).toContain(block("2 columns added, 1 widened (etl.schema_changes):", made));
  });

  it("a waited backfill prints its changes as `runs show` does, exits 0, and /metrics counts every change", async () => {
    const worker = await spawnWorker({ cwd: setting.dir.path, env: env() });
    processes.push(worker);
    const wait = await etl([
      "backfill",
      "--from",
      "2026-01-03",
      "--to",
      "2026-01-03",
      "--only",
      "territories",
      "--wait",
    ]);
    expect(wait.code, wait.stdout).toBe(0);
    const runId = /backfill (run-[0-9a-f-]+) queued/.exec(wait.stdout)?.[1] ?? "";
    backfillRun = runId;
    const made = await changesOfRun(runId);
    expect(made.map(changeText)).toEqual([
      "catalogue.territories.x_unexpected: text",
      "catalogue.territories.x_flags__beta: boolean",
    ]);
    expect(wait.stdout).toContain(block("2 columns added (etl.schema_changes):", made));

    // Counted by Postgres: the changes the foreground syncs made are in this worker's counts.
    const counts = await setting.warehouse.query<{ table_name: string; change: string; n: number }>(
      "select table_name, change, count(*)::int as n from etl.schema_changes group by 1, 2",
    );
    expect(counts).toHaveLength(3);
    const metrics = await (await fetch(`${worker.operatorUrl}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE etl_schema_changes_total counter$/m);
    for (const { table_name, change, n } of counts) {
      expect(metrics).toContain(
        `etl_schema_changes_total{table="${table_name}",change="${change}"} ${n}\n`,
      );
    }
  });

  it("`status` counts the changes of the last 7 days and lists the latest with when", async () => {
    const latest = await setting.warehouse.query<ChangeRow>(
      "select * from etl.schema_changes order by change_id desc",
    );
    expect(latest).toHaveLength(5);
    const html = join(setting.dir.path, "status.html");
    const status = await etl(["status", "--html", html]);
    expect(status.code, status.stdout).toBe(0);
    const heading =
      "schema changes in the last 7 days: 4 columns added, 1 widened (events, not warnings; etl.schema_changes), latest first (UTC):";
    const when = latest.map((row) => utcMinuteOf(row.changed_at));
    const listed = latest.map((row, i) => `  ${when[i]}  ${changeText(row)}`);
    expect(status.stdout).toContain([heading, ...listed].join("\n"));
    // Not a stream's attention: nothing was lost.
    expect(status.stdout).not.toMatch(/^dsps\s.*attention/m);

    const page = readFileSync(html, "utf8");
    expect(page).toContain(
      `<pre id="schema-changes">${[heading, ...listed].join("\n").replaceAll("&", "&amp;")}</pre>`,
    );
  });

  it("a run that changed many columns lists 20 and says how many more; `status` the latest 5", async () => {
    const [attempt] = await setting.warehouse.query<{ attempt_id: string; partition: string }>(
      "select attempt_id::text, partition from etl.attempts where run = $1",
      [backfillRun],
    );
    const fields = Array.from({ length: 21 }, (_, i) => [`x_extra_${String(i).padStart(2, "0")}`]);
    await evolveTable(
      setting.warehouse.db as unknown as Kysely<unknown>,
      "catalogue.territories",
      fields.map((field) => ({ field, kind: "bigint" })),
      {
        stream: "territories",
        partition: attempt?.partition ?? "",
        attemptId: attempt?.attempt_id ?? "",
      },
    );
    const made = await changesOfRun(backfillRun);
    expect(made).toHaveLength(23);
    const shown = await etl(["runs", "show", backfillRun]);
    expect(shown.stdout).toContain(
      `${block("23 columns added (etl.schema_changes):", made.slice(0, 20))}\n  ... and 3 more (etl.schema_changes)\n`,
    );
    const status = await etl(["status"]);
    expect(status.stdout).toMatch(
      /^schema changes in the last 7 days: 25 columns added, 1 widened .*\n( {2}.*\n){5} {2}\.\.\. and 21 earlier\n/m,
    );
  });
});
