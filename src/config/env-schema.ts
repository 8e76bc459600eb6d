import { z } from "zod";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function urlWithScheme(schemes: readonly string[], example: string) {
  return z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return schemes.includes(new URL(value).protocol.replace(/:$/, ""));
        } catch {
          return false;
        }
      },
      `must be a URL starting with ${schemes.map((s) => `${s}://`).join(" or ")} (e.g. ${example})`,
    );
}

/** The environment variables the application reads; their names are a public contract. */
export const envSchema = z.object({
  // Optional here: commands that never call the upstream (migrate, status) run without them.
  MUSIC_API_URL: urlWithScheme(["http", "https"], "https://api.example.com")
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  MUSIC_API_KEY: z.string().trim().min(1, "must not be empty").optional(),
  DATABASE_URL: urlWithScheme(
    ["postgres", "postgresql"],
    "postgres://127.0.0.1:5432/music_etl",
  ).default("postgres://127.0.0.1:5432/music_etl"),
  REDIS_URL: urlWithScheme(["redis", "rediss"], "redis://127.0.0.1:6379").default(
    "redis://127.0.0.1:6379",
  ),
  ETL_CONFIG: z.string().trim().min(1, "must not be empty").default("./etl.config.json"),
  LOG_LEVEL: z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`).default("info"),
  /** The worker's operator HTTP port (/livez, /readyz, /metrics, /queues); 0 picks a free one. */
  WORKER_PORT: z.coerce
    .number({ error: "must be a port number" })
    .int("must be a port number")
    .min(0, "must be a port number")
    .max(65_535, "must be a port number")
    .default(9464),
  /** The interface the operator port listens on: this machine only, unless told otherwise. */
  WORKER_HOST: z
    .string()
    .trim()
    .regex(/^[\w.:-]+$/, "must be an interface's address or host name, e.g. 0.0.0.0")
    .default("127.0.0.1"),
  /** When set, /metrics and /queues answer only requests carrying it (bearer or basic auth). */
  OPERATOR_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
});

export type EnvConfig = z.output<typeof envSchema>;
