/**
 * Real-cluster timing for the Agent Sandbox controller, on by default (issue 13): reads through
 * an informer cache that lags each object by its own delay, reconciles that take a while, and
 * controller-runtime's retry policy. Every random draw is a function of the seed and a stable
 * name (never of wall-clock order), so a seed reproduces the same lags and latencies.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { nameHash } from './agent-sandbox-names.ts';

export type MsRange = readonly [min: number, max: number];

export interface RealismOptions {
  /** false: fresh reads, no latency (today's instant controller, for debugging). Default true. */
  enabled?: boolean;
  /** Seeds every draw; default: a random one, reported in `ResolvedRealism.seed`. */
  seed?: number;
  /** How far behind the store the controller's cache sees each object. Default 20-300 ms. */
  cacheLagMs?: MsRange;
  /** How long one reconcile takes before it reads. Default 2-40 ms. */
  reconcileLatencyMs?: MsRange;
  /** Concurrent reconciles (never two of one Sandbox); default: the release's --sandbox-concurrent-workers. */
  workers?: number;
}

export interface ResolvedRealism {
  enabled: boolean;
  seed: number;
  cacheLagMs: MsRange;
  reconcileLatencyMs: MsRange;
  workers?: number;
}

export const DEFAULT_CACHE_LAG_MS: MsRange = [20, 300];
export const DEFAULT_RECONCILE_LATENCY_MS: MsRange = [2, 40];
const OFF: MsRange = [0, 0];

function checkRange(name: string, range: MsRange): MsRange {
  const [min, max] = range;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new Error(`realism ${name} must be two whole milliseconds, 0 <= min <= max; got [${range.join(', ')}]`);
  }
  return range;
}

/** Options with their defaults; a disabled realism has zero lag and latency whatever was asked. */
export function resolveRealism(options: RealismOptions = {}): ResolvedRealism {
  const enabled = options.enabled ?? true;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`realism seed must be a non-negative whole number; got ${seed}`);
  if (options.workers !== undefined && (!Number.isInteger(options.workers) || options.workers < 1)) {
    throw new Error(`realism workers must be a whole number >= 1; got ${options.workers}`);
  }
  return {
    enabled,
    seed,
    cacheLagMs: enabled ? checkRange('cacheLagMs', options.cacheLagMs ?? DEFAULT_CACHE_LAG_MS) : OFF,
    reconcileLatencyMs: enabled ? checkRange('reconcileLatencyMs', options.reconcileLatencyMs ?? DEFAULT_RECONCILE_LATENCY_MS) : OFF,
    workers: options.workers,
  };
}

/** One line for logs and banners: how to reproduce this run. */
export function describeRealism(realism: ResolvedRealism): string {
  if (!realism.enabled) return 'realism off (fresh reads, no latency)';
  const [lagMin, lagMax] = realism.cacheLagMs;
  const [latMin, latMax] = realism.reconcileLatencyMs;
  return `realism on, seed ${realism.seed} (cache lag ${lagMin}-${lagMax} ms, reconcile latency ${latMin}-${latMax} ms)`;
}

/** Seeded draws, one independent stream per name (FNV-1a of the name mixed into the seed). */
export class Draws {
  private readonly streams = new Map<string, RandomGenerator>();

  constructor(private readonly seed: number) {}

  /** The same value for the same seed and name, every time: e.g. an object's cache lag. */
  fixed(name: string, [min, max]: MsRange): number {
    if (max === 0) return 0;
    return uniformInt(this.generator(name), min, max);
  }

  /** The next value of the stream `name`: e.g. the n-th reconcile latency of one Sandbox. */
  next(name: string, [min, max]: MsRange): number {
    if (max === 0) return 0;
    let stream = this.streams.get(name);
    if (!stream) this.streams.set(name, (stream = this.generator(name)));
    return uniformInt(stream, min, max);
  }

  private generator(name: string): RandomGenerator {
    return xoroshiro128plus((this.seed ^ parseInt(nameHash(name), 16)) >>> 0);
  }
}
