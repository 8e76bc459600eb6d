import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SandboxDataset } from "./dataset/dataset.js";
import { currentUtcDate } from "./days.js";
import type { Sandbox, SandboxOptions, ShapeKnobs } from "./interfaces.js";
import { DEFAULT_KNOBS, mergeKnobs } from "./knobs.js";
import { createRequestHandler } from "./pipeline.js";
import { rngFor } from "./prng.js";
import { RateLimiter } from "./rate-limiter.js";
import type { SandboxState } from "./sandbox-state.js";
import { resolveSize } from "./size.js";
import { StatsRecorder } from "./stats.js";

/** Starts a sandbox upstream (on 127.0.0.1 by default); nothing is generated until a request needs it. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const seed = options.seed ?? 1;
  const data = new SandboxDataset(
    seed,
    resolveSize(options.size),
    options.today ?? currentUtcDate(),
  );
  let knobs = mergeKnobs(DEFAULT_KNOBS, options.knobs ?? {});
  applyDataKnobs(data, knobs.shapes);
  const closing = new AbortController();
  const state: SandboxState = {
    apiKey: options.apiKey ?? "sandbox-key",
    data,
    stats: new StatsRecorder(),
    limiter: new RateLimiter(),
    clock: options.clock ?? Date.now,
    faultRng: rngFor(seed, "faults"),
    envelopeRng: rngFor(seed, "failure-envelopes"),
    signal: closing.signal,
    knobs: () => knobs,
    setKnobs: (patch) => {
      knobs = mergeKnobs(knobs, patch);
      applyDataKnobs(data, knobs.shapes);
      return knobs;
    },
  };
  const server = createServer(createRequestHandler(state));
  server.on("connection", () => state.stats.connected());
  const host = options.host ?? "127.0.0.1";
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  return {
    // Reached from this machine, whatever interface it listens on.
    url: `http://127.0.0.1:${port}`,
    apiKey: state.apiKey,
    data,
    stats: () => state.stats.snapshot(),
    resetStats: () => state.stats.reset(),
    setKnobs: (patch) => {
      state.setKnobs(patch);
    },
    close: () => close(server, closing),
  };
}

/**
 * The shape knobs that change the dataset itself (revision, money decimals, empty cases), handed
 * to it so the truth accessors serve what the routes serve. Setting an unchanged value is free.
 */
function applyDataKnobs(data: SandboxDataset, shapes: ShapeKnobs): void {
  if (data.revision !== shapes.revision) data.setRevision(shapes.revision);
  data.setMoneyDecimals(shapes.moneyDecimals);
  data.setEmptyCases(shapes.emptyCases);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Stops pending delays and destroys every socket, so a slow response cannot hold close(). */
function close(server: Server, closing: AbortController): Promise<void> {
  closing.abort();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
