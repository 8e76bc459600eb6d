import { notificationTargetsSchema } from "./notification-targets.js";
import { z } from "zod";
import { schemaContractSchema } from "./schema-contract.js";
import { historySettingSchema } from "./history-setting.js";
import { roleSettingsSchema } from "./role-settings.js";
import { partitionsInFlight } from "./partitions-in-flight.js";
import { isCalendarDate, utcToday } from "../time/calendar.js";
import {
  AUDIENCE_DOMAINS,
  AUDIENCE_TYPES,
  CURATOR_PLATFORMS,
  EDITORIAL_PLATFORMS,
  PLAYLIST_STATUSES,
  STAT_SOURCES,
  STATS_TYPES,
} from "../api/enums.js";
import { STREAM_FAMILIES, type StreamFamily } from "./families.js";

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

const schedule = z.strictObject({
  pattern: z
    .string()
    .trim()
    .regex(/^(\S+\s+){4,5}\S+$/, "must be a cron pattern of 5 or 6 fields, e.g. 0 * * * *"),
  tz: z.string().trim().min(1, "must not be empty").default("UTC"),
});

/** When each family runs unattended; `null` turns a family's schedule off. */
const DEFAULT_SCHEDULES = {
  catalogue: { pattern: "15 3 * * *", tz: "UTC" },
  trends: { pattern: "5 * * * *", tz: "UTC" },
  artist_stats: { pattern: "45 3 * * *", tz: "UTC" },
  royalties: { pattern: "35 * * * *", tz: "UTC" },
};

const schedules = z
  .strictObject({
    catalogue: schedule.nullable().optional(),
    trends: schedule.nullable().optional(),
    artist_stats: schedule.nullable().optional(),
    royalties: schedule.nullable().optional(),
  })
  .default({})
  .transform((given) => ({ ...DEFAULT_SCHEDULES, ...given }));

/**
 * Values the upstream enumerates, all by default: a list narrows what is fetched (and `[]` fetches
 * none); listing a value twice costs nothing.
 */
function enumList<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .array(z.enum(values))
    .default([...values])
    .transform((given) => values.filter((value) => given.includes(value)) as T[number][]);
}

/** Which of the per-artist requests are made: every combination the spec lists by default. */
const artistStatsPlan = z
  .strictObject({
    stat_sources: enumList(STAT_SOURCES),
    social_audience: z
      .strictObject({
        domains: enumList(AUDIENCE_DOMAINS),
        audience_types: enumList(AUDIENCE_TYPES),
        stats_types: enumList(STATS_TYPES),
      })
      .prefault({}),
    playlists: z
      .strictObject({
        editorial_platforms: enumList(EDITORIAL_PLATFORMS),
        curator_platforms: enumList(CURATOR_PLATFORMS),
        statuses: enumList(PLAYLIST_STATUSES),
      })
      .prefault({}),
    /** Radio and airplays are asked for per artist and day: the most recent days only, if set. */
    radio_history_days: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .nullable()
      .default(null),
  })
  .prefault({});

const lookbackDays = z.number().int("must be a whole number").min(0, "must be 0 or more");

/** How a family's daily partitions already synced are fetched again (see lookbackOf). */
const familyLookback = z.strictObject({
  days: lookbackDays.optional(),
  refetch_after_hours: z.number().min(0, "must be 0 or more").optional(),
});

/**
 * Trends run hourly: re-reading seven days every hour would cost 7 times what a day's trends cost
 * each hour for restatements that come at most daily. Others run daily, so every run re-reads.
 */
const DEFAULT_REFETCH_AFTER_HOURS: Readonly<Record<StreamFamily, number>> = {
  catalogue: 0,
  trends: 23,
  artist_stats: 0,
  royalties: 0,
};

const lookback = z
  .strictObject(
    Object.fromEntries(STREAM_FAMILIES.map((family) => [family, familyLookback.optional()])) as {
      [F in StreamFamily]: z.ZodOptional<typeof familyLookback>;
    },
  )
  .default({});

const positiveRate = z.number().positive("must be a number greater than 0");

/**
 * A fixed rate, or "auto": the rate the upstream states in X-RateLimit-Limit, else found by
 * probing from `start` up to `max` (src/http/auto-rate.ts; read it with requestRate). Kept as
 * written, so a parsed config is a valid file.
 */
const requestRate = z
  .union(
    [
      positiveRate,
      z.literal("auto"),
      z.strictObject({
        auto: z
          .strictObject({ start: positiveRate.optional(), max: positiveRate.optional() })
          .refine((auto) => auto.max === undefined || (auto.start ?? 0) <= auto.max, {
            message: "start must not be above max",
          }),
      }),
    ],
    {
      error:
        'must be a number greater than 0, "auto", or {"auto": {"start": N, "max": N}} (both optional)',
    },
  )
  .default("auto");

