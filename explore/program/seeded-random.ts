/**
 * The one source of chance in exploration: pure-rand's xoroshiro128+ (as the gateway's replica
 * picker uses), seeded, portable and independent of Math.random, so a seed names a whole search.
 * Each run draws from a generator of its own, derived from the search's seed and the run's
 * index: a run's program and schedule depend on nothing that ran before it.
 */
import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface Random {
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
}

export function seededRandom(seed: number): Random {
  const generator = xoroshiro128plus(seed);
  const int = (min: number, max: number) => uniformInt(generator, min, max);
  return {
    int,
    chance: (p) => int(0, 9_999) < p * 10_000,
    pick: (items) => {
      if (!items.length) throw new Error('nothing to pick from');
      return items[int(0, items.length - 1)];
    },
    weighted: (items) => {
      const total = items.reduce((n, [, w]) => n + w, 0);
      let draw = int(1, Math.max(1, Math.round(total * 1000)));
      for (const [item, w] of items) {
        draw -= Math.round(w * 1000);
        if (draw <= 0) return item;
      }
      return items[items.length - 1][0];
    },
  };
}

/** The seed of one part of a search (`program 3`, `schedule 17`): the first 32 bits of sha256(seed, part). */
export function partSeed(seed: number, part: string): number {
  return createHash('sha256').update(`${seed}\0${part}`).digest().readUInt32BE(0);
}
