import type { AttemptStatus } from "../warehouse/schema.js";
import type { DailyAttempts } from "../warehouse/attempt-history.js";
import { utcMinuteOf } from "../time/calendar.js";
import { type ColourName, COLOURS, HEALTH_MARKS, OUTCOME_MARKS, OUTCOMES } from "./status-marks.js";
import { STREAM_HEALTHS, type StreamHealth, streamHealth } from "./stream-health.js";
import { RECENT_SCHEMA_CHANGE_DAYS } from "./schema-change-lines.js";
import { shortCount } from "./short-count.js";

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
  return `<span class="outcome outcome-${status}" style="flex-grow: ${count}" title="${count} ${status}">${symbol} ${shortCount(count)}</span>`;
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

/**
 * Words kept on one line, each (a date, a time, a cron pattern): a browser would otherwise break
 * a date after its hyphens and a pattern between its stars when the columns are narrow.
 */
function unbroken(...words: readonly string[]): string {
  return words.map((word) => `<span class="unbroken">${escape(word)}</span>`).join(" ");
}

/** Text as HTML that may also break after each `separator`. */
function breakingAfter(text: string, separator: string): string {
  return escape(text).replaceAll(separator, `${separator}<wbr>`);
}

/**
 * A schedule's pattern on one line, then its zone (which has no space), which may break after a
 * slash: the longest zones (America/Argentina/Buenos_Aires) would widen the streams' column.
 */
function schedule(text: string): string {
  const zoneAt = text.lastIndexOf(" ");
  if (zoneAt < 0) return unbroken(text);
  return `${unbroken(text.slice(0, zoneAt))} ${breakingAfter(text.slice(zoneAt + 1), "/")}`;
}

/** A stream's free text, on a line of its own below its row (empty when it has none). */
function notesRow(line: StreamLine, columns: number): string {
  const notes = [
    line.failedShown === "" ? "" : `<p><b>failed partitions:</b> ${escape(line.failedShown)}</p>`,
    line.attention === "" ? "" : `<p><b>attention:</b> ${escape(line.attention)}</p>`,
  ].join("");
  if (notes === "") return "";
  return `<tr class="notes" data-notes="${escape(line.stream)}"><td colspan="${columns}"><div>${notes}</div></td></tr>`;
}

/**
 * A stream's rows: its facts and a column per day, then its failed partitions and what needs
 * attention (when it has any) on a row of their own below, as wide as the table. In columns of
 * their own, free text would take the width fourteen days need on a screen 1,200 pixels wide.
 */
function streamRows(line: StreamLine, attempts: readonly DailyAttempts[], days: readonly string[]) {
  const health = streamHealth(line);
  const cells = [
    `<td>${stateMark(health, stateTitle(line, health))}</td>`,
    `<td class="when">${unbroken(...line.lastSuccess.split(" "))}</td>`,
    `<td class="count">${line.daysBehind === null ? "-" : line.daysBehind}</td>`,
    `<td class="count">${line.missingDays ?? "-"}</td>`,
    `<td class="count">${line.failed}</td>`,
    ...days.map((day) => dayCell(attempts.filter((a) => a.day === day))),
  ];
  const notes = notesRow(line, cells.length);
  const name = `<th scope="row"${notes === "" ? "" : ` rowspan="2"`}><span class="name">${breakingAfter(line.stream, "_")}</span><small>${escape(line.family)}, ${schedule(line.schedule)}</small></th>`;
  return `<tr data-stream="${escape(line.stream)}">${name}${cells.join("")}</tr>${notes}`;
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

// The page fits a screen 1,200 pixels wide with 30 streams and 14 days, nothing cut. Every
// column may wrap: a stream's name after its underscores, its schedule's zone after its slashes,
// its last success after the date, a day's bar after each outcome. A day's column is as narrow as
// its bars allow (width: 1px), so the width left goes to the names. A stream's notes take the
// width of the row below it and ask for none (contain: inline-size): the table's columns are
// sized by the facts and the days alone.
const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em; color: #1b1f24; background: #fff; }
table { border-collapse: collapse; }
th, td { padding: 4px; border-bottom: 1px solid #d0d7de; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; font-size: 13px; }
#streams th small { display: block; font-weight: normal; font-size: 12px; }
#streams tr:has(+ tr.notes) td { border-bottom: none; }
tr.notes td { padding-top: 0; font-size: 13px; overflow-wrap: anywhere; }
tr.notes div { contain: inline-size; }
tr.notes p { margin: 0; }
.state { font-weight: 600; white-space: nowrap; }
.count { text-align: right; }
.unbroken { white-space: nowrap; }
.day { padding: 4px 1px; width: 1px; }
th.day { font-size: 12px; }
.bar { display: flex; flex-wrap: wrap; gap: 1px; }
.outcome { flex: 0 0 auto; padding: 0 2px; font-size: 11px; line-height: 16px; color: #fff; white-space: nowrap; }
#legend ul { margin: 0; padding-left: 1.2em; }
pre { background: #f6f8fa; padding: 1em; white-space: pre-wrap; overflow-wrap: anywhere; }
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
  const column = (text: string, className?: string) =>
    `<th scope="col"${className ? ` class="${className}"` : ""}>${escape(text)}</th>`;
  const head = [
    column("stream (family, schedule)"),
    column("state"),
    column("last success (UTC)"),
    ...["days behind", "missing days", "failed"].map((text) => column(text, "count")),
    ...report.days.map((day) => `<th scope="col" class="day">${unbroken(day.slice(5))}</th>`),
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
The columns after "failed" are each day's sync attempts (UTC), by outcome; a count of a thousand or
more is shortened (1.2k, 12k), hover it for the exact count. A stream's failed partitions and what
needs attention are on a line below it. Every colour is in the legend below, and every mark also
has its symbol and its words.</p>
<table id="streams">
<thead><tr>${head.join("")}</tr></thead>
<tbody>
${report.streams
  .map((line) =>
    streamRows(
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
