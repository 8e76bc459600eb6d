import { Counter, Histogram, type Registry } from "prom-client";
import type { RateChange } from "../http/auto-rate.js";
import type { HttpTryEvent } from "../http/http-messages.js";
import { label } from "./metric-label.js";

// Upstream calls take tens of milliseconds to tens of seconds (the request timeout is 30 s).
const HTTP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The counters of upstream HTTP tries, counted as each try ends. */
export interface UpstreamMetrics {
  observeTry(event: HttpTryEvent): void;
  observeRateChange(change: RateChange): void;
}

export function registerUpstreamMetrics(registry: Registry): UpstreamMetrics {
  const requests = new Counter({
    name: "etl_http_requests_total",
    help: "Upstream HTTP tries (a retry is one more), by operation and HTTP status or error name.",
    labelNames: ["operation", "status"] as const,
    registers: [registry],
  });
  const failureBodies = new Counter({
    name: "etl_upstream_failure_bodies_total",
    help: "Upstream 2xx answers whose body declares failure, by operation.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  const rateChanges = new Counter({
    name: "etl_request_rate_changes_total",
    help: "Changes of the shared request rate this process's answers made, by direction.",
    labelNames: ["direction"] as const,
    registers: [registry],
  });
  for (const direction of ["up", "down"]) rateChanges.inc({ direction }, 0);
  const retries = new Counter({
    name: "etl_http_retries_total",
    help: "Upstream tries after the first of a request, by operation.",
    labelNames: ["operation"] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: "etl_http_request_duration_seconds",
    help: "Duration of one upstream try, from sending to the whole body, by operation.",
    labelNames: ["operation"] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  return {
    observeTry(event) {
      const operation = label(event.operation);
      requests.inc({ operation, status: label(String(event.outcome)) });
      if (event.failureBody !== undefined) failureBodies.inc({ operation });
      if (event.tryNumber > 1) retries.inc({ operation });
      requestDuration.observe({ operation }, event.durationMs / 1000);
    },
    observeRateChange(change) {
      rateChanges.inc({ direction: change.to > change.from ? "up" : "down" });
    },
  };
}
