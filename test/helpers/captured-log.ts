import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/logging/logger.js";

/** A logger at info that redacts `secrets`, and the lines it wrote, as written. */
export function capturedLog(secrets: readonly string[]): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    level: "info",
    secrets,
    destination: new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    }),
  });
  return { logger, lines };
}
