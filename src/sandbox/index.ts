export type { AddPayoutInput, SandboxDataset } from "./dataset/dataset.js";
export type * from "./dataset/records.js";
export type {
  DriftKnobs,
  FaultKind,
  KnobsPatch,
  Sandbox,
  SandboxKnobs,
  SandboxOptions,
  SandboxSize,
  SandboxStats,
} from "./interfaces.js";
export { DEFAULT_KNOBS } from "./knobs.js";
export { startSandbox } from "./server.js";
export { DEFAULT_SIZE } from "./size.js";
