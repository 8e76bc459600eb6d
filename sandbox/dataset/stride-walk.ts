import type { Rng } from "../prng.js";

/**
 * `count` distinct indices of [0, n) in a seeded order, in O(count) time and memory: a walk
 * from a random start with a stride coprime to n visits every index once before repeating.
 */
export function strideWalk(rng: Rng, n: number, count: number): number[] {
  if (n <= 0) return [];
  const first = rng.int(0, n - 1);
  let stride = rng.int(1, n);
  while (gcd(stride, n) !== 1) stride++;
  return Array.from({ length: Math.min(count, n) }, (_, j) => (first + j * stride) % n);
}

function gcd(a: number, b: number): number {
  let [x, y] = [a, b];
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}
