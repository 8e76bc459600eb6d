/**
 * Built-in types a text array's element is cast to by name; another (an enum, a domain, a type
 * of some schema) is left to the placeholders' own inference.
 */
const CASTABLE = new Set([
  ...["int2", "int4", "int8", "bigint", "numeric", "float4", "float8", "bool", "boolean"],
  ...["date", "timestamp", "timestamptz", "text", "varchar", "bpchar", "uuid", "json", "jsonb"],
]);

export function castName(type: string | undefined): string | null {
  if (type === undefined) return null;
  const element = type.startsWith("_") ? type.slice(1) : type;
  return CASTABLE.has(element) ? type : null;
}
