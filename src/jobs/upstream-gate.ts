import type { UpstreamOutage } from "../http/upstream-outage.js";
import type { Logger } from "../logging/logger.js";
import { type Gate, GateEvents } from "./gate.js";

/**
 * The upstream's outage as the worker's gate: closed while this process knows the upstream
 * declared down. Its probes are the outage's own, one at a time for every process sharing the
 * budget (UpstreamOutage), since the state lives in Redis rather than in this process.
 */
export function upstreamGate(outage: UpstreamOutage, logger: Logger): Gate {
  const name = "upstream";
  const events = new GateEvents(name, logger);
  outage.on("up", () => events.notify("open"));
  outage.on("down", () => events.notify("close"));
  return {
    name,
    get open() {
      return !outage.down;
    },
    on: (event, listener) => events.on(event, listener),
  };
}
