import { Command, CommanderError } from "commander";
import { checkCommand } from "./commands/check.js";
import { ExitCode } from "./exit-codes.js";
import { reportError } from "./report-error.js";

const stdout = { line: (text: string) => process.stdout.write(`${text}\n`) };
const writeError = (line: string) => process.stderr.write(`${line}\n`);

/** Runs a command and turns its outcome, or its error, into the process's exit code. */
function action(run: () => Promise<ExitCode>) {
  return async () => {
    try {
      process.exitCode = await run();
    } catch (error) {
      process.exitCode = reportError(error, writeError);
    }
  };
}

const program = new Command("etl")
  .description("Keeps a Postgres warehouse in sync with a music distribution account's API.")
  .addHelpText(
    "after",
    `
Configuration (see README.md):
  environment  MUSIC_API_URL, MUSIC_API_KEY, DATABASE_URL, REDIS_URL, ETL_CONFIG, LOG_LEVEL
               (a .env file in the working directory fills in what is not set)
  file         the JSON file named by ETL_CONFIG (default ./etl.config.json)

Exit codes: 0 ok, 1 failed, 2 bad configuration or arguments, 3 credential refused`,
  )
  .exitOverride()
  .showHelpAfterError();

program
  .command("check")
  .description("validate the configuration, check Postgres and Redis, and call the upstream once")
  .action(action(() => checkCommand(stdout)));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Help and version end "with an error" in commander's override mode; they are successes.
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  } else {
    process.exitCode = reportError(error, writeError);
  }
}
