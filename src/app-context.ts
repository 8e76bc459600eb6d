import { Redis } from "ioredis";
import { type ApiClient, createApiClient } from "./api/api-client.js";
import type { EtlConfig } from "./config/etl-config-schema.js";
import { type AppConfig, requireUpstream } from "./config/load-config.js";
import { HttpClient, type HttpClientOptions } from "./http/http-client.js";
import { requestRate } from "./http/auto-rate.js";
import { RequestBudget } from "./http/request-budget.js";
import { createLogger, type Logger } from "./logging/logger.js";

/** What a command needs to talk to the upstream, built once from the validated configuration. */
export interface AppContext {
  readonly config: AppConfig;
  readonly logger: Logger;
  readonly redis: Redis;
  readonly budget: RequestBudget;
  readonly http: HttpClient;
  readonly api: ApiClient;
  close(): Promise<void>;
}

export interface AppContextOptions {
  readonly logger?: Logger;
  /** Hooks into the HTTP client (backoff timings, attempt observer), and check's single try. */
  readonly http?: Partial<
    Pick<
      HttpClientOptions,
      "retryBaseMs" | "retryMaxDelayMs" | "onAttempt" | "onRateChange" | "maxRetries" | "timeoutMs"
    >
  >;
  /** How long the first connection to Redis may take (5 s unless told). */
  readonly redisConnectTimeoutMs?: number;
  /**
   * Return before Redis answers, connecting (and reconnecting) in the background: a long-running
   * process that waits for its dependencies itself. A command fails fast instead.
   */
  readonly connectInBackground?: boolean;
}

/** The budget every process using this upstream and key shares through `redis`. */
export function requestBudget(
  etl: EtlConfig,
  upstream: { url: string; key: string },
  redis: Redis,
): RequestBudget {
  return new RequestBudget({
    redis,
    keyPrefix: etl.redis_prefix,
    apiUrl: upstream.url,
    apiKey: upstream.key,
    requestsPerSecond: requestRate(etl.requests_per_second),
    maxConcurrency: etl.max_concurrency,
    leaseMs: etl.request_timeout_ms + 5_000,
    maxPauseMs: etl.max_rate_limit_wait_ms,
  });
}

/** Connects to Redis (failing fast with the URL's host named) and assembles the client stack. */
export async function createAppContext(
  config: AppConfig,
  options: AppContextOptions = {},
): Promise<AppContext> {
  const { env, etl } = config;
  const upstream = requireUpstream(env);
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, secrets: [upstream.key] });
  const redis = new Redis(env.REDIS_URL, {
    lazyConnect: true,
    connectTimeout: options.redisConnectTimeoutMs ?? 5_000,
    maxRetriesPerRequest: 20,
  });
  let connectionError: Error | undefined;
  // Without a listener ioredis reports each reconnection failure on stderr by itself.
  redis.on("error", (error) => {
    connectionError = error;
    logger.debug({ err: error.message }, "redis connection error");
  });
  if (options.connectInBackground) redis.connect().catch(() => undefined);
  else {
    try {
      await redis.connect();
    } catch (error) {
      // It would go on reconnecting, and keep the process alive; what it met says more than
      // "Connection is closed".
      redis.disconnect();
      throw connectionError ?? error;
    }
  }
  const budget = requestBudget(etl, upstream, redis);
  const http = new HttpClient({
    baseUrl: upstream.url,
    apiKey: upstream.key,
    budget,
    logger,
    timeoutMs: etl.request_timeout_ms,
    maxResponseBytes: etl.max_response_bytes,
    maxRetries: etl.max_retries,
    maxRateLimitWaitMs: etl.max_rate_limit_wait_ms,
    connections: etl.max_concurrency,
    ...options.http,
  });
  return {
    config,
    logger,
    redis,
    budget,
    http,
    api: createApiClient(http),
    async close() {
      await http.close();
      redis.disconnect();
    },
  };
}
