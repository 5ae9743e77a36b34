import { expect, test } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultSchedule } from '../../faults/schedule/schedule.ts';
import { checkSchedule } from '../../faults/schedule/parse-schedule.ts';
import type { Program } from '../program/program.ts';
import type { SearchReport } from '../search/explore-search.ts';
import { readFindingFile } from './finding-file.ts';
import { signatureFolder, writeReport } from './write-report.ts';

const program: Program = { sandboxes: [{ name: 'xa', cleanupMs: 0, slowMainStopMs: 0 }], steps: [{ calls: [{ op: 'create', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }] }] };
const crash = { id: 'crash-1', trigger: { on: 'request' as const, match: { writes: true }, occurrence: 3, at: 'answered' as const }, fault: { kind: 'crash' as const } };
const latency = { id: 'latency-2', trigger: { on: 'start' as const }, fault: { kind: 'latency' as const, ms: 300 } };

test('each signature gets its folder: the minimal schedule (a file --faults takes), the original, replay.sh, the timeline, verdicts, shrink figures; then summary.md and junit.xml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'explore-report-'));
  try {
    const html = join(dir, 'run-timeline.html');
    writeFileSync(html, '<html>timeline</html>');
    const signature = 'stop/suspend-after-supervisor-gone';
    const report: SearchReport = {
      seed: 7,
      runs: 12,
      references: 4,
      runsTotal: 30,
      searchMs: 60_000,
      totalMs: 120_000,
      findings: [
        {
          signature,
          runs: [{ runId: 'run-5', program, schedule: faultSchedule([latency, crash]), result: { id: 'run-5', status: 'failed', errors: ['boom'], verdicts: [], durationMs: 1 } }],
          minimal: { program, schedule: faultSchedule([crash]) },
          stats: { candidates: 6, rounds: 3, itemsBefore: 2, itemsAfter: 1, callsBefore: 2, callsAfter: 2, accepted: ['ddmin: 2 → 1 items (crash-1)'] },
          reproduced: { failed: 9, of: 10 },
          minimalRun: { id: 'c9', status: 'failed', errors: ['stop/suspend-after-supervisor-gone FAIL'], verdicts: [{ id: signature, status: 'FAIL' } as never], timelineHtml: html, durationMs: 1 },
        },
      ],
    };
    writeReport(report, { lane: 'shared-v1beta1', driver: { kind: 'harness', variant: 'resume-skips-wait' }, seed: 7, dir });
    const folder = join(dir, signatureFolder(signature));
    expect(signatureFolder(signature)).toBe('stop_suspend-after-supervisor-gone');
    expect(checkSchedule(JSON.parse(readFileSync(join(folder, 'schedule.json'), 'utf8'))).items.map((i) => i.id)).toEqual(['crash-1']);
    expect(JSON.parse(readFileSync(join(folder, 'original.json'), 'utf8')).schedule.items).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(folder, 'shrink.json'), 'utf8'))).toMatchObject({ itemsBefore: 2, itemsAfter: 1, reproductionRate: '9/10' });
    expect(readFileSync(join(folder, 'timeline.html'), 'utf8')).toContain('timeline');
    expect(JSON.parse(readFileSync(join(folder, 'verdicts.json'), 'utf8'))[0].id).toBe(signature);
    const replay = readFileSync(join(folder, 'replay.sh'), 'utf8');
    expect(replay).toContain('exec npm run explore -- replay "$here"');
    expect(statSync(join(folder, 'replay.sh')).mode & 0o111).toBeTruthy();
    const finding = readFindingFile(folder);
    expect(finding).toMatchObject({ signature, lane: 'shared-v1beta1', seed: 7, driver: { kind: 'harness', variant: 'resume-skips-wait' }, program });
    const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('| stop/suspend-after-supervisor-gone | 1 | run-5 | 2 → 1 | 2 → 2 | 9/10 |');
    expect(summary).toContain('15.0 runs/min');
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="explore shared-v1beta1" tests="1" failures="1"');
    expect(junit).toContain('name="stop/suspend-after-supervisor-gone"><failure message="stop/suspend-after-supervisor-gone: 1 failing run(s); reproduced 9/10');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('nothing found: summary.md says so and junit.xml has one passing case', () => {
  const dir = mkdtempSync(join(tmpdir(), 'explore-report-'));
  try {
    writeReport({ seed: 1, runs: 30, references: 10, runsTotal: 40, searchMs: 1, totalMs: 60_000, findings: [] }, { lane: 'ha', driver: { kind: 'harness', variant: 'reference' }, seed: 1, dir });
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('No failure found.');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('tests="1" failures="0"');
    expect(existsSync(join(dir, 'stop'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder that holds no finding is refused, naming what to give', () => {
  expect(() => readFindingFile(tmpdir())).toThrow(/cannot read the finding/);
});
