import type { Command } from "commander";
import type { ExitCode } from "./exit-codes.js";
import type { Output } from "./output.js";
import type { ConfirmOptions, PayoutAmountOptions } from "./commands/payouts.js";

/** main.ts's wrapper that turns a command's outcome, or its error, into the exit code. */
type Action = <A extends unknown[]>(
  run: (...args: A) => Promise<ExitCode>,
) => (...args: A) => Promise<void>;

/**
 * The module that talks to the upstream is loaded when a payouts command runs: every command
 * starts with this group's help registered, and none of the others needs its client stack.
 */
const payoutsModule = () => import("./commands/payouts.js");

type PayoutsModule = Awaited<ReturnType<typeof payoutsModule>>;

/** The `payouts` group: the spec's write operations on the account's royalties. */
export function registerPayoutsCommand(program: Command, action: Action, out: Output): void {
  // A subcommand's action: its command, taken from the module once it is loaded.
  const run = <O>(
    command: (module: PayoutsModule) => (options: O, out: Output) => Promise<ExitCode>,
  ) => action(async (options: O) => command(await payoutsModule())(options, out));
  const payouts = program
    .command("payouts")
    .description(
      "royalties: request a payout, set the payout threshold, switch to monthly payouts (each asks for confirmation)",
    );
  payouts
    .command("request")
    .description(
      "request a payout; recorded in royalties.payout_requests before it is sent, so a re-run after a timeout or a crash resumes it with the same idempotency key",
    )
    .requiredOption("--amount <amount>", "at least 100, at most two decimals, e.g. 150.00")
    .option("--yes", "do not ask for confirmation (required without a terminal)")
    .action(run<PayoutAmountOptions>((m) => m.requestPayoutCommand));
  payouts
    .command("threshold")
    .description("set the payout threshold")
    .requiredOption("--amount <amount>", "at least 100, at most two decimals, e.g. 200.00")
    .option("--yes", "do not ask for confirmation (required without a terminal)")
    .action(run<PayoutAmountOptions>((m) => m.setThresholdCommand));
  payouts
    .command("monthly")
    .description("switch the account to monthly payouts (payouts on request are then refused)")
    .option("--yes", "do not ask for confirmation (required without a terminal)")
    .action(run<ConfirmOptions>((m) => m.setMonthlyTypeCommand));
}
