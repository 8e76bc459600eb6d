import { z } from "zod";

/**
 * What a stream's tables do with a field no column holds yet, or a value its column's type cannot
 * hold: "evolve" adds the column or widens the type (the default); "freeze" keeps the tables as
 * they are, the field or value staying in raw and reported as a warning (exit 4), as dlt's
 * contract of the same name.
 */
export const SCHEMA_CONTRACTS = ["evolve", "freeze"] as const;
export type SchemaContract = (typeof SCHEMA_CONTRACTS)[number];

/**
 * `{"default": "evolve", "<stream or family>": "freeze"}`: per stream or family (a stream's own
 * entry wins), and a default for the others.
 */
export const schemaContractSchema = z
  .record(z.string(), z.enum(SCHEMA_CONTRACTS, { error: 'must be "evolve" or "freeze"' }))
  .default({});

/** A stream's contract, from the config's `schema_contract`. */
export function schemaContractOf(
  contracts: Readonly<Record<string, SchemaContract>>,
  stream: { readonly name: string; readonly family: string },
): SchemaContract {
  return contracts[stream.name] ?? contracts[stream.family] ?? contracts.default ?? "evolve";
}

/** The keys of `schema_contract` that name no stream nor family (`named`): a typo, refused. */
export function unknownContractKeys(
  contracts: Readonly<Record<string, SchemaContract>>,
  named: readonly string[],
): string[] {
  return Object.keys(contracts).filter((key) => key !== "default" && !named.includes(key));
}
