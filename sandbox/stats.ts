import { FAULT_KINDS } from "./faults.js";
import type { FaultKind, SandboxStats } from "./interfaces.js";

function emptyStats(): SandboxStats {
  return {
    requests: 0,
    byOperation: {},
    byStatus: {},
    rateLimited: 0,
    faults: Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>,
    unauthorized: 0,
    peakConcurrency: 0,
    perSecond: {},
    rateLimitedPerSecond: {},
    maxPerSecond: 0,
    connections: 0,
    failureEnvelopes: 0,
  };
}

/** Counts what the sandbox saw, so tests and the demo can check how a client behaved. */
export class StatsRecorder {
  private stats = emptyStats();
  private inFlight = 0;

  /** A request arrived; call `finished` once it is answered or its socket is gone. */
  arrived(operation: string, epochSecond: number): void {
    const stats = this.stats;
    stats.requests++;
    stats.byOperation[operation] = (stats.byOperation[operation] ?? 0) + 1;
    const inSecond = (stats.perSecond[epochSecond] ?? 0) + 1;
    stats.perSecond[epochSecond] = inSecond;
    stats.maxPerSecond = Math.max(stats.maxPerSecond, inSecond);
    this.inFlight++;
    stats.peakConcurrency = Math.max(stats.peakConcurrency, this.inFlight);
  }

  connected(): void {
    this.stats.connections++;
  }

  finished(): void {
    this.inFlight--;
  }

  status(code: number, epochSecond: number): void {
    const stats = this.stats;
    stats.byStatus[code] = (stats.byStatus[code] ?? 0) + 1;
    if (code === 401) stats.unauthorized++;
    if (code === 429) {
      stats.rateLimited++;
      stats.rateLimitedPerSecond[epochSecond] = (stats.rateLimitedPerSecond[epochSecond] ?? 0) + 1;
    }
  }

  fault(kind: FaultKind): void {
    this.stats.faults[kind]++;
  }

  failureEnvelope(): void {
    this.stats.failureEnvelopes++;
  }

  snapshot(): SandboxStats {
    return structuredClone(this.stats);
  }

  /** Zeroes the counters; requests still in flight count towards the new peak. */
  reset(): void {
    this.stats = emptyStats();
    this.stats.peakConcurrency = this.inFlight;
  }
}
