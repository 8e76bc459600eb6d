import type { CallOptions } from "../../api/api-client.js";
import { type AppContext, createAppContext } from "../../app-context.js";
import { loadAppConfig } from "../load-app-config.js";
import { UpstreamStatusError } from "../../http/upstream-errors.js";
import { createWarehouse, type Warehouse } from "../../warehouse/database.js";
import { migrateToLatest } from "../../warehouse/migrate.js";
import {
  findUnfinishedPayoutRequest,
  lastKnownBalance,
  otherUnfinishedPayoutRequests,
  type PayoutRequestOutcome,
  recordPayoutOutcome,
  type StartedPayoutRequest,
  startPayoutRequest,
} from "../../warehouse/payout-requests.js";
import { parseAmountOption } from "../amount-option.js";
import { type Confirm, confirmation } from "../confirm.js";
import { ExitCode } from "../exit-codes.js";
import type { Output } from "../output.js";
import {
  type PayoutRequestResult,
  type WriteResult,
  requestPayoutOperation,
  setMonthlyTypeOperation,
  setThresholdOperation,
} from "../../streams/royalties/payout-writes.js";

export interface PayoutAmountOptions {
  readonly amount: string;
  readonly yes?: boolean;
}

export interface ConfirmOptions {
  readonly yes?: boolean;
}

const YES_FLAG = "--yes";

function formatTime(at: Date): string {
  return `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** What the upstream's refusal `type` means (spec, Errors). */
export function refusalMeaning(type: number | null): string {
  switch (type) {
    case 1:
      return "type 1: insufficient funds (the amount is above the available balance)";
    case 0:
      return "type 0: the withdrawal type cannot change now (e.g. the account is set to monthly payouts, so payouts on request are refused)";
    case null:
      return "no type given";
    default:
      return `type ${type}: a reason the spec does not document`;
  }
}

function printRefusal(result: WriteResult & { accepted: false }, out: Output): void {
  out.line(`refused: ${result.message ?? "(no message)"}`);
  out.line(`  ${refusalMeaning(result.type)}`);
}

function quoted(message: string | null): string {
  return message === null ? "" : ` (upstream: "${message}")`;
}

/** A failure that proves the upstream did not make the payout under this key. */
function isDefiniteRefusal(error: unknown): error is UpstreamStatusError {
  return (
    error instanceof UpstreamStatusError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![408, 409, 425].includes(error.status)
  );
}

/**
 * `payouts request`: validated locally, confirmed, recorded (committed) with its idempotency key,
 * then sent. Every try, and every re-run while it is unfinished, carries the same key, so
 * the upstream makes at most one payout for it.
 */
export async function requestPayoutCommand(
  options: PayoutAmountOptions,
  out: Output,
): Promise<ExitCode> {
  const amount = parseAmountOption(options.amount);
  const confirm = confirmation(YES_FLAG, { yes: options.yes });
  const config = loadAppConfig();
  const db = createWarehouse(config.env.DATABASE_URL, { maxConnections: 2 });
  let context: AppContext | undefined;
  try {
    await migrateToLatest(db);
    context = await createAppContext(config);
    if (!(await confirmRequest(db, amount, confirm, out))) {
      out.line("cancelled: nothing was sent");
      return ExitCode.failure;
    }
    return await sendPayoutRequest(db, context, amount, out);
  } finally {
    await context?.close();
    await db.destroy();
  }
}

async function confirmRequest(
  db: Warehouse,
  amount: string,
  confirm: Confirm,
  out: Output,
): Promise<boolean> {
  const unfinished = await findUnfinishedPayoutRequest(db, amount);
  if (unfinished) {
    return confirm(
      `Request a payout of ${amount}? (resumes request ${unfinished.requestId} from ${formatTime(unfinished.requestedAt)}, whose outcome is not known)`,
    );
  }
  // Best effort only: the balance is never asked for (the spec has no such operation), and the
  // newest payout's wallet is stale both ways (incomes since raise it, payouts made elsewhere
  // lower it). It informs; the upstream's type-1 refusal decides.
  const balance = await lastKnownBalance(db);
  if (balance) {
    out.line(
      `last known balance: ${balance.wallet} (left after payout ${balance.payoutId ?? "?"} of ${formatTime(balance.at)}; it may have changed since)`,
    );
    if (Number(amount) > Number(balance.wallet)) {
      out.line(
        `warning: ${amount} is above it; the upstream refuses the request if the funds are insufficient`,
      );
    }
  }
  return confirm(`Request a payout of ${amount}?`);
}

async function sendPayoutRequest(
  db: Warehouse,
  context: AppContext,
  amount: string,
  out: Output,
): Promise<ExitCode> {
  const request = await startPayoutRequest(db, amount);
  const key = request.requestId;
  await announceRequest(db, request, out);
  const sent = await sendWithKey(context, amount, key);
  if (!sent.answered) {
    await record(db, key, failureOutcome(sent.error));
    printFailure(sent.error, key, sent.tries, out);
    // Only a refusal the upstream proved ends here; an unknown outcome (an AuthError among them)
    // goes on up, for the CLI to report with its exit code.
    if (!isDefiniteRefusal(sent.error)) throw sent.error;
    return ExitCode.failure;
  }
  printAnswer(sent.result, amount, out);
  const outcome = answerOutcome(sent.result);
  await record(db, key, outcome);
  const sentTimes = sent.tries > 1 ? ` (sent ${sent.tries} times with the same key)` : "";
  out.line(`request ${key} recorded as ${outcome.status}${sentTimes}`);
  return sent.result.accepted ? ExitCode.ok : ExitCode.failure;
}

/** Says which key is sent, and which other requests still wait for their outcome. */
async function announceRequest(
  db: Warehouse,
  request: StartedPayoutRequest,
  out: Output,
): Promise<void> {
  const key = request.requestId;
  if (request.resumed) {
    out.line(
      `resuming request ${key} from ${formatTime(request.requestedAt)} (${request.status}): the same key is sent again, so no second payout can be made`,
    );
  } else {
    out.line(`request ${key} recorded; sending`);
  }
  for (const other of await otherUnfinishedPayoutRequests(db, key)) {
    out.line(
      `note: request ${other.requestId} of ${other.amount} from ${formatTime(other.requestedAt)} is ${other.status}; run it again with --amount ${other.amount} to learn its outcome`,
    );
  }
}

/** One request under its key, however many tries the client's retries make of it. */
type SentRequest =
  | { readonly answered: true; readonly result: PayoutRequestResult; readonly tries: number }
  | { readonly answered: false; readonly error: unknown; readonly tries: number };

async function sendWithKey(context: AppContext, amount: string, key: string): Promise<SentRequest> {
  let tries = 0;
  const call: CallOptions = { onTry: () => (tries += 1) };
  try {
    const result = await context.api.call(
      requestPayoutOperation,
      { amount, idempotency_key: key },
      call,
    );
    return { answered: true, result, tries };
  } catch (error) {
    return { answered: false, error, tries };
  }
}

/** A request that got no answer is refused only when the error proves no payout was made. */
function failureOutcome(error: unknown): PayoutRequestOutcome {
  return isDefiniteRefusal(error)
    ? {
        status: "refused",
        payoutId: null,
        response: error.body ?? null,
        message: error.upstreamMessage,
      }
    : { status: "unknown", payoutId: null, response: null, message: (error as Error).message };
}

function answerOutcome(result: PayoutRequestResult): PayoutRequestOutcome {
  return {
    status: result.accepted ? "accepted" : "refused",
    payoutId: result.accepted ? (result.payout?.id ?? null) : null,
    response: result.raw,
    message: result.message,
  };
}

function printFailure(error: unknown, key: string, tries: number, out: Output): void {
  if (isDefiniteRefusal(error)) {
    out.line(`refused: HTTP ${error.status} ${error.upstreamMessage}`);
    out.line(`request ${key} recorded as refused`);
    return;
  }
  out.line(
    `outcome unknown after ${tries} tr${tries === 1 ? "y" : "ies"}: the payout may or may not have been made.`,
  );
  out.line(
    `Run the same command again (within 24 h) to resume request ${key}: it re-sends the same key, which cannot create a second payout.`,
  );
}

function printAnswer(result: PayoutRequestResult, amount: string, out: Output): void {
  if (!result.accepted) {
    printRefusal(result, out);
    return;
  }
  const payout = result.payout;
  if (payout) {
    out.line(
      `accepted: payout ${payout.id ?? "(no id)"} of ${payout.amount ?? amount}${payout.currency ? ` ${payout.currency}` : ""}, status ${payout.status ?? "(not given)"}${quoted(result.message)}`,
    );
    if (payout.wallet !== null) out.line(`balance left: ${payout.wallet}`);
  } else {
    out.line(`accepted, but the answer names no payout${quoted(result.message)}`);
  }
}

async function record(db: Warehouse, key: string, outcome: PayoutRequestOutcome): Promise<void> {
  try {
    await recordPayoutOutcome(db, key, outcome);
  } catch (error) {
    throw new Error(
      `the upstream's answer (${outcome.status}) could not be recorded for request ${key}: ${(error as Error).message}. Run the same command again: it resumes the request with the same key and records the answer.`,
      { cause: error },
    );
  }
}

