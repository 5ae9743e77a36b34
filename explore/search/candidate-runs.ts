/**
 * Runs shrink candidates and replays through batches, judging each against one signature. A
 * candidate fails when it fails with that signature in any of k tries; tries are spent lazily,
 * as ddmin needs only the first failing candidate of a round: every candidate runs once, and only
 * when none failed do they all run again, up to k times. A differential signature needs a
 * reference run of the candidate's own program, so those candidates carry one beside them.
 */
import { faultSchedule, type Schedule } from '../../faults/schedule/schedule.ts';
import { signatureOf } from '../oracle/signature.ts';
import type { Program } from '../program/program.ts';
import type { BatchRun } from '../run/batch-file.ts';
import type { RunResult } from '../run/run-batch.ts';
import type { Candidate } from '../shrink/shrink-failure.ts';

/** Runs one batch of runs (the search's batch runner, with its naming and counting). */
export type BatchRunner = (runs: BatchRun[], label: string) => Promise<Map<string, RunResult>>;

export interface Judged {
  fails: boolean;
  result?: RunResult;
}

export class CandidateRuns {
  private next = 0;

  constructor(
    private readonly signature: string,
    private readonly run: BatchRunner,
    private readonly tries: number,
  ) {}

  /** Whether each candidate fails with the signature in any of the tries, with a failing run's result. */
  async judge(candidates: Candidate[], label: string): Promise<Judged[]> {
    const judged: Judged[] = candidates.map(() => ({ fails: false }));
    for (let attempt = 1; attempt <= this.tries && candidates.length; attempt++) {
      const results = await this.once(candidates, `${label}${attempt > 1 ? `, try ${attempt}` : ''}`);
      results.forEach((fails, i) => fails.fails && (judged[i] = fails));
      if (judged.some((j) => j.fails)) break;
    }
    return judged;
  }

  /** Each candidate run `times` over in one batch (the reproduction rate). */
  async replay(candidate: Candidate, times: number, label: string): Promise<Judged[]> {
    return this.once(Array.from({ length: times }, () => candidate), label);
  }

  private async once(candidates: Candidate[], label: string): Promise<Judged[]> {
    const differential = this.signature.startsWith('differential/');
    const runs = candidates.map((c) => ({ id: `c${++this.next}`, program: c.program, schedule: c.schedule.items.length ? c.schedule : undefined }));
    const references = differential ? runs.map((r) => ({ id: `${r.id}-ref`, program: r.program })) : [];
    const results = await this.run([...runs, ...references], label);
    return runs.map((r) => {
      const result = results.get(r.id)!;
      const reference = differential ? results.get(`${r.id}-ref`) : undefined;
      return { fails: signatureOf(result, reference) === this.signature, result };
    });
  }
}

/** A finding's candidate form: its program, and its schedule (an empty one for a reference run's own failure). */
export function candidateOf(program: Program, schedule: Schedule | undefined): Candidate {
  return { program, schedule: schedule ?? faultSchedule([]) };
}
