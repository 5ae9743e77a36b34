/**
 * A batch: the runs one Playwright invocation of the lane carries out, each a program and the
 * fault schedule it runs under (none: the fault-free reference run). The search writes it as
 * JSON and names it in EXPLORE_BATCH; the explore spec defines one test per run from it. One
 * invocation for many runs: a lane's start (cluster, Playwright, its workers) costs seconds,
 * a run only as long as its calls.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Schedule } from '../../faults/schedule/schedule.ts';
import type { Program } from '../program/program.ts';

export const BATCH_ENV = 'EXPLORE_BATCH';

export interface BatchRun {
  /** The test's title, and how the search finds its result: unique within the batch. */
  id: string;
  program: Program;
  schedule?: Schedule;
}

export interface Batch {
  runs: BatchRun[];
}

export function writeBatch(path: string, batch: Batch): void {
  writeFileSync(path, `${JSON.stringify(batch)}\n`);
}

/** The batch EXPLORE_BATCH names; none outside a search (a listing of the lane's projects, say). */
export function readBatch(env: NodeJS.ProcessEnv = process.env): Batch {
  const path = env[BATCH_ENV];
  if (!path) return { runs: [] };
  return JSON.parse(readFileSync(path, 'utf8')) as Batch;
}
