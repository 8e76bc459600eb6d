import { createInterface } from "node:readline/promises";
import { UsageError } from "../errors.js";

/** Asks a yes/no question on the terminal; anything but y or yes is a no. */
export type Confirm = (question: string) => Promise<boolean>;

export interface ConfirmationOptions {
  /** `--yes`: the caller has already agreed. */
  readonly yes?: boolean;
  readonly input?: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output?: NodeJS.WritableStream;
}

/**
 * How a command that changes something upstream gets its go-ahead: `--yes`, or an answer on a
 * terminal. Without either (a script, a pipe) it refuses before anything is done.
 */
export function confirmation(
  flag: string,
  { yes = false, input = process.stdin, output = process.stdout }: ConfirmationOptions = {},
): Confirm {
  if (yes) return () => Promise.resolve(true);
  if (!input.isTTY) {
    throw new UsageError(
      `no terminal to confirm on: pass ${flag} to confirm without asking (nothing was sent)`,
    );
  }
  return async (question) => {
    const readline = createInterface({ input, output });
    try {
      const answer = await readline.question(`${question} [y/N] `);
      return /^\s*y(es)?\s*$/i.test(answer);
    } finally {
      readline.close();
    }
  };
}
