import type { Partition } from "./stream.js";

/** A dimension's values: what one field of a partition ranges over. */
export type DimensionValues = readonly (string | number)[];

export type Dimensions = Readonly<Record<string, DimensionValues>>;

/** A partition of the product: one value of each dimension, by the dimension's name. */
export type ProductPartition<D extends Dimensions, C = object> = Partition &
  C & { readonly [K in keyof D]: D[K][number] };

/**
 * Every combination of the dimensions' values, as partitions: the fields are the dimensions'
 * names, the key is the values in the order the dimensions are declared, joined by "|"
 * ("2026-01-05|asset|stream"). `constant` fields go into every partition but not into its key.
 * Made one at a time: a year of 2,000 tracked artists' days is 730,000 of them.
 */
export function* product<D extends Dimensions, C extends object = object>(
  dimensions: D,
  constant?: C,
): Generator<ProductPartition<D, C>> {
  const names = Object.keys(dimensions);
  const lists = names.map((name) => dimensions[name] ?? []);
  if (lists.some((values) => values.length === 0)) return;
  const at = lists.map(() => 0);
  for (;;) {
    const values = lists.map((values, i) => values[at[i] ?? 0] as string | number);
    yield {
      ...constant,
      ...Object.fromEntries(names.map((name, i) => [name, values[i]])),
      key: values.join("|"),
    } as ProductPartition<D, C>;
    // The last dimension turns fastest, like nested loops in declaration order.
    let i = lists.length - 1;
    while (i >= 0 && (at[i] = (at[i] ?? 0) + 1) === lists[i]?.length) at[i--] = 0;
    if (i < 0) return;
  }
}
