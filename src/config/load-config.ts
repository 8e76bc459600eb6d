import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";
import { ConfigError } from "../errors.js";
import { controlCharacterProblems } from "./control-characters.js";
import { describeJsonSyntaxError } from "./json-syntax-error.js";
import { type EnvConfig, envSchema } from "./env-schema.js";
import { type EtlConfig, etlConfigSchema } from "./etl-config-schema.js";
import { toConfigProblems } from "./zod-problems.js";
import { unknownStreamKeys } from "./per-stream.js";
import { didYouMean } from "../similar-names.js";

export interface AppConfig {
  readonly env: EnvConfig;
  readonly etl: EtlConfig;
  /** Absolute path of the config file that was read. */
  readonly configPath: string;
}

/** The settings given per stream or family, whose keys must name one. */
const PER_STREAM_SETTINGS = ["schema_contract", "history"] as const;

export interface LoadConfigOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Whether the command calls the upstream, so MUSIC_API_URL and MUSIC_API_KEY must be set. */
  readonly upstream?: boolean;
  /**
   * The names the file may give a stream (its streams' and families'): a `schema_contract` or
   * `history` key naming none is refused. The streams are declared above this layer: the caller knows them.
   */
  readonly streams?: readonly string[];
}

/**
 * The environment as the application sees it: `.env` in the working directory fills in what the
 * real environment does not set (the real environment wins, as with docker and systemd).
 */
export function readEnvironment(
  options: LoadConfigOptions = {},
): Record<string, string | undefined> {
  const cwd = options.cwd ?? process.cwd();
  const dotenvPath = resolve(cwd, ".env");
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {};
  const merged = { ...fromFile, ...(options.env ?? process.env) };
  // `NAME=` (in .env or the environment) means "not set": defaults and "is required" apply.
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== ""));
}

/** The environment as validated, or null where it is not valid (loadConfig says why). */
export function validEnvironment(options: LoadConfigOptions = {}): EnvConfig | null {
  const result = envSchema.safeParse(readEnvironment(options));
  return result.success ? result.data : null;
}

/** The upstream's URL and key, or a ConfigError naming what is missing. */
export function requireUpstream(env: EnvConfig): { url: string; key: string } {
  const missing = (["MUSIC_API_URL", "MUSIC_API_KEY"] as const).filter((name) => !env[name]);
  if (!env.MUSIC_API_URL || !env.MUSIC_API_KEY) {
    throw new ConfigError(
      "environment",
      missing.map((field) => ({
        field,
        problem: "is required (set it in the environment or .env)",
      })),
    );
  }
  return { url: env.MUSIC_API_URL, key: env.MUSIC_API_KEY };
}

function readJsonFile(path: string, displayName: string): unknown {
  if (!existsSync(path)) {
    throw new ConfigError("ETL_CONFIG", [
      {
        field: "(file)",
        problem: `${displayName} not found (copy etl.config.example.json to etl.config.json, or set ETL_CONFIG)`,
      },
    ]);
  }
  // An editor that saves with a byte order mark has not made the file any less JSON.
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = describeJsonSyntaxError(text, (error as Error).message);
    throw new ConfigError(displayName, [
      { field: "(file)", problem: `is not valid JSON: ${where}` },
    ]);
  }
}

/** Reads and validates the environment and the config file; throws ConfigError before any I/O. */
export function loadConfig(options: LoadConfigOptions = {}): AppConfig {
  const cwd = options.cwd ?? process.cwd();
  const envResult = envSchema.safeParse(readEnvironment(options));
  if (!envResult.success) {
    throw new ConfigError("environment", toConfigProblems(envResult.error, false));
  }
  const env = envResult.data;
  if (options.upstream !== false) requireUpstream(env);
  const configPath = resolve(cwd, env.ETL_CONFIG);
  const file = readJsonFile(configPath, env.ETL_CONFIG);
  const fileResult = etlConfigSchema.safeParse(file, { reportInput: true });
  const problems = [
    ...controlCharacterProblems(file),
    ...(fileResult.success ? [] : toConfigProblems(fileResult.error, true, etlConfigSchema)),
    ...(fileResult.success && options.streams
      ? PER_STREAM_SETTINGS.flatMap((name) =>
          unknownStreamKeys(fileResult.data[name], options.streams ?? []).map((key) => ({
            field: `${name}.${key}`,
            problem: `is not a stream or family${didYouMean(key, options.streams ?? [])}`,
          })),
        )
      : []),
  ];
  if (!fileResult.success || problems.length > 0) {
    throw new ConfigError(env.ETL_CONFIG, problems);
  }
  return { env, etl: fileResult.data, configPath };
}
