/**
 * The search: programs drawn from the seed, each run once without faults (its reference run),
 * then several runs of each under seeded fault schedules whose triggers come from its reference;
 * every run judged (every invariant family, the lifecycle model, liveness, the differential
 * check); failures grouped by signature; each signature shrunk to a minimal reproducer and
 * replayed n times for its reproduction rate. `--runs N` is N fault runs in one round; `--budget`
 * runs rounds until the time is spent (shrinking comes after, on its own time).
 */
import type { Schedule } from '../../faults/schedule/schedule.ts';
import { signatureOf } from '../oracle/signature.ts';
import { generateProgram } from '../program/generate-program.ts';
import type { Program } from '../program/program.ts';
import { partSeed } from '../program/seeded-random.ts';
import type { BatchRun } from '../run/batch-file.ts';
import { runBatch, type BatchContext, type RunResult } from '../run/run-batch.ts';
import { generateSchedule } from '../schedule/generate-schedule.ts';
import { referencePoints } from '../schedule/reference-points.ts';
import { shrinkFailure, type Candidate, type ShrinkStats } from '../shrink/shrink-failure.ts';
import { CandidateRuns, candidateOf } from './candidate-runs.ts';
import { SearchProgress } from './search-progress.ts';

/** Fault runs per program: its reference run is shared by them. */
export const RUNS_PER_PROGRAM = 3;

export interface SearchOptions {
  context: Omit<BatchContext, 'onProgress'>;
  seed: number;
  /** Fault runs: a number, or rounds until `budgetMs` is spent. */
  runs?: number;
  budgetMs?: number;
  /** k: a shrink candidate fails when it fails in any of k tries. */
  tries: number;
  /** n: replays of the minimal reproducer for its reproduction rate. */
  replays: number;
  shrink: boolean;
  /**
   * `--shard i/n` (index 0-based here): this machine's share of one search, as Playwright shards
   * tests — the same seed, programs q with q mod n = index (and their runs), so n shards search
   * disjoint runs of the same search.
   */
  shard?: { index: number; count: number };
}

/** One run that failed: which, and what it ran. */
export interface FailingRun {
  runId: string;
  program: Program;
  schedule?: Schedule;
  result: RunResult;
}

export interface Finding {
  signature: string;
  /** Every run that failed with it. */
  runs: FailingRun[];
  minimal?: Candidate;
  stats?: ShrinkStats;
  /** The minimal reproducer's replays that failed with the signature, of how many. */
  reproduced?: { failed: number; of: number };
  /** A failing run of the minimal reproducer (its replay), for its timeline and verdicts. */
  minimalRun?: RunResult;
}

export interface SearchReport {
  seed: number;
  runs: number;
  references: number;
  /** Runs of every kind: references, fault runs, shrink candidates, replays. */
  runsTotal: number;
  searchMs: number;
  totalMs: number;
  findings: Finding[];
}

/** The k-th program of a shard: programs q with q mod n = the shard's index, so shards of one search share no program. */
export function shardProgram(k: number, shard: { index: number; count: number }): number {
  return shard.index + shard.count * k;
}

/** Program q's fault runs: 3q, 3q+1, 3q+2, those below --runs. Run indices (and so their seeds) are the whole search's, whichever shard runs them. */
export function faultRunsOf(program: number, planned: number | undefined): number[] {
  return [0, 1, 2].map((m) => program * RUNS_PER_PROGRAM + m).filter((j) => j < (planned ?? Infinity));
}

