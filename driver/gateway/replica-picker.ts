/**
 * Which of several driver replicas serves a call: picked per call from a seeded generator, so a
 * run's routing is printed (its seed) and reproduced exactly by giving the same seed again.
 * pure-rand's xoroshiro128+ is the generator: seeded, portable, and independent of Math.random.
 */
import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface ReplicaPicker {
  readonly seed: number;
  /**
   * The index of the replica for the next call, drawn among `eligible` (default: every
   * replica) — a replica known to be down is left out, and the same seed with the same
   * replicas down gives the same sequence.
   */
  next(eligible?: readonly number[]): number;
}

/** A picker over `count` replicas; with one replica (or one eligible) it answers it without drawing. */
export function seededPicker(count: number, seed: number): ReplicaPicker {
  if (!Number.isInteger(count) || count < 1) throw new Error(`a gateway needs at least one driver client, got ${count}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`the replica seed must be an integer, got ${seed}`);
  const generator = xoroshiro128plus(seed);
  const every = Array.from({ length: count }, (_, i) => i);
  return {
    seed,
    next: (eligible = every) => {
      if (eligible.length === 0) throw new Error('no driver replica is left to pick');
      return eligible.length === 1 ? eligible[0] : eligible[uniformInt(generator, 0, eligible.length - 1)];
    },
  };
}

/**
 * The seed of one part of a run (a test: its title path and repeat index), from the run's seed:
 * each part's routing then depends only on the run's seed and its own identity, not on which
 * tests ran before it or on which worker, so one failing test reproduces on its own. The first
 * 32 bits of sha256(runSeed, identity).
 */
export function derivedSeed(runSeed: number, identity: string): number {
  if (!Number.isSafeInteger(runSeed)) throw new Error(`the run seed must be an integer, got ${runSeed}`);
  return createHash('sha256').update(`${runSeed}\0${identity}`).digest().readUInt32BE(0);
}