/** Runs one confirmed write that needs no warehouse, and prints the upstream's answer. */
async function confirmedWrite(
  yes: boolean | undefined,
  question: string,
  send: (context: AppContext) => Promise<WriteResult>,
  describe: (result: WriteResult & { accepted: true }) => string,
  out: Output,
): Promise<ExitCode> {
  const confirm = confirmation(YES_FLAG, { yes });
  const config = loadAppConfig();
  const context = await createAppContext(config);
  try {
    if (!(await confirm(question))) {
      out.line("cancelled: nothing was sent");
      return ExitCode.failure;
    }
    const result = await send(context);
    if (!result.accepted) {
      printRefusal(result, out);
      return ExitCode.failure;
    }
    out.line(`accepted: ${describe(result)}`);
    return ExitCode.ok;
  } finally {
    await context.close();
  }
}

/** `payouts threshold`: sets the payout threshold. */
export function setThresholdCommand(options: PayoutAmountOptions, out: Output): Promise<ExitCode> {
  const amount = parseAmountOption(options.amount);
  return confirmedWrite(
    options.yes,
    `Set the payout threshold to ${amount}?`,
    (context) => context.api.call(setThresholdOperation, { amount }),
    (result) => {
      const threshold = result.raw.threshold;
      const shown =
        typeof threshold === "string" || typeof threshold === "number" ? threshold : amount;
      return `threshold set to ${shown}${quoted(result.message)}`;
    },
    out,
  );
}

/** `payouts monthly`: switches the account to monthly payouts. */
export function setMonthlyTypeCommand(options: ConfirmOptions, out: Output): Promise<ExitCode> {
  return confirmedWrite(
    options.yes,
    "Switch the account to monthly payouts? Payouts on request are then refused.",
    (context) => context.api.call(setMonthlyTypeOperation),
    (result) => {
      const type = result.raw.withdrawal_type;
      const shown = typeof type === "number" || typeof type === "string" ? ` ${type}` : "";
      return `withdrawal type set to monthly${shown ? ` (withdrawal_type${shown})` : ""}${quoted(result.message)}`;
    },
    out,
  );
}
