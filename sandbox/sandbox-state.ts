import type { SandboxDataset } from "./dataset/dataset.js";
import type { SandboxKnobs } from "./interfaces.js";
import type { Rng } from "./prng.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { StatsRecorder } from "./stats.js";

/** What the request pipeline and the admin endpoints share about one running sandbox. */
export interface SandboxState {
  readonly apiKey: string;
  readonly data: SandboxDataset;
  readonly stats: StatsRecorder;
  readonly limiter: RateLimiter;
  /** Epoch ms (SandboxOptions.clock). */
  readonly clock: () => number;
  /** Draws faults; seeded, so a run with the same seed meets the same faults in order. */
  readonly faultRng: Rng;
  /** Draws failure envelopes (shapes.failureEnvelopeRate); its own sequence, like faults'. */
  readonly envelopeRng: Rng;
  /** Aborted by close(): pending delays stop waiting. */
  readonly signal: AbortSignal;
  /** The current knobs; replaced as a whole on change, so a request can keep its snapshot. */
  knobs(): SandboxKnobs;
  /** Applies a partial patch (validated) and returns the result. */
  setKnobs(patch: unknown): SandboxKnobs;
}
