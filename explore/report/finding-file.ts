/**
 * finding.json: everything `npm run explore -- replay <dir>` needs to run a finding again — the
 * lane, the driver, the seed the lane ran with, the minimal program and schedule — and what the
 * search knew of it. Written once per signature; read back by replay.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Schedule } from '../../faults/schedule/schedule.ts';
import type { DriverUnderTest } from '../../lanes/run/lane-run.ts';
import type { Program } from '../program/program.ts';
import type { ShrinkStats } from '../shrink/shrink-failure.ts';

export const FINDING_FILE = 'finding.json';

export interface FindingFile {
  signature: string;
  lane: string;
  driver: DriverUnderTest;
  seed: number;
  program: Program;
  schedule: Schedule;
  original: { runId: string; program: Program; schedule?: Schedule };
  failingRuns: number;
  stats?: ShrinkStats;
  reproduced?: { failed: number; of: number };
}

export function readFindingFile(dir: string): FindingFile {
  const path = join(dir, FINDING_FILE);
  let value: FindingFile;
  try {
    value = JSON.parse(readFileSync(path, 'utf8')) as FindingFile;
  } catch (error) {
    throw new Error(`${path}: cannot read the finding (${(error as Error).message}); name a folder \`npm run explore\` wrote, reports/explore/<lane>/<signature>/`);
  }
  for (const field of ['signature', 'lane', 'driver', 'seed', 'program', 'schedule'] as const) {
    if (value[field] === undefined) throw new Error(`${path}: no "${field}"; name a folder \`npm run explore\` wrote`);
  }
  return value;
}
