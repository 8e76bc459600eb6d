import { Writable } from "node:stream";
import {
  type AppContext,
  type AppContextOptions,
  createAppContext,
} from "../../src/app-context.js";
import { envSchema } from "../../src/config/env-schema.js";
import { type EtlConfig, etlConfigSchema } from "../../src/config/etl-config-schema.js";
import type { OutageRule } from "../../src/http/upstream-health.js";
import { createLogger } from "../../src/logging/logger.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../sandbox/index.js";
import { deleteKeysWithPrefix, REDIS_URL, uniquePrefix } from "./redis.js";

export interface Upstream {
  readonly sandbox: Sandbox;
  readonly context: AppContext;
  /** Every log line the client stack wrote. */
  readonly logs: string[];
  readonly prefix: string;
  readonly redisUrl: string;
  /** Another client stack sharing the sandbox and the Redis budget, closed with this one. */
  connectAnother(): Promise<AppContext>;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  readonly sandbox?: SandboxOptions;
  readonly etl?: Partial<Record<keyof EtlConfig, unknown>>;
  readonly http?: AppContextOptions["http"];
  /** The outage's rule (default NEVER_DOWN below). */
  readonly outageRule?: OutageRule;
  /** Use this key instead of the sandbox's (to provoke a 401). */
  readonly apiKey?: string;
  /** Another Redis than the machine's (one the test may restart). */
  readonly redisUrl?: string;
}

/** A sandbox upstream and the project's real client stack pointed at it, logging into memory. */
export async function startUpstream(
  label: string,
  options: UpstreamOptions = {},
): Promise<Upstream> {
  const sandbox = await startSandbox({
    apiKey: `secret-${label}-key-0123456789`,
    ...options.sandbox,
  });
  const prefix = uniquePrefix(label);
  const logs: string[] = [];
  const context = await connect(sandbox, prefix, options, logs);
  const others: AppContext[] = [];
  return {
    sandbox,
    context,
    logs,
    prefix,
    redisUrl: options.redisUrl ?? REDIS_URL,
    async connectAnother() {
      const other = await connect(sandbox, prefix, options, logs);
      others.push(other);
      return other;
    },
    async close() {
      for (const other of [context, ...others]) await other.close();
      await sandbox.close();
      await deleteKeysWithPrefix(prefix, options.redisUrl);
    },
  };
}

/**
 * The project's client stack pointed at any server (`url`, taking `apiKey`): for a test's own
 * server, where the sandbox cannot show what is under test (the request as sent, say).
 */
export async function startClient(
  label: string,
  server: { readonly url: string; readonly apiKey: string },
  options: UpstreamOptions = {},
): Promise<{ readonly context: AppContext; close(): Promise<void> }> {
  const prefix = uniquePrefix(label);
  const context = await connect(server, prefix, options, []);
  return {
    context,
    async close() {
      await context.close();
      await deleteKeysWithPrefix(prefix, options.redisUrl);
    },
  };
}

/**
 * The outage rule of the tests' client stacks unless one asks for another: never down. Many tests
 * make every request fail to see partitions fail; an upstream declared down would make them wait
 * for its return instead. The outage's own tests ask for the real rule (OUTAGE_RULE), and the
 * worker processes the tests spawn have it.
 */
const NEVER_DOWN = { latest: 20, failures: 21, maxAgeMs: 60_000 };

/**
 * The retry budget of the tests' client stacks unless one asks for another: never short. Tests
 * that make every request fail count on each request's retries, not on the budget's pace; the
 * budget's own tests ask for the real one (RETRY_BUDGET).
 */
const RETRIES_UNBOUNDED = { capacity: 1e9, retryCost: 0, successRefund: 0, refillPerSecond: 0 };

/** A client stack like a separate process's: its own connections, the same Redis budget. */
async function connect(
  sandbox: Pick<Sandbox, "url" | "apiKey">,
  prefix: string,
  options: UpstreamOptions,
  logs: string[],
) {
  const apiKey = options.apiKey ?? sandbox.apiKey;
  const env = envSchema.parse({
    MUSIC_API_URL: sandbox.url,
    MUSIC_API_KEY: apiKey,
    REDIS_URL: options.redisUrl ?? REDIS_URL,
    LOG_LEVEL: "debug",
  });
  const etl = etlConfigSchema.parse({
    start_date: "2026-01-01",
    redis_prefix: prefix,
    requests_per_second: 1000,
    max_concurrency: 16,
    request_timeout_ms: 2_000,
    max_retries: 4,
    ...options.etl,
  });
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: "debug", secrets: [apiKey, sandbox.apiKey], destination });
  return createAppContext(
    { env, etl, configPath: "(test)" },
    {
      logger,
      http: {
        retryBaseMs: 20,
        retryMaxDelayMs: 200,
        retryBudget: RETRIES_UNBOUNDED,
        ...options.http,
      },
      outageRule: options.outageRule ?? NEVER_DOWN,
    },
  );
}
