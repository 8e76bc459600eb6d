/**
 * Partitions a process runs at once for each request it may have in flight: a partition spends
 * part of its time writing, and meanwhile another uses the request slot. The shared request
 * budget, not this, caps the requests.
 */
export function partitionsInFlight(maxConcurrency: number): number {
  return 2 * maxConcurrency;
}
