import type { AttemptStatus } from "../warehouse/schema.js";
import type { DailyAttempts } from "../warehouse/sync-runs.js";
import { utcMinuteOf } from "../time/calendar.js";
import { type ColourName, COLOURS, HEALTH_MARKS, OUTCOME_MARKS, OUTCOMES } from "./status-marks.js";
import { STREAM_HEALTHS, type StreamHealth, streamHealth } from "./stream-health.js";
import { RECENT_SCHEMA_CHANGE_DAYS } from "./schema-change-lines.js";

/** One stream's line of the report, as `etl status` prints it. */
export interface StreamLine {
  readonly stream: string;
  readonly family: string;
  /** Its family's schedule (pattern and zone), "-" without one. */
  readonly schedule: string;
  readonly lastSuccess: string;
  readonly daysBehind: number | null;
  /** By the EtlStreamStale alert's rule (analytics.stream_freshness.stale). */
  readonly stale: boolean;
  /** Days from its first day to yesterday never synced; null for a stream that is not daily. */
  readonly missingDays: number | null;
  readonly failed: number;
  readonly failedShown: string;
  /** What needs looking at, empty when nothing does. */
  readonly attention: string;
}

export interface StatusReport {
  readonly generatedAt: Date;
  readonly days: readonly string[];
  readonly streams: readonly StreamLine[];
  readonly attempts: readonly DailyAttempts[];
  /** The columns added or widened lately as `etl status` prints them; empty when none. */
  readonly schemaChanges: readonly string[];
  /** The queue as `etl status` prints it, or why it could not be read. */
  readonly queue: readonly string[];
}

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

/** A state as the page shows it: coloured, with its symbol and name, and `title` on hover. */
function stateMark(health: StreamHealth, title: string): string {
  const { symbol } = HEALTH_MARKS[health];
  return `<span class="state state-${health}" title="${escape(title)}">${symbol} ${health}</span>`;
}

/** An outcome's part of a day's bar (`count` attempts), or its sample in the legend. */
function outcomeMark(status: AttemptStatus, count?: number): string {
  const { symbol } = OUTCOME_MARKS[status];
  if (count === undefined) {
    return `<span class="outcome outcome-${status}" title="${status}">${symbol}</span>`;
  }
  return `<span class="outcome outcome-${status}" style="flex-grow: ${count}" title="${count} ${status}">${symbol} ${count}</span>`;
}

/** Everything that applies to a stream, the worst (the state it is shown in) first. */
function stateTitle(line: StreamLine, health: StreamHealth): string {
  const facts = [
    line.failed > 0 ? `${line.failed} partitions failed for good (${line.failedShown})` : "",
    line.stale ? "no success for longer than its schedule allows" : "",
    line.daysBehind === null ? "never synced" : `${line.daysBehind} days behind`,
    line.missingDays ? `${line.missingDays} days never synced` : "",
    line.attention === "" ? "" : `needs attention: ${line.attention}`,
  ];
  return `${health}: ${facts.filter((fact) => fact !== "").join("; ")}`;
}

/** One day's attempts of a stream: a bar split by outcome, each part with its symbol and count. */
function dayCell(attempts: readonly DailyAttempts[]): string {
  const parts = OUTCOMES.flatMap((status) => {
    const n = attempts.find((a) => a.status === status)?.attempts ?? 0;
    return n === 0 ? [] : [{ status, n }];
  });
  if (parts.length === 0) return `<td class="day empty" title="no attempt"></td>`;
  const title = parts.map((p) => `${p.n} ${p.status}`).join(", ");
  const bar = parts.map((p) => outcomeMark(p.status, p.n)).join("");
  return `<td class="day" title="${escape(title)}"><div class="bar">${bar}</div></td>`;
}

function streamRow(line: StreamLine, attempts: readonly DailyAttempts[], days: readonly string[]) {
  const health = streamHealth(line);
  // The days come before the two columns of free text, which wrap: on a screen 1,200 pixels
  // wide every day shows without scrolling, however long a stream's notes are.
  const cells = [
    `<th scope="row">${escape(line.stream)}<br><small>${escape(line.family)}, ${escape(line.schedule)}</small></th>`,
    `<td>${stateMark(health, stateTitle(line, health))}</td>`,
    `<td class="when">${escape(line.lastSuccess)}</td>`,
    `<td>${line.daysBehind === null ? "-" : line.daysBehind}</td>`,
    `<td>${line.missingDays ?? "-"}</td>`,
    `<td>${line.failed}</td>`,
    ...days.map((day) => dayCell(attempts.filter((a) => a.day === day))),
    `<td class="note">${escape(line.failedShown)}</td>`,
    `<td class="note">${escape(line.attention)}</td>`,
  ];
  return `<tr data-stream="${escape(line.stream)}">${cells.join("")}</tr>`;
}

