import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FindingFile } from '../report/finding-file.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * End to end, on the embedded cluster: a fixed-seed search of `--driver suspend-first` (the
 * pre-#3424 ordering defect) finds it, shrinks it to at most 2 schedule items (it needs none) and
 * a create and a stop, writes its reproducer, and the replay command reproduces it. Kept small
 * (two fault runs, one try per candidate, one replay): each batch is a lane run of its own.
 */
test('explore finds suspend-first, shrinks it to a create and a stop under at most 2 schedule items, and replays it', async () => {
  test.setTimeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'explore-e2e-'));
  try {
    const search = await execa(process.execPath, ['--import', 'tsx', 'scripts/explore.ts', 'v1beta1', '--driver', 'suspend-first', '--runs', '2', '--seed', '1', '--tries', '1', '--replays', '1', '--workers', '2', '--report-dir', dir], { cwd: ROOT, reject: false, all: true, env: { CI: '' } });
    expect(search.exitCode, search.all).toBe(1);
    expect(search.all).toContain('explore shared-v1beta1: seed 1');
    const lane = join(dir, 'shared-v1beta1');
    const folders = readdirSync(lane).filter((f) => existsSync(join(lane, f, 'finding.json')));
    expect(folders.length).toBeGreaterThanOrEqual(1);
    const finding = JSON.parse(readFileSync(join(lane, folders[0], 'finding.json'), 'utf8')) as FindingFile;
    expect(finding.signature).toMatch(/stop\/suspend-after-supervisor-gone/);
    expect(finding.schedule.items.length).toBeLessThanOrEqual(2);
    expect(finding.program.steps.flatMap((s) => s.calls.map((c) => c.op))).toEqual(['create', 'stop']);
    expect(finding.reproduced).toEqual({ failed: 1, of: 1 });
    for (const file of ['schedule.json', 'original.json', 'program.json', 'replay.sh', 'timeline.html', 'verdicts.json', 'shrink.json']) expect(existsSync(join(lane, folders[0], file)), file).toBe(true);
    expect(readFileSync(join(lane, 'junit.xml'), 'utf8')).toContain('failures="1"');
    expect(readdirSync(lane).filter((f) => f.startsWith('.work'))).toEqual([]);

    const replay = await execa(process.execPath, ['--import', 'tsx', 'scripts/explore.ts', 'replay', join(lane, folders[0]), '--replays', '1', '--workers', '1'], { cwd: ROOT, reject: false, all: true, env: { CI: '' } });
    expect(replay.exitCode, replay.all).toBe(1);
    expect(replay.all).toContain(`reproduced 1/1: ${finding.signature}`);
    expect(existsSync(join(lane, folders[0], 'replay', 'timeline.html'))).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
