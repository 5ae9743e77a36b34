import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultSchedule } from '../../faults/schedule/schedule.ts';
import type { FindingFile } from './finding-file.ts';
import { mergeReports } from './merge-reports.ts';

const item = (id: string) => ({ id, trigger: { on: 'start' as const }, fault: { kind: 'crash' as const } });
const finding = (items: string[], failingRuns: number): FindingFile => ({
  signature: 'stop/x',
  lane: 'shared-v1beta1',
  driver: { kind: 'harness', variant: 'reference' },
  seed: 1,
  program: { sandboxes: [{ name: 'xa', cleanupMs: 0, slowMainStopMs: 0 }], steps: [{ calls: [{ op: 'create', sandbox: 0 }] }, { calls: [{ op: 'stop', sandbox: 0 }] }] },
  schedule: faultSchedule(items.map(item)),
  original: { runId: 'run-1', program: { sandboxes: [], steps: [] } },
  failingRuns,
});

test('merging shards: one folder per signature, the smallest reproducer kept, every shard\'s failing runs counted', () => {
  const root = mkdtempSync(join(tmpdir(), 'explore-merge-'));
  try {
    const write = (shard: string, f: FindingFile) => {
      const dir = join(root, shard, 'shared-v1beta1', 'stop_x');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'finding.json'), JSON.stringify(f));
      writeFileSync(join(dir, 'marker'), shard);
    };
    write('shard-1', finding(['a', 'b'], 2));
    write('shard-2', finding(['b'], 3));
    const merged = mergeReports([join(root, 'shard-1'), join(root, 'shard-2')], join(root, 'out'));
    expect(merged.map((m) => [m.signature, m.failingRuns])).toEqual([['stop/x', 5]]);
    expect(readFileSync(join(root, 'out', 'shared-v1beta1', 'stop_x', 'marker'), 'utf8')).toBe('shard-2');
    expect(JSON.parse(readFileSync(join(root, 'out', 'shared-v1beta1', 'stop_x', 'finding.json'), 'utf8')).failingRuns).toBe(5);
    expect(readFileSync(join(root, 'out', 'summary.md'), 'utf8')).toContain('| shared-v1beta1 | stop/x | 5 | 1 | 2 | — | shared-v1beta1/stop_x/ |');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
