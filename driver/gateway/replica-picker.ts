/**
 * Which of several driver replicas serves a call: picked per call from a seeded generator, so a
 * run's routing is printed (its seed) and reproduced exactly by giving the same seed again.
 * pure-rand's xoroshiro128+ is the generator: seeded, portable, and independent of Math.random.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface ReplicaPicker {
  readonly seed: number;
  /** The index of the replica for the next call. */
  next(): number;
}

/** A picker over `count` replicas; with one replica it always answers 0. */
export function seededPicker(count: number, seed: number): ReplicaPicker {
  if (!Number.isInteger(count) || count < 1) throw new Error(`a gateway needs at least one driver client, got ${count}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`the replica seed must be an integer, got ${seed}`);
  const generator = xoroshiro128plus(seed);
  return { seed, next: () => (count === 1 ? 0 : uniformInt(generator, 0, count - 1)) };
}
