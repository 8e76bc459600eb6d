/** One page of a list; a page shorter than `limit` tells the client it was the last. */
export function pageOf<T>(items: readonly T[], offset: number, limit: number): T[] {
  return items.slice(offset, offset + limit);
}
