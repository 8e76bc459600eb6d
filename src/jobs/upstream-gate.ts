import type { UpstreamOutage } from "../http/upstream-outage.js";
import type { Gate } from "./gate.js";

/**
 * The upstream's outage as the worker's gate: closed while this process knows the upstream
 * declared down. Its probes are the outage's own, one at a time for every process sharing the
 * budget (UpstreamOutage), since the state lives in Redis rather than in this process.
 */
export function upstreamGate(outage: UpstreamOutage): Gate {
  return {
    name: "upstream",
    get open() {
      return !outage.down;
    },
    on(event, listener) {
      outage.on(event === "open" ? "up" : "down", () => void listener());
    },
  };
}
