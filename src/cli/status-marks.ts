import type { AttemptStatus } from "../warehouse/schema.js";
import type { StreamHealth } from "./stream-health.js";

/**
 * The colours of the status page, by name. Each is dark enough for text on white and for white
 * text on it (contrast 4.5 or more).
 */
export const COLOURS = {
  red: "#cf222e",
  amber: "#9a6700",
  green: "#1a7f37",
  blue: "#0969da",
  purple: "#8250df",
  grey: "#57606a",
} as const;

export type ColourName = keyof typeof COLOURS;

/** How a state is marked: a colour, and a symbol that says the same to who cannot tell it. */
export interface Mark {
  readonly colour: ColourName;
  readonly symbol: string;
  readonly meaning: string;
}

/** A stream's state, in the state column. Red is a failure, amber a warning. */
export const HEALTH_MARKS: Readonly<Record<StreamHealth, Mark>> = {
  failed: {
    colour: "red",
    symbol: "✗",
    meaning: "partitions failed for good (under failed partitions; etl retry-failed queues them)",
  },
  stale: {
    colour: "red",
    symbol: "✗",
    meaning:
      "no success for longer than twice its schedule's interval (the EtlStreamStale alert's rule)",
  },
  behind: { colour: "red", symbol: "✗", meaning: "more than 3 days behind" },
  attention: {
    colour: "amber",
    symbol: "!",
    meaning:
      "something needs looking at (under attention): partitions retrying, records quarantined, " +
      "lists possibly incomplete, values a reader could not read, answers that declared failure",
  },
  late: { colour: "amber", symbol: "!", meaning: "2 or 3 days behind" },
  never: { colour: "grey", symbol: "–", meaning: "never synced" },
  current: {
    colour: "green",
    symbol: "✓",
    meaning: "0 or 1 day behind, nothing failed, nothing needs attention",
  },
};

/** The outcomes of a day's sync attempts, in the order of the bars. */
export const OUTCOMES: readonly AttemptStatus[] = [
  "succeeded",
  "failed",
  "interrupted",
  "abandoned",
  "running",
];

export const OUTCOME_MARKS: Readonly<Record<AttemptStatus, Mark>> = {
  succeeded: { colour: "green", symbol: "✓", meaning: "attempts that succeeded" },
  failed: { colour: "red", symbol: "✗", meaning: "attempts that failed" },
  interrupted: {
    colour: "amber",
    symbol: "‖",
    meaning:
      "attempts stopped by a shutdown or a refused key and handed back (not a failure of the partition)",
  },
  abandoned: {
    colour: "purple",
    symbol: "⊘",
    meaning: "attempts that ended unrecorded (their process died, or Postgres failed)",
  },
  running: { colour: "blue", symbol: "▸", meaning: "attempts still running" },
};
