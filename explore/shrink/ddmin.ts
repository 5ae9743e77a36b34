/**
 * Delta debugging (Zeller and Hildebrandt, TSE 2002: ddmin) over a failing list: split it in n
 * parts, keep a part that still fails, else a complement that still fails, else split finer —
 * until it is 1-minimal (removing any one element makes it pass). Each round's candidates (every
 * part, every complement) are handed over together, so a round costs one batch of runs; the
 * first failing candidate in ddmin's order wins, as in the sequential algorithm.
 */

/** Which of the candidates fail (in order, one answer each). */
export type BatchPredicate<T> = (candidates: T[][]) => Promise<boolean[]>;

export interface DdminResult<T> {
  items: T[];
  /** Candidates tested, and rounds (batches) spent. */
  tests: number;
  rounds: number;
}

export async function ddmin<T>(items: readonly T[], fails: BatchPredicate<T>): Promise<DdminResult<T>> {
  let current = [...items];
  let n = 2;
  let tests = 0;
  let rounds = 0;
  while (current.length >= 2) {
    const parts = split(current, Math.min(n, current.length));
    const complements = parts.length > 2 ? parts.map((_, i) => parts.filter((__, j) => j !== i).flat()) : [];
    const candidates = [...parts, ...complements];
    const answers = await fails(candidates);
    tests += candidates.length;
    rounds++;
    const first = answers.findIndex(Boolean);
    if (first >= 0 && first < parts.length) {
      current = parts[first];
      n = 2;
    } else if (first >= parts.length) {
      current = complements[first - parts.length];
      n = Math.max(n - 1, 2);
    } else if (n >= current.length) {
      break;
    } else {
      n = Math.min(2 * n, current.length);
    }
  }
  return { items: current, tests, rounds };
}

/** `list` in `n` contiguous parts of near-equal size. */
export function split<T>(list: readonly T[], n: number): T[][] {
  const parts: T[][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = start + Math.floor((list.length - start) / (n - i));
    parts.push(list.slice(start, end));
    start = end;
  }
  return parts;
}
