/**
 * `npm run explore -- merge <out> <report-dir>...`: the findings of several shards of one search
 * as one report. Each input is a report folder (`reports/explore`, a lane folder per lane, a
 * folder per signature); a signature found by several shards keeps the smallest reproducer
 * (fewest schedule items, then fewest calls) and counts every shard's failing runs.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callCount } from '../program/program.ts';
import { FINDING_FILE, readFindingFile, type FindingFile } from './finding-file.ts';
import { signatureFolder } from './write-report.ts';

export interface MergedFinding {
  lane: string;
  signature: string;
  failingRuns: number;
  /** The folder the kept reproducer came from. */
  from: string;
  finding: FindingFile;
}

export function mergeReports(inputs: string[], out: string): MergedFinding[] {
  const kept = new Map<string, MergedFinding>();
  for (const input of inputs) {
    for (const lane of readdirSync(input, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const folder of readdirSync(join(input, lane.name), { withFileTypes: true }).filter((d) => d.isDirectory())) {
        const dir = join(input, lane.name, folder.name);
        if (!existsSync(join(dir, FINDING_FILE))) continue;
        const finding = readFindingFile(dir);
        const key = `${lane.name}\0${finding.signature}`;
        const before = kept.get(key);
        const size = (f: FindingFile) => [f.schedule.items.length, callCount(f.program)];
        const smaller = !before || size(finding)[0] < size(before.finding)[0] || (size(finding)[0] === size(before.finding)[0] && size(finding)[1] < size(before.finding)[1]);
        const failingRuns = (before?.failingRuns ?? 0) + (finding.failingRuns ?? 1);
        kept.set(key, smaller ? { lane: lane.name, signature: finding.signature, failingRuns, from: dir, finding } : { ...before, failingRuns });
      }
    }
  }
  const merged = [...kept.values()];
  for (const m of merged) {
    const target = join(out, m.lane, signatureFolder(m.signature));
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    cpSync(m.from, target, { recursive: true });
    writeFileSync(join(target, FINDING_FILE), `${JSON.stringify({ ...m.finding, failingRuns: m.failingRuns }, null, 2)}\n`);
  }
  mkdirSync(out, { recursive: true });
  const rows = merged.map((m) => `| ${m.lane} | ${m.signature} | ${m.failingRuns} | ${m.finding.schedule.items.length} | ${callCount(m.finding.program)} | ${m.finding.reproduced ? `${m.finding.reproduced.failed}/${m.finding.reproduced.of}` : '—'} | ${m.lane}/${signatureFolder(m.signature)}/ |`);
  writeFileSync(
    join(out, 'summary.md'),
    `### explore: ${inputs.length} shard report(s) merged\n\n${merged.length ? ['| lane | signature | failing runs | schedule items | calls | reproduced | reproducer |', '|---|---|---|---|---|---|---|', ...rows].join('\n') : 'No failure found.'}\n`,
  );
  return merged;
}
