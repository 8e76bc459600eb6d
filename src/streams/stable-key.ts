import { createHash } from "node:crypto";
import { canonicalJson } from "../json/canonical-json.js";

/** The key of a record without an id: sha256 (hex) of its canonical JSON. */
export function stableKey(record: unknown): string {
  return createHash("sha256").update(canonicalJson(record)).digest("hex");
}
