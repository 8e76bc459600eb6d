import { z } from "zod";
import { perStream } from "./per-stream.js";

/**
 * What a stream's tables do with a field no column holds yet, or a value its column's type cannot
 * hold, as dlt's contracts of the same names: "evolve" adds the column or widens the type (the
 * default); "freeze" keeps the tables as they are, the field or value staying in raw and reported
 * as a warning (exit 4); "discard_value" keeps them as they are too, a new field's values in raw
 * alone and said in the log, not warned of (nothing is lost: raw has them); "discard_row" loads no
 * row whose record has a field no column holds: each is quarantined with its reason (exit 4).
 */
export const SCHEMA_CONTRACTS = ["evolve", "freeze", "discard_value", "discard_row"] as const;
export type SchemaContract = (typeof SCHEMA_CONTRACTS)[number];

/**
 * `{"default": "evolve", "<stream or family>": "freeze"}`: per stream or family (a stream's own
 * entry wins), and a default for the others.
 */
export const schemaContractSchema = z
  .record(
    z.string(),
    z.enum(SCHEMA_CONTRACTS, {
      error: 'must be "evolve", "freeze", "discard_value" or "discard_row"',
    }),
  )
  .default({});

/** A stream's contract, from the config's `schema_contract`. */
export function schemaContractOf(
  contracts: Readonly<Record<string, SchemaContract>>,
  stream: { readonly name: string; readonly family: string },
): SchemaContract {
  return perStream(contracts, stream, "evolve");
}