/** The JSON file that names what to track (ETL_CONFIG). Keys are snake_case, a public contract. */
export const etlConfigSchema = z
  .strictObject({
    start_date: z
      .string({ error: "is required: the first day to sync, YYYY-MM-DD" })
      .refine(isCalendarDate, {
        message: "must be a calendar date written YYYY-MM-DD",
        abort: true,
      })
      .refine((day) => day <= utcToday(), "must not be in the future"),
    upcs: uniqueList(nonEmptyString),
    artist_names: uniqueList(nonEmptyString),
    territory_keys: uniqueList(nonEmptyString),
    dsp_keys: uniqueList(nonEmptyString),
    social_artist_ids: uniqueList(z.number().int("must be whole numbers").positive("must be > 0")),
    streaming_artist_ids: uniqueList(nonEmptyString),
    charts: z.array(chartSchema).default([]),
    requests_per_second: requestRate,
    max_concurrency: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .default(4),
    lookback_days: lookbackDays.default(7),
    lookback,
    artist_stats: artistStatsPlan,
    /**
     * Days stored responses are kept (null: for ever). The responses a partition's rows were last
     * derived from are kept whatever their age.
     */
    keep_responses_days: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .nullable()
      .default(null),
    write_batch_rows: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(100_000, "must be 100000 or less")
      .default(10_000),
    write_batch_bytes: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .default(2 * 1024 * 1024),
    /**
     * The largest answer read: a larger one fails its request (not retried) instead of the
     * process. An answer costs a few times its size in memory until its partition closes
     * (docs/benchmarks.md, "Memory per response"): the image's heap is sized for this default.
     */
    max_response_bytes: z
      .number()
      .int("must be a whole number")
      .min(1024, "must be at least 1024")
      .default(16 * 1024 * 1024),
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
    schedules,
    /** Default: partitionsInFlight(max_concurrency), so a job writing leaves its request slot used. */
    worker_concurrency: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .optional(),
    /**
     * Partitions a run keeps queued at once (src/jobs/plan-window.ts): what Redis holds of a
     * backfill, however long, and how far ahead its order is fixed.
     */
    plan_window: z
      .number()
      .int("must be a whole number")
      .min(10, "must be at least 10")
      .max(100_000, "must be 100000 or less")
      .default(2_000),
    job_attempts: z.number().int("must be a whole number").min(1, "must be at least 1").default(3),
    job_backoff_ms: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 or more")
      .default(30_000),
    job_lock_ms: z
      .number()
      .int("must be a whole number")
      .min(1_000, "must be at least 1000")
      .default(30_000),
    shutdown_grace_ms: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 or more")
      .default(30_000),
    /** While the upstream refuses the credential, a worker checks it again this often. */
    credential_recheck_ms: z
      .number()
      .int("must be a whole number")
      .min(1_000, "must be at least 1000")
      .default(180_000),
    /**
     * How long a one-shot `etl sync` waits for a down upstream's return before its partitions
     * fail (the next sync takes them up); a worker takes no job meanwhile and waits.
     */
    outage_wait_ms: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 or more")
      .default(600_000),
    schema_contract: schemaContractSchema,
    history: historySettingSchema,
    roles: roleSettingsSchema,
    notifications: notificationTargetsSchema,
    redis_prefix: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]+$/, "may hold only letters, digits and : _ . -")
      .default("music-etl:"),
  })
  .transform(({ lookback, ...config }) => ({
    ...config,
    lookback: Object.fromEntries(
      STREAM_FAMILIES.map((family) => [
        family,
        {
          days: lookback[family]?.days ?? config.lookback_days,
          refetch_after_hours:
            lookback[family]?.refetch_after_hours ?? DEFAULT_REFETCH_AFTER_HOURS[family],
        },
      ]),
    ) as Record<StreamFamily, FamilyLookback>,
    worker_concurrency: config.worker_concurrency ?? partitionsInFlight(config.max_concurrency),
  }));

/**
 * A family's lookback: its daily partitions of the last `days` days are fetched again, each once
 * its last success is `refetch_after_hours` old. Filled in for every family, in the file's own
 * terms, so a parsed config parses again to itself.
 */
export interface FamilyLookback {
  readonly days: number;
  readonly refetch_after_hours: number;
}

export type EtlConfig = z.output<typeof etlConfigSchema>;
