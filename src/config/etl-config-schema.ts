import { z } from "zod";
import { isCalendarDate, utcToday } from "../time/calendar.js";

const nonEmptyString = z.string().trim().min(1, "must not be empty");

/** A list of distinct values: duplicates in the file would only cost requests. */
function uniqueList<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .default([])
    .transform((values) => [...new Set(values)] as z.output<T>[]);
}

const chartSchema = z.strictObject({
  country_code: z
    .string()
    .regex(/^([A-Z]{2}|GLOBAL)$/, "must be a two-letter upper-case country code or GLOBAL"),
  genre: nonEmptyString,
});

/** The JSON file that names what to track (ETL_CONFIG). Keys are snake_case, a public contract. */
export const etlConfigSchema = z.strictObject({
  start_date: z
    .string({ error: "is required: the first day to sync, YYYY-MM-DD" })
    .refine(isCalendarDate, { message: "must be a calendar date written YYYY-MM-DD", abort: true })
    .refine((day) => day <= utcToday(), "must not be in the future"),
  upcs: uniqueList(nonEmptyString),
  artist_names: uniqueList(nonEmptyString),
  territory_keys: uniqueList(nonEmptyString),
  dsp_keys: uniqueList(nonEmptyString),
  social_artist_ids: uniqueList(z.number().int("must be whole numbers").positive("must be > 0")),
  streaming_artist_ids: uniqueList(nonEmptyString),
  charts: z.array(chartSchema).default([]),
  requests_per_second: z.number().positive("must be a number greater than 0").default(2),
  max_concurrency: z.number().int("must be a whole number").min(1, "must be at least 1").default(4),
  lookback_days: z.number().int("must be a whole number").min(0, "must be 0 or more").default(7),
  request_timeout_ms: z
    .number()
    .int("must be a whole number")
    .min(100, "must be at least 100")
    .default(30_000),
  max_retries: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(50, "must be 50 or less")
    .default(6),
  max_rate_limit_wait_ms: z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .default(300_000),
  redis_prefix: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]+$/, "may hold only letters, digits and : _ . -")
    .default("music-etl:"),
});

export type EtlConfig = z.output<typeof etlConfigSchema>;
