import { amount } from "../api/params.js";
import { UsageError } from "../errors.js";

/** The largest amount numeric(14,2) holds. */
const MAX_INTEGER_DIGITS = 12;

/**
 * `--amount` checked as the API checks it (at least 100, at most two decimals, a period as the
 * decimal separator), before anything is sent or written. Returns the amount as exact text with
 * two decimals ("150.00"), never through a float.
 */
export function parseAmountOption(value: string, flag = "--amount"): string {
  const text = value.trim();
  if (/^\d+,\d+$/.test(text)) {
    // Both problems at once: the amount with a period may be refused too (1,50 is under 100).
    const period = text.replace(",", ".");
    const problem = amount.safeParse(period).error?.issues[0]?.message;
    throw new UsageError(
      `${flag} ${value}: use a period as the decimal separator (${period}), not a comma${problem ? `; and ${period} ${problem}` : ""}`,
    );
  }
  const parsed = amount.safeParse(text);
  if (!parsed.success) {
    throw new UsageError(
      `${flag} ${value}: ${parsed.error.issues[0]?.message ?? "is not a valid amount"} (e.g. 150.00)`,
    );
  }
  const [whole = "", decimals = ""] = text.split(".");
  const digits = whole.replace(/^0+(?=\d)/, "");
  if (digits.length > MAX_INTEGER_DIGITS) {
    throw new UsageError(`${flag} ${value}: must be less than 1000000000000`);
  }
  return `${digits}.${decimals.padEnd(2, "0")}`;
}
