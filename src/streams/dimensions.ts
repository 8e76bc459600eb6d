import type { Partition } from "./partition.js";

/** A dimension's values: what one field of a partition ranges over. */
export type DimensionValues = readonly (string | number)[];

/**
 * A dimension whose values are several fields at once (a chart is a country and a genre): each
 * value's fields go into the partition as they are, and `key` writes its part of the key.
 */
export interface CompoundDimension<V extends object> {
  readonly values: readonly V[];
  // A method, so that a dimension of charts is a dimension of objects too.
  key(value: V): string;
}

export type Dimension = DimensionValues | CompoundDimension<object>;

export type Dimensions = Readonly<Record<string, Dimension>>;

/** A dimension of several fields, keyed by `key` (e.g. "US|Pop"). */
export function compound<V extends object>(
  values: readonly V[],
  key: (value: V) => string,
): CompoundDimension<V> {
  return { values, key };
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/** The fields of a partition of the product: a plain dimension's by its name, a compound's own. */
type DimensionFields<D extends Dimensions> = {
  readonly [K in keyof D as D[K] extends DimensionValues ? K : never]: D[K] extends DimensionValues
    ? D[K][number]
    : never;
} & Intersection<{ [K in keyof D]: D[K] extends CompoundDimension<infer V> ? V : never }[keyof D]>;

/** A partition of the product: one value of each dimension. */
export type ProductPartition<D extends Dimensions, C = object> = Partition & C & DimensionFields<D>;

function isCompound(dimension: Dimension): dimension is CompoundDimension<object> {
  return !Array.isArray(dimension);
}

/**
 * Every combination of the dimensions' values, as partitions: the fields are the dimensions'
 * names (a compound dimension's, its values' own), the key is the values in the order the
 * dimensions are declared, joined by "|" ("2026-01-05|asset|stream"). `constant` fields go into
 * every partition but not into its key. Made one at a time: a year of 2,000 tracked artists' days
 * is 730,000 of them.
 */
export function* product<D extends Dimensions, C extends object = object>(
  dimensions: D,
  constant?: C,
): Generator<ProductPartition<D, C>> {
  const names = Object.keys(dimensions);
  const declared = names.map((name) => dimensions[name] ?? []);
  const lists = declared.map((dimension) => (isCompound(dimension) ? dimension.values : dimension));
  if (lists.some((values) => values.length === 0)) return;
  const at = lists.map(() => 0);
  for (;;) {
    const fields: Record<string, unknown> = { ...constant };
    const parts: (string | number)[] = [];
    for (const [i, dimension] of declared.entries()) {
      const value = lists[i]?.[at[i] ?? 0];
      if (isCompound(dimension)) {
        Object.assign(fields, value);
        parts.push(dimension.key(value as object));
      } else {
        fields[names[i] ?? ""] = value;
        parts.push(value as string | number);
      }
    }
    fields.key = parts.join("|");
    yield fields as ProductPartition<D, C>;
    // The last dimension turns fastest, like nested loops in declaration order.
    let i = lists.length - 1;
    while (i >= 0 && (at[i] = (at[i] ?? 0) + 1) === lists[i]?.length) at[i--] = 0;
    if (i < 0) return;
  }
}