export async function explore(options: SearchOptions): Promise<SearchReport> {
  const { context, seed } = options;
  const progress = new SearchProgress({ runsDone: 0, references: 0, runsPlanned: options.runs, failures: new Map(), activity: 'starting' });
  const started = Date.now();
  let batchNo = 0;
  let runsTotal = 0;
  const runner = async (runs: BatchRun[], label: string) => {
    if (!runs.length) return new Map<string, RunResult>();
    const name = `b${String(++batchNo).padStart(3, '0')}`;
    progress.update({ activity: `${label} 0/${runs.length}` });
    const batch = await runBatch({ ...context, onProgress: (done, total) => progress.update({ activity: `${label} ${done}/${total}` }) }, { runs }, name);
    runsTotal += runs.length;
    const missing = [...batch.results.values()].filter((r) => r.status === 'missing');
    if (missing.length === runs.length) throw new Error(`batch ${name} (${label}) ran none of its ${runs.length} runs; the lane said:\n${batch.log.slice(-4000)}`);
    return batch.results;
  };

  const findings = new Map<string, Finding>();
  const record = (run: FailingRun, signature: string) => {
    const finding = findings.get(signature) ?? { signature, runs: [] };
    finding.runs.push(run);
    findings.set(signature, finding);
    progress.state.failures.set(signature, finding.runs.length);
  };
  const programOptions = { replicas: context.lane.driver.replicas ?? 1, apiHeadroomSeconds: context.lane.driver.settings.apiHeadroomSeconds };
  let programs = 0;
  let runsDone = 0;
  let references = 0;
  const planned = options.runs;
  const shard = options.shard ?? { index: 0, count: 1 };
  const programOf = (k: number) => shardProgram(k, shard);
  const totalPrograms = planned === undefined ? Infinity : Math.ceil(planned / RUNS_PER_PROGRAM);
  if (planned !== undefined) progress.state.runsPlanned = Array.from({ length: totalPrograms }, (_, q) => q).filter((q) => q % shard.count === shard.index).flatMap((q) => faultRunsOf(q, planned)).length;
  const roundSize = Math.ceil(Math.max(6, context.workers * 2) / RUNS_PER_PROGRAM);
  try {
    do {
      const round: { index: number; program: Program }[] = [];
      for (let k = programs; programOf(k) < totalPrograms && (planned !== undefined || round.length < roundSize); k++) {
        round.push({ index: programOf(k), program: generateProgram(partSeed(seed, `program ${programOf(k)}`), programOptions) });
      }
      programs += round.length;
      const firstRound = programs === round.length;
      const refs = await runner(
        round.map((p) => ({ id: `ref-${p.index}`, program: p.program })),
        'reference runs',
      );
      references += round.length;
      const faultRuns: BatchRun[] = [];
      for (const p of round) {
        const reference = refs.get(`ref-${p.index}`)!;
        const signature = signatureOf(reference);
        if (signature) {
          // The program fails without any fault: that is the finding, and faults on top of it would only find it again.
          record({ runId: `ref-${p.index}`, program: p.program, result: reference }, signature);
          continue;
        }
        if (!reference.timeline) continue;
        const points = referencePoints(reference.timeline);
        for (const j of faultRunsOf(p.index, planned)) {
          faultRuns.push({ id: `run-${j}`, program: p.program, schedule: generateSchedule(partSeed(seed, `schedule ${j}`), points, { sieveOnly: planned !== undefined ? j < planned / 3 : firstRound }) });
        }
      }
      progress.update({ references });
      const results = await runner(faultRuns, 'fault runs');
      for (const run of faultRuns) {
        const result = results.get(run.id)!;
        const p = round.find((q) => q.program === run.program)!;
        const signature = signatureOf(result, refs.get(`ref-${p.index}`));
        if (signature) record({ runId: run.id, program: run.program, schedule: run.schedule, result }, signature);
      }
      runsDone += faultRuns.length;
      progress.update({ runsDone });
    } while (planned === undefined && Date.now() - started < (options.budgetMs ?? 0));
    const searchMs = Date.now() - started;

    for (const finding of findings.values()) {
      const first = finding.runs[0];
      const candidates = new CandidateRuns(finding.signature, runner, options.tries);
      const original = candidateOf(first.program, first.schedule);
      let minimal = original;
      if (options.shrink) {
        const shrunk = await shrinkFailure(original, async (list, phase) => (await candidates.judge(list, `shrinking ${finding.signature}: ${phase}`)).map((j) => j.fails));
        minimal = shrunk.minimal;
        finding.stats = shrunk.stats;
      }
      finding.minimal = minimal;
      // --replays 0: no reproduction rate, and the report shows the first failing run.
      if (options.replays === 0) continue;
      const replays = await candidates.replay(minimal, options.replays, `replaying ${finding.signature}'s reproducer`);
      finding.reproduced = { failed: replays.filter((r) => r.fails).length, of: replays.length };
      finding.minimalRun = replays.find((r) => r.fails)?.result ?? replays[0]?.result;
    }
    progress.update({ activity: 'done' });
    return { seed, runs: runsDone, references, runsTotal, searchMs, totalMs: Date.now() - started, findings: [...findings.values()] };
  } finally {
    progress.done();
  }
}
