import { z } from "zod";
import { isCalendarDate, isLocalDateTime } from "../time/calendar.js";

/** Parameter schemas shared by the operations; messages read well after "invalid parameter X:". */

export const calendarDate = z
  .string()
  .refine(isCalendarDate, "must be a calendar date written YYYY-MM-DD");

export const localDateTime = z
  .string()
  .refine(isLocalDateTime, "must be a date-time written YYYY-MM-DDThh:mm:ss");

export const nonEmptyText = z.string().trim().min(1, "must not be empty");

export const positiveInt = z.number().int("must be a whole number").positive("must be > 0");

export const offset = z.number().int("must be a whole number").min(0, "must be 0 or more");

export const limit = z.number().int("must be a whole number").min(1, "must be at least 1");

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, `must be one of ${values.join(", ")}`);
}

/** An identifier the upstream takes as text or number. */
export const identifier = z.union(
  [nonEmptyText, positiveInt],
  "must be a non-empty string or a positive integer",
);

/**
 * A money amount: at least 100, at most two decimals, a period as decimal separator. Accepted as
 * a number or as text ("150.00") so a CLI argument is checked digit by digit, never rounded.
 */
export const amount = z
  .union([z.number(), z.string()], "must be a number such as 150.00")
  .transform((value, ctx) => {
    const text = typeof value === "number" ? String(value) : value.trim();
    if (!/^\d+(\.\d{1,2})?$/.test(text)) {
      ctx.addIssue({
        code: "custom",
        message: "must be a positive number with at most two decimals and a period as separator",
      });
      return z.NEVER;
    }
    const parsed = Number(text);
    if (parsed < 100) {
      ctx.addIssue({ code: "custom", message: "must be at least 100" });
      return z.NEVER;
    }
    return parsed;
  });

/** since <= until when both are given. */
export function orderedRange<T extends { since?: string | undefined; until?: string | undefined }>(
  value: T,
): boolean {
  return value.since === undefined || value.until === undefined || value.since <= value.until;
}
