import { Gauge, type Registry } from "prom-client";
import type { CurrentRate } from "../http/auto-rate.js";

/** The shared request budget's rate, read at scrape time. */
export function registerRateGauges(
  registry: Registry,
  currentRate: () => Promise<CurrentRate | undefined>,
): void {
  const requestRate: Gauge<"source"> = new Gauge({
    name: "etl_request_rate_limit",
    help: "Requests per second the shared request budget allows now, by where the rate comes from.",
    labelNames: ["source"] as const,
    registers: [registry],
    collect: async () => {
      // Reset first: a rate that is not known now must not be exported as 0 or as a stale one.
      requestRate.reset();
      const rate = await currentRate();
      if (rate) requestRate.set({ source: rate.source }, rate.requestsPerSecond);
    },
  });
  const requestRateRefused: Gauge<"source"> = new Gauge({
    name: "etl_request_rate_refused",
    help: "The lowest learned rate that earned a 429, which probing stays under, by source.",
    labelNames: ["source"] as const,
    registers: [registry],
    collect: async () => {
      requestRateRefused.reset();
      const rate = await currentRate();
      if (rate?.refusedAt !== undefined) {
        requestRateRefused.set({ source: rate.source }, rate.refusedAt);
      }
    },
  });
}
