import { createHash, timingSafeEqual } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { Queue } from "bullmq";
import express, {
  type Express,
  type NextFunction,
  type Request,
  type Response,
  type Router,
} from "express";
import { PortTakenError } from "../errors.js";
import type { Logger } from "../logging/logger.js";
import type { EtlMetrics } from "../metrics/etl-metrics.js";
import { checkMessage } from "./check-message.js";
import { withTimeout } from "../async/with-timeout.js";

/** A dependency probe: resolves when the dependency is usable, rejects otherwise. */
export type HealthCheck = () => Promise<void>;

export interface OperatorServerOptions {
  /**
   * The interface it listens on (WORKER_HOST): 127.0.0.1 by default, so only this machine
   * reaches it; the image sets 0.0.0.0, where the probes and the scraper come from outside.
   */
  readonly host?: string;
  /** 0 picks a free port (see `url`). */
  readonly port: number;
  /**
   * When set (OPERATOR_TOKEN), /metrics and /queues answer only a request that carries it, as a
   * bearer token or as the password of HTTP basic authentication (any user name). The probes
   * stay open: an orchestrator asks them without credentials.
   */
  readonly token?: string;
  readonly metrics: EtlMetrics;
  /** By name, e.g. `{ postgres, redis }`; each runs in parallel on every /readyz. */
  readonly checks: Readonly<Record<string, HealthCheck>>;
  /** Shown read-only by the dashboard at /queues. */
  readonly queues: readonly Queue[];
  readonly logger: Logger;
  /** Longest wait for one check. Default 2000 ms. */
  readonly checkTimeoutMs?: number;
}

export interface OperatorServer {
  /** Where to reach it from this machine, e.g. `http://127.0.0.1:9464`. */
  readonly url: string;
  close(): Promise<void>;
}

export const DASHBOARD_PATH = "/queues";

/**
 * The worker's operator surface: /livez and /readyz for probes, /metrics for Prometheus, /queues
 * for the Bull Board dashboard. Nothing here changes data: the dashboard is read-only.
 */
export async function startOperatorServer(options: OperatorServerOptions): Promise<OperatorServer> {
  const host = options.host ?? "127.0.0.1";
  const log = options.logger.child({ component: "operator-server" });
  const server = await listen(operatorApp(options, log), host, options.port);
  const address = server.address() as AddressInfo;
  const url = reachableUrl(address);
  log.info(
    {
      url,
      dashboard: url + DASHBOARD_PATH,
      listening: `${host}:${address.port}`,
      reachableFrom: isWildcard(address.address) ? "every interface" : "this address only",
      token: options.token !== undefined,
    },
    "operator server listening",
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // close() alone waits for every keep-alive socket to time out (a scraper holds one).
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The routes: probes, then (behind the token when one is set) metrics and dashboard. */
function operatorApp(options: OperatorServerOptions, log: Logger): Express {
  const { metrics } = options;
  const app = express();
  app.disable("x-powered-by");

  // Alive means the event loop answers: nothing outside the process is asked, so an outage of
  // Postgres or Redis never makes an orchestrator restart workers that would recover by themselves.
  app.get("/livez", (_request, response) => {
    response.set("cache-control", "no-store").json({ status: "ok" });
  });

  // Failures are logged when a check's state changes only: a probe every few seconds would flood.
  const lastFailures = new Map<string, string | null>();
  app.get("/readyz", async (_request, response) => {
    const report = await runChecks(options.checks, options.checkTimeoutMs ?? 2000);
    logChanges(report, lastFailures, log);
    response
      .status(report.status === "ok" ? 200 : 503)
      .set("cache-control", "no-store")
      .json(report);
  });

  if (options.token !== undefined)
    app.use(["/metrics", DASHBOARD_PATH], requireToken(options.token));

  app.get("/metrics", async (_request, response) => {
    const body = await metrics.registry.metrics();
    response.set("content-type", metrics.registry.contentType).send(body);
  });

  app.use(DASHBOARD_PATH, dashboardRouter(options.queues));

  app.use((_request, response) => {
    response.status(404).json({ error: "not found" });
  });

  // Express's default handler answers with the stack trace; the log gets the detail instead.
  app.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    log.error({ err: checkMessage(error) }, "operator request failed");
    if (response.headersSent) return next(error);
    response.status(500).json({ error: "internal error" });
  });
  return app;
}

/** Resolves once the app listens; a port already taken is told as such. */
async function listen(app: Express, host: string, port: number): Promise<Server> {
  const server = app.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new PortTakenError(host, port) : error),
    );
  });
  return server;
}

interface HealthReport {
  readonly status: "ok" | "unavailable";
  /** Check name → "ok" or its short failure message. */
  readonly checks: Record<string, string>;
}

async function runChecks(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<HealthReport> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, string | null]> => {
      try {
        await withTimeout(check, timeoutMs);
        return [name, null];
      } catch (error) {
        return [name, checkMessage(error)];
      }
    }),
  );
  return {
    status: results.every(([, failure]) => failure === null) ? "ok" : "unavailable",
    checks: Object.fromEntries(results.map(([name, failure]) => [name, failure ?? "ok"])),
  };
}

function logChanges(
  report: HealthReport,
  lastFailures: Map<string, string | null>,
  log: Logger,
): void {
  for (const [name, result] of Object.entries(report.checks)) {
    const failure = result === "ok" ? null : result;
    const before = lastFailures.get(name) ?? null;
    if (failure !== null && failure !== before) {
      log.warn({ check: name, err: failure }, "health check failing");
    } else if (failure === null && before !== null) {
      log.info({ check: name }, "health check recovered");
    }
    lastFailures.set(name, failure);
  }
}

function dashboardRouter(queues: readonly Queue[]): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: true })),
    serverAdapter,
  });
  return serverAdapter.getRouter() as Router;
}

const isWildcard = (address: string) => address === "0.0.0.0" || address === "::";

/** A wildcard address is not one to connect to: the URL names the loopback instead. */
function reachableUrl(address: AddressInfo): string {
  const host = isWildcard(address.address)
    ? address.family === "IPv6"
      ? "::1"
      : "127.0.0.1"
    : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/** Whether two secrets are equal, in a time that does not tell how much of them matched. */
function sameSecret(given: string, token: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

/** The token as a bearer token, or as basic authentication's password. */
function requireToken(token: string) {
  return (request: Request, response: Response, next: NextFunction) => {
    const [scheme = "", credential = ""] = (request.get("authorization") ?? "").split(" ");
    const given =
      scheme.toLowerCase() === "bearer"
        ? credential
        : scheme.toLowerCase() === "basic"
          ? Buffer.from(credential, "base64").toString("utf8").split(":").slice(1).join(":")
          : null;
    if (given !== null && sameSecret(given, token)) return next();
    response
      .status(401)
      .set("www-authenticate", 'Basic realm="music-etl operator", charset="UTF-8"')
      .json({ error: "this page needs OPERATOR_TOKEN" });
  };
}
