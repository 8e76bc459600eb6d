export type { AddPayoutInput, SandboxDataset } from "./dataset/dataset.js";
export type * from "./dataset/records.js";
export type { RevisionChanges } from "./dataset/revision.js";
export type {
  CredentialEchoStatus,
  DriftKnobs,
  FaultKind,
  KnobsPatch,
  Sandbox,
  SandboxKnobs,
  SandboxOptions,
  SandboxStats,
  ShapeKnobs,
} from "./interfaces.js";
export { endpointRecords } from "./endpoint-modules.js";
export { DEFAULT_KNOBS } from "./knobs.js";
export { startSandbox } from "./server.js";
export { SHAPE_VARIANTS, shapeVariantsPatch } from "./shape-variants.js";
export { DEFAULT_SIZE, type SandboxSize } from "./size.js";