/** Marks of one colour, each with its meaning. */
function samples(marks: readonly { sample: string; meaning: string }[]): string {
  if (marks.length === 0) return "<td></td>";
  return `<td><ul>${marks.map((m) => `<li>${m.sample}: ${escape(m.meaning)}</li>`).join("")}</ul></td>`;
}

/** Every colour of the page, named, with what it means for a stream and for a day's attempts. */
function legend(): string {
  const rows = (Object.keys(COLOURS) as ColourName[]).map((colour) => {
    const states = STREAM_HEALTHS.filter((h) => HEALTH_MARKS[h].colour === colour).map((h) => ({
      sample: stateMark(h, `${h}: ${HEALTH_MARKS[h].meaning}`),
      meaning: HEALTH_MARKS[h].meaning,
    }));
    const outcomes = OUTCOMES.filter((o) => OUTCOME_MARKS[o].colour === colour).map((o) => ({
      sample: `${outcomeMark(o)} ${o}`,
      meaning: OUTCOME_MARKS[o].meaning,
    }));
    return `<tr><th scope="row">${colour}</th>${samples(states)}${samples(outcomes)}</tr>`;
  });
  return `<table id="legend">
<thead><tr><th scope="col">colour</th><th scope="col">state of a stream</th><th scope="col">sync attempts of a day</th></tr></thead>
<tbody>
${rows.join("\n")}
</tbody>
</table>`;
}

const MARK_STYLE = [
  ...STREAM_HEALTHS.map((h) => `.state-${h} { color: ${COLOURS[HEALTH_MARKS[h].colour]}; }`),
  ...OUTCOMES.map((o) => `.outcome-${o} { background: ${COLOURS[OUTCOME_MARKS[o].colour]}; }`),
].join("\n");

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; background: #fff; }
table { border-collapse: collapse; }
th, td { padding: 4px 6px; border-bottom: 1px solid #d0d7de; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
.state { font-weight: 600; white-space: nowrap; }
td.day { min-width: 48px; }
td.when { white-space: nowrap; }
td.note { min-width: 10em; max-width: 18em; overflow-wrap: anywhere; }
th small { font-weight: normal; font-size: 12px; }
.bar { display: flex; gap: 1px; }
.outcome { flex: 0 0 auto; padding: 0 3px; font-size: 11px; line-height: 16px; color: #fff; white-space: nowrap; }
#legend ul { margin: 0; padding-left: 1.2em; }
pre { background: #f6f8fa; padding: 1em; }
${MARK_STYLE}
`;

/** The columns added or widened lately: news, uncoloured (no state of a stream depends on it). */
function schemaChanges(lines: readonly string[]): string {
  if (lines.length === 0) {
    return `<p>No column added or widened in the last ${RECENT_SCHEMA_CHANGE_DAYS} days.</p>`;
  }
  return `<pre id="schema-changes">${escape(lines.join("\n"))}</pre>`;
}

/** `etl status` as one self-contained page: no script, no external resource. */
export function statusHtml(report: StatusReport): string {
  const generated = utcMinuteOf(report.generatedAt);
  const head = [
    "stream (family, schedule)",
    "state",
    "last success (UTC)",
    "days behind",
    "missing days",
    "failed",
    ...report.days.map((day) => day.slice(5)),
    "failed partitions",
    "attention",
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
yesterday; for the others, since the last success. A stream is shown in the worst state that
applies to it, in this order: ${STREAM_HEALTHS.join(", ")}; so a stream with failed partitions,
or one that needs attention, is never shown current. Hover a state for everything that applies.
The columns after "failed" are each day's sync attempts (UTC), by outcome. Every colour is in the legend
below, and every mark also has its symbol and its words.</p>
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
<h2>Legend</h2>
${legend()}
<h2>Schema changes</h2>
${schemaChanges(report.schemaChanges)}
<h2>Queue</h2>
<pre>${escape(report.queue.join("\n"))}</pre>
</body>
</html>
`;
}
