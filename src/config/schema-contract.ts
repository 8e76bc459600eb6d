import { z } from "zod";

/**
 * What a stream's tables do with a field no column holds yet, or a value its column's type cannot
 * hold: "evolve" adds the column or widens the type (the default); "freeze" keeps the tables as
 * they are, the field or value staying in raw and reported as a warning (exit 4), as dlt's
 * contract of the same name.
 */
export const SCHEMA_CONTRACTS = ["evolve", "freeze"] as const;
export type SchemaContract = (typeof SCHEMA_CONTRACTS)[number];

/** `{"default": "evolve", "<stream>": "freeze"}`: per stream, and a default for the others. */
export const schemaContractSchema = z
  .record(z.string(), z.enum(SCHEMA_CONTRACTS, { error: 'must be "evolve" or "freeze"' }))
  .default({});

/** A stream's contract, from the config's `schema_contract`. */
export function schemaContractOf(
  contracts: Readonly<Record<string, SchemaContract>>,
  stream: string,
): SchemaContract {
  return contracts[stream] ?? contracts.default ?? "evolve";
}
