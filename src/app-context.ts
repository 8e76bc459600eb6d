import { Redis } from "ioredis";
import { type ApiClient, createApiClient } from "./api/api-client.js";
import type { EtlConfig } from "./config/etl-config-schema.js";
import { type AppConfig, requireUpstream } from "./config/load-config.js";
import { HttpClient, type HttpClientOptions } from "./http/http-client.js";
import type { HttpRequest } from "./http/http-messages.js";
import { requestRate } from "./http/auto-rate.js";
import { RequestBudget } from "./http/request-budget.js";
import type { OutageRule } from "./http/upstream-health.js";
import { createLogger, type Logger } from "./logging/logger.js";
import { type NotificationTarget, Notifier } from "./notify/notifier.js";
import { notifyOutages } from "./notify/outage-notifications.js";
import { ConfigError } from "./errors.js";
import { getTerritoriesOperation } from "./streams/catalogue/territories.js";

/** What a command needs to talk to the upstream, built once from the validated configuration. */
export interface AppContext {
  readonly config: AppConfig;
  readonly logger: Logger;
  readonly redis: Redis;
  readonly budget: RequestBudget;
  readonly http: HttpClient;
  readonly api: ApiClient;
  /** The configured webhooks (`notifications`); sends nothing when there are none. */
  readonly notifier: Notifier;
  close(): Promise<void>;
}

export interface AppContextOptions {
  readonly logger?: Logger;
  /**
   * Hooks into the HTTP client (backoff timings, attempt observer), and check's single try (with
   * one wait for a 429).
   */
  readonly http?: Partial<
    Pick<
      HttpClientOptions,
      | "retryBaseMs"
      | "retryMaxDelayMs"
      | "onTry"
      | "onRateChange"
      | "maxRetries"
      | "rateLimitRetries"
      | "timeoutMs"
      | "probePacing"
      | "retryBudget"
      | "outageWaitMs"
    >
  >;
  /** When the upstream is declared down (default OUTAGE_RULE); tests ask for never. */
  readonly outageRule?: OutageRule;
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
  outageRule?: OutageRule,
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
    ...(outageRule ? { outageRule } : {}),
  });
}

/**
 * A Redis connection, failing fast with what it met; with `connectInBackground`, returned at once
 * and connecting (and reconnecting) by itself.
 */
async function connectRedis(
  url: string,
  options: Pick<AppContextOptions, "redisConnectTimeoutMs" | "connectInBackground">,
  logger: Logger,
): Promise<Redis> {
  const redis = new Redis(url, {
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
  return redis;
}

/** Connects to Redis (failing fast with the URL's host named) and assembles the client stack. */
export async function createAppContext(
  config: AppConfig,
  options: AppContextOptions = {},
): Promise<AppContext> {
  const { env, etl } = config;
  const upstream = requireUpstream(env);
  const targets = notificationTargets(etl.notifications, config.configPath);
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, secrets: [upstream.key] });
  const redis = await connectRedis(env.REDIS_URL, options, logger);
  const budget = requestBudget(etl, upstream, redis, options.outageRule);
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
    healthProbe: healthProbeOf(etl),
    ...options.http,
  });
  const notifier = new Notifier({
    targets,
    redis,
    keyPrefix: etl.redis_prefix,
    logger,
    secrets: [upstream.key, ...urlPasswords([env.DATABASE_URL, env.REDIS_URL])],
  });
  notifyOutages(http.outage, notifier);
  return {
    config,
    logger,
    redis,
    budget,
    http,
    api: createApiClient(http),
    notifier,
    async close() {
      await notifier.flush(NOTIFICATION_FLUSH_MS);
      await http.close();
      redis.disconnect();
    },
  };
}

/**
 * The request that probes a down upstream: the territories look-up `etl check` and the credential
 * gate make, the lightest the spec shows. Any answer of the API's, a 401 or a 404 included, says
 * the upstream is up.
 */
function healthProbeOf(etl: EtlConfig): Pick<HttpRequest, "operation" | "method" | "path"> {
  const { method, path } = getTerritoriesOperation.request({ key: etl.territory_keys[0] ?? "all" });
  return { operation: getTerritoriesOperation.name, method, path };
}

/** How long a closing process waits for the notifications it is still sending. */
const NOTIFICATION_FLUSH_MS = 5_000;

/**
 * The configured targets, each secret read from the environment variable it names. One named
 * but not set is refused: a receiver that checks signatures would drop every notification.
 */
function notificationTargets(
  settings: EtlConfig["notifications"],
  configPath: string,
): NotificationTarget[] {
  return settings.map((setting, i) => {
    const secret =
      setting.secret_env === undefined ? null : (process.env[setting.secret_env] ?? "");
    if (secret === "") {
      throw new ConfigError(configPath, [
        {
          field: `notifications.${i}.secret_env`,
          problem: `names ${setting.secret_env}, which is not set (or is empty)`,
        },
      ]);
    }
    return { url: setting.url, events: setting.events ?? null, format: setting.format, secret };
  });
}

/** The passwords of connection URLs: never sent in a notification. */
function urlPasswords(urls: readonly (string | undefined)[]): string[] {
  return urls.flatMap((url) => {
    try {
      const password = url === undefined ? "" : decodeURIComponent(new URL(url).password);
      return password === "" ? [] : [password];
    } catch {
      return [];
    }
  });
}
