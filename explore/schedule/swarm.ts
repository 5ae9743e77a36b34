/**
 * Swarm selection (as TigerBeetle's simulator draws its fault probabilities per seed): each run
 * switches on a few fault kinds, each with a weight of its own, so runs differ in which faults
 * they combine rather than all spreading thin over every kind. Sieve's three perturbations —
 * a stale read, a crash right after a write, a held watch or forced relist — come first: the
 * first third of a search draws only them, and they weigh double after.
 */
import type { FaultKind } from '../../faults/schedule/schedule.ts';
import type { Random } from '../program/seeded-random.ts';

/** Sieve's: stale state, intermediate state (a crash between writes), unobserved state (a watch that misses changes). */
export const SIEVE_KINDS: readonly FaultKind[] = ['stale-reads', 'crash', 'watch-hold', 'watch-expire'];
/** The rest the proxy and the harness can do on any cluster, in the order the issue ranks them. */
export const OTHER_KINDS: readonly FaultKind[] = ['conflict', 'deny', 'latency', 'replica-start', 'error', 'watch-close'];

export type Swarm = (readonly [FaultKind, number])[];

export function drawSwarm(random: Random, sieveOnly: boolean): Swarm {
  const candidates = sieveOnly ? SIEVE_KINDS : [...SIEVE_KINDS, ...OTHER_KINDS];
  const on = candidates.filter(() => random.chance(0.5));
  const kinds = on.length ? on : [random.pick(candidates)];
  return kinds.map((kind) => [kind, random.int(1, 4) * (SIEVE_KINDS.includes(kind) ? 2 : 1)] as const);
}
