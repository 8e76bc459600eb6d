import { type DestinationStream, type LevelWithSilent, type Logger, pino } from "pino";
import { REDACTED, secretRedactor } from "./redact-secrets.js";

export type { Logger };

export interface LoggerOptions {
  readonly level: LevelWithSilent;
  /** Values that must never appear in a log line, whatever field or message carries them. */
  readonly secrets: readonly string[];
  /** Where lines go; standard error by default, so a command's own output stays clean on stdout. */
  readonly destination?: DestinationStream;
}

/**
 * Field-name redaction catches the usual carriers of a credential; the final scrub of every line
 * catches the rest (an upstream echoing the key in a message, a stack trace, a URL).
 */
export function createLogger(options: LoggerOptions): Logger {
  const redact = secretRedactor(options.secrets);
  return pino(
    {
      level: options.level,
      redact: {
        paths: [
          "authorization",
          "*.authorization",
          "headers.authorization",
          "*.headers.authorization",
          "apiKey",
          "*.apiKey",
          "MUSIC_API_KEY",
          "*.MUSIC_API_KEY",
        ],
        censor: REDACTED,
      },
      hooks: {
        streamWrite: redact,
      },
    },
    options.destination ?? defaultDestination(),
  );
}

/**
 * Standard error: JSON lines for machines, or readable colored lines when a person watches a
 * terminal (pino-pretty in a worker thread; the secret scrub above runs before either).
 */
function defaultDestination(): DestinationStream {
  return process.stderr.isTTY
    ? pino.transport({
        target: "pino-pretty",
        options: { destination: 2, translateTime: "SYS:HH:MM:ss" },
      })
    : pino.destination(2);
}
