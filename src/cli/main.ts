import { hostname } from "node:os";
import { Command, CommanderError } from "commander";
import type { BackfillOptions } from "./commands/backfill.js";
import type { GrantReaderOptions } from "./commands/grant-reader.js";
import type { MigrateCommandOptions } from "./commands/migrate.js";
import type { PlanOptions } from "./commands/plan.js";
import type { StatusOptions } from "./commands/status.js";
import type { ReplayOptions } from "./commands/replay.js";
import type { RequeueOptions } from "./commands/requeue.js";
import type { RunsOptions } from "./commands/runs.js";
import type { RolesOptions } from "./commands/roles.js";
import type { RetryFailedOptions } from "./commands/retry-failed.js";
import type { DismissFailedOptions } from "./commands/dismiss-failed.js";
import type { SyncOptions } from "./commands/sync.js";
import { packageVersion } from "../package-version.js";
import { registerPayoutsCommand } from "./payouts-command.js";
import { ExitCode } from "./exit-codes.js";
import { standardOutput } from "./follow-run.js";
import { reportError } from "./report-error.js";

const stdout = standardOutput();
// `etl status | head` closes the pipe early: that is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});
const writeError = (line: string) => process.stderr.write(`${line}\n`);
/**
 * The worker's error that ends it before it runs, as the JSON line its logs are (pino's fields,
 * level fatal) when no person watches standard error: a log collector reads one format.
 */
const writeFatal = (line: string) =>
  process.stderr.isTTY
    ? writeError(line)
    : writeError(
        JSON.stringify({
          level: 60,
          time: Date.now(),
          pid: process.pid,
          hostname: hostname(),
          msg: line,
        }),
      );

/**
 * Each command's module is loaded when it runs: the worker's queue and web libraries are a
 * third of the start-up time of a command that needs none of them.
 */
const commands = {
  backfill: () => import("./commands/backfill.js"),
  check: () => import("./commands/check.js"),
  grantReader: () => import("./commands/grant-reader.js"),
  migrate: () => import("./commands/migrate.js"),
  plan: () => import("./commands/plan.js"),
  replay: () => import("./commands/replay.js"),
  requeue: () => import("./commands/requeue.js"),
  roles: () => import("./commands/roles.js"),
  runs: () => import("./commands/runs.js"),
  retryFailed: () => import("./commands/retry-failed.js"),
  dismissFailed: () => import("./commands/dismiss-failed.js"),
  status: () => import("./commands/status.js"),
  sync: () => import("./commands/sync.js"),
  worker: () => import("./commands/worker.js"),
};

/**
 * The environment, to name the variable behind a service an error could not reach: loaded only
 * then, like the commands' modules.
 */
async function environmentForErrors() {
  return (await import("../config/load-config.js")).validEnvironment();
}

/** Runs a command and turns its outcome, or its error, into the process's exit code. */
function action<A extends unknown[]>(
  run: (...args: A) => Promise<ExitCode>,
  write: (line: string) => void = writeError,
) {
  return async (...args: A) => {
    try {
      process.exitCode = await run(...args);
    } catch (error) {
      process.exitCode = reportError(error, write, await environmentForErrors());
    }
  };
}

const program = new Command("etl")
  .description("Keeps a Postgres warehouse in sync with a music distribution account's API.")
  .addHelpText(
    "after",
    `
Configuration (see docs/configuration.md):
  environment  MUSIC_API_URL, MUSIC_API_KEY, DATABASE_URL, REDIS_URL, ETL_CONFIG, LOG_LEVEL,
               WORKER_PORT, WORKER_HOST, OPERATOR_TOKEN (a .env file in the working directory
               fills in what is not set)
  file         the JSON file named by ETL_CONFIG (default ./etl.config.json)

Exit codes: 0 ok, 1 failed, 2 bad configuration or arguments, 3 credential refused,
            4 records quarantined or a list possibly incomplete (sync, replay,
              backfill --wait),
              a power the reader keeps that could not be revoked (grant-reader),
            130 stopped by SIGTERM or SIGINT (sync, replay)`,
  )
  .version(packageVersion(), "-V, --version", "print the release (package.json's version)")
  .exitOverride()
  .showHelpAfterError();

program
  .command("check")
  .description("validate the configuration, check Postgres and Redis, and call the upstream once")
  .option("--notify", "also send a test notification to every configured target")
  .action(
    action(async (options: { notify?: boolean }) =>
      (await commands.check()).checkCommand(stdout, options),
    ),
  );

program
  .command("migrate")
  .description("create the database if it does not exist, then apply every pending migration")
  .option(
    "--lock-timeout <seconds>",
    "give up waiting for a lock after this long (default 60), naming the sessions holding it",
  )
  .action(
    action(async (options: MigrateCommandOptions) =>
      (await commands.migrate()).migrateCommand(options, stdout),
    ),
  );

program
  .command("grant-reader")
  .description("create (if missing) a read-only role for BI tools and grant it the warehouse")
  .argument("<role>", "role name: lower-case letters, digits and underscores")
  .option("--login", "make it a login role (default for a new role: NOLOGIN)")
  .option("--password-env <NAME>", "with --login: set the password read from this variable")
  .option(
    "--statement-timeout <seconds>",
    "cancel the role's queries that run longer (default 120), so none holds up a migration",
  )
  .option("--connection-limit <n>", "sessions the role may hold at once (default 10; -1: no limit)")
  .action(
    action(async (role: string, options: GrantReaderOptions) =>
      (await commands.grantReader()).grantReaderCommand(role, options, stdout),
    ),
  );

