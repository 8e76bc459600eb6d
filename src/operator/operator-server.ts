import type { AddressInfo } from "node:net";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { Queue } from "bullmq";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Logger } from "../logging/logger.js";
import type { EtlMetrics } from "../metrics/etl-metrics.js";
import { checkMessage } from "./check-message.js";
import { withTimeout } from "../async/with-timeout.js";

/** A dependency probe: resolves when the dependency is usable, rejects otherwise. */
export type HealthCheck = () => Promise<void>;

export interface OperatorServerOptions {
  /** Default 0.0.0.0: the probes and the scraper come from outside the container. */
  readonly host?: string;
  /** 0 picks a free port (see `url`). */
  readonly port: number;
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
  const { logger, metrics } = options;
  const host = options.host ?? "0.0.0.0";
  const log = logger.child({ component: "operator-server" });
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

  const server = app.listen(options.port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const url = reachableUrl(server.address() as AddressInfo);
  log.info({ url, dashboard: url + DASHBOARD_PATH }, "operator server listening");

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

/** A wildcard address is not one to connect to: the URL names the loopback instead. */
function reachableUrl(address: AddressInfo): string {
  const wildcard = address.address === "0.0.0.0" || address.address === "::";
  const host = wildcard ? (address.family === "IPv6" ? "::1" : "127.0.0.1") : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}
