import type { AttemptStatus } from "../warehouse/schema.js";
import type { DailyAttempts } from "../warehouse/sync-runs.js";
import { utcMinuteOf } from "../time/calendar.js";

/** One stream's line of the report, as `etl status` prints it. */
export interface StreamLine {
  readonly stream: string;
  readonly family: string;
  readonly lastSuccess: string;
  readonly daysBehind: number | null;
  readonly failed: number;
  readonly failedShown: string;
  readonly attention: string;
}

export interface StatusReport {
  readonly generatedAt: Date;
  readonly days: readonly string[];
  readonly streams: readonly StreamLine[];
  readonly attempts: readonly DailyAttempts[];
  /** The queue as `etl status` prints it, or why it could not be read. */
  readonly queue: readonly string[];
}

const OUTCOMES: readonly AttemptStatus[] = [
  "succeeded",
  "failed",
  "interrupted",
  "abandoned",
  "running",
];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text as HTML: stream names and errors come from the warehouse, never trusted as markup. */
function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** How fresh a stream looks: current (0–1 days behind), late (2–3), stale (more), or never. */
function freshness(line: StreamLine): string {
  if (line.daysBehind === null) return "never";
  if (line.daysBehind <= 1) return "current";
  return line.daysBehind <= 3 ? "late" : "stale";
}

/** One day's attempts of a stream: a bar split by outcome, with the counts as its title. */
function dayCell(attempts: readonly DailyAttempts[]): string {
  const total = attempts.reduce((n, a) => n + a.attempts, 0);
  if (total === 0) return `<td class="day empty" title="no attempt"></td>`;
  const parts = OUTCOMES.flatMap((status) => {
    const n = attempts.find((a) => a.status === status)?.attempts ?? 0;
    return n === 0 ? [] : [{ status, n }];
  });
  const title = parts.map((p) => `${p.n} ${p.status}`).join(", ");
  const bar = parts.map((p) => `<span class="${p.status}" style="flex: ${p.n}"></span>`).join("");
  return `<td class="day" title="${escape(title)}"><div class="bar">${bar}</div>${total}</td>`;
}

function streamRow(line: StreamLine, attempts: readonly DailyAttempts[], days: readonly string[]) {
  const cells = [
    `<th scope="row">${escape(line.stream)}</th>`,
    `<td>${escape(line.family)}</td>`,
    `<td>${escape(line.lastSuccess)}</td>`,
    `<td class="${freshness(line)}">${line.daysBehind === null ? "-" : line.daysBehind}</td>`,
    `<td class="${line.failed > 0 ? "failed-count" : ""}">${line.failed}</td>`,
    `<td>${escape(line.failedShown)}</td>`,
    `<td>${escape(line.attention)}</td>`,
    ...days.map((day) => dayCell(attempts.filter((a) => a.day === day))),
  ];
  return `<tr data-stream="${escape(line.stream)}">${cells.join("")}</tr>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1b1f24; }
table { border-collapse: collapse; }
th, td { padding: 4px 8px; border-bottom: 1px solid #d0d7de; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
.current { color: #1a7f37; } .late { color: #9a6700; font-weight: 600; }
.stale, .failed-count { color: #cf222e; font-weight: 600; } .never { color: #57606a; }
td.day { min-width: 48px; font-size: 12px; color: #57606a; }
.bar { display: flex; height: 10px; margin-bottom: 2px; }
.bar .succeeded { background: #2da44e; } .bar .failed { background: #cf222e; }
.bar .interrupted { background: #bf8700; } .bar .abandoned { background: #8250df; }
.bar .running { background: #0969da; }
pre { background: #f6f8fa; padding: 1em; }
`;

/** `etl status` as one self-contained page: no script, no external resource. */
export function statusHtml(report: StatusReport): string {
  const generated = utcMinuteOf(report.generatedAt);
  const head = [
    "stream",
    "family",
    "last success (UTC)",
    "days behind",
    "failed",
    "failed partitions",
    "attention",
    ...report.days.map((day) => day.slice(5)),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>music-etl status, ${generated} UTC</title>
<style>${STYLE}</style>
</head>
<body>
<h1>music-etl status</h1>
<p>Generated ${generated} UTC. Days behind: for daily streams, from the last day synced to
yesterday; for the others, since the last success. The last columns are each day's sync attempts
(UTC), by outcome: <span class="current">succeeded</span>, <span class="stale">failed</span>,
interrupted, abandoned, running.</p>
<table>
<thead><tr>${head.map((h) => `<th scope="col">${escape(h)}</th>`).join("")}</tr></thead>
<tbody>
${report.streams
  .map((line) =>
    streamRow(
      line,
      report.attempts.filter((a) => a.stream === line.stream),
      report.days,
    ),
  )
  .join("\n")}
</tbody>
</table>
<h2>Queue</h2>
<pre>${escape(report.queue.join("\n"))}</pre>
</body>
</html>
`;
}