/** A command that picks streams and days: --only, --from and --to, as they all take them. */
function streamsAndDays(
  name: string,
  description: string,
  days: { from: string; to: string },
): Command {
  return program
    .command(name)
    .description(description)
    .option("--only <streams>", "comma-separated stream or family names (see status)")
    .option("--from <YYYY-MM-DD>", days.from)
    .option("--to <YYYY-MM-DD>", days.to);
}

const INCREMENTAL_DAYS = {
  from: "first day of daily streams (default: incremental)",
  to: "last day of daily streams, inclusive (default: yesterday UTC)",
};

streamsAndDays(
  "sync",
  "sync every stream (or those named) once, in the foreground",
  INCREMENTAL_DAYS,
).action(
  action(async (options: SyncOptions) => (await commands.sync()).syncCommand(options, stdout)),
);

streamsAndDays(
  "replay",
  "derive the typed tables again from stored responses, with no upstream request (after a reader changed)",
  {
    from: "first day: daily partitions by their day, others by the day fetched",
    to: "last day, inclusive",
  },
).action(
  action(async (options: ReplayOptions) =>
    (await commands.replay()).replayCommand(options, stdout),
  ),
);

program
  .command("worker")
  .description(
    "run the worker: scheduled runs and backfills from the queue; /livez, /readyz, /metrics and /queues on WORKER_PORT",
  )
  .action(action(async () => (await commands.worker()).workerCommand(), writeFatal));

program
  .command("backfill")
  .description("queue a backfill for the workers: daily streams over the range, the others once")
  .requiredOption("--from <YYYY-MM-DD>", "first day, inclusive")
  .requiredOption("--to <YYYY-MM-DD>", "last day, inclusive")
  .option("--only <streams>", "comma-separated stream or family names")
  .option("--wait", "follow it with a progress bar; exit 1 if any partition failed")
  .action(
    action(async (options: BackfillOptions) =>
      (await commands.backfill()).backfillCommand(options, stdout),
    ),
  );

streamsAndDays(
  "retry-failed",
  "queue for the workers the partitions whose last attempt failed (see status), as the streams plan them today",
  {
    from: "daily partitions: first day, inclusive (default: every day)",
    to: "daily partitions: last day, inclusive",
  },
)
  .option("--wait", "follow it with a progress bar; exit 1 if any partition failed again")
  .option(
    "--permanent",
    "also queue failures no retry can cure (a 404 for an unknown artist), left out by default",
  )
  .action(
    action(async (options: RetryFailedOptions) =>
      (await commands.retryFailed()).retryFailedCommand(options, stdout),
    ),
  );

program
  .command("dismiss-failed")
  .description(
    "close the failures of partitions the configuration no longer plans (an artist taken out of it), so status can be green again; keeps their errors",
  )
  .option("--only <streams>", "comma-separated stream or family names (see status)")
  .action(
    action(async (options: DismissFailedOptions) =>
      (await commands.dismissFailed()).dismissFailedCommand(options, stdout),
    ),
  );

program
  .command("requeue")
  .description(
    "queue again a run the queue lost (status lists them: Redis lost its data), the same kind, streams and days",
  )
  .argument("[run]", "the lost run's id, as status lists it")
  .option("--lost", "every lost run not queued again yet")
  .option("--wait", "follow the run with a progress bar, as backfill --wait does")
  .action(
    action(async (run: string | undefined, options: RequeueOptions) =>
      (await commands.requeue()).requeueCommand(run, options, stdout),
    ),
  );

streamsAndDays(
  "plan",
  "show the partitions and requests a sync (or, with --from/--to, a backfill) would make, and how long they take at the configured rate; sends no request",
  INCREMENTAL_DAYS,
).action(
  action(async (options: PlanOptions) => (await commands.plan()).planCommand(options, stdout)),
);

program
  .command("runs")
  .description(
    "list the latest runs (backfills, retries, scheduled runs, syncs, replays); `runs show <run>`: one run's table per stream, from its attempts",
  )
  .argument("[show]", "show: one run's table")
  .argument("[run]", "the run's id, as the commands print it and `etl runs` lists it")
  .option("--limit <n>", "runs listed (default 20)")
  .action(
    action(async (show: string | undefined, run: string | undefined, options: RunsOptions) =>
      (await commands.runs()).runsCommand(show, run, options, stdout),
    ),
  );

program
  .command("roles")
  .description(
    "show which typed column each meaning of the analytics views resolved to (a list item's units, a title, ...), how, and on what evidence",
  )
  .option(
    "--resolve",
    "resolve them again first from the warehouse and the config's roles (no request)",
  )
  .action(
    action(async (options: RolesOptions) => (await commands.roles()).rolesCommand(options, stdout)),
  );

program
  .command("status")
  .description("show each stream's last success, how many days behind it is, and failed partitions")
  .option("--html <file>", "also write the report as a page: freshness and recent runs per stream")
  .action(
    action(async (options: StatusOptions) =>
      (await commands.status()).statusCommand(options, stdout),
    ),
  );

registerPayoutsCommand(program, action, stdout);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Help and version end "with an error" in commander's override mode; they are successes.
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  } else {
    process.exitCode = reportError(error, writeError, await environmentForErrors());
  }
}
