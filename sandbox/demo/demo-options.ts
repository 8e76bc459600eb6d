import { parseArgs } from "node:util";

export const DEFAULT_DEMO_DATABASE = "music_etl_demo";

export const DEMO_USAGE = `Usage: npm run demo -- [options]
  --database <name>   DEMO_DATABASE   the database the demo makes on the DATABASE_URL server and
                                      re-creates on every run, default ${DEFAULT_DEMO_DATABASE}
                                      (letters, digits and _, at most 63, not starting with a digit)
The demo drops only a database it made itself; it refuses any other of that name.`;

/**
 * Postgres cuts a longer name to 63 bytes and folds nothing in a quoted one: a name outside this
 * pattern would make a database other than the one the demo checks for its mark.
 */
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export interface DemoOptions {
  readonly database: string;
}

/** The demo's arguments were not understood: the message says why, with the usage. */
export class DemoUsageError extends Error {
  constructor(reason: string) {
    super(`${reason}\n\n${DEMO_USAGE}`);
    this.name = "DemoUsageError";
  }
}

/** A setting from its flag, else its environment variable unless blank, else undefined. */
function setting(flag: string | undefined, fromEnv: string | undefined): string | undefined {
  if (flag !== undefined) return flag;
  const text = fromEnv?.trim();
  return text ? text : undefined;
}

/** The demo's options from its arguments, then its environment; null when help was asked for. */
export function demoOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): DemoOptions | null {
  let values: { database?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        database: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new DemoUsageError((error as Error).message);
  }
  if (values.help === true) return null;
  const database = setting(values.database, env.DEMO_DATABASE) ?? DEFAULT_DEMO_DATABASE;
  if (!DATABASE_NAME.test(database)) {
    throw new DemoUsageError(
      `--database / DEMO_DATABASE must be letters, digits and _ (at most 63, not starting with a digit), got ${JSON.stringify(database)}`,
    );
  }
  return { database };
}
