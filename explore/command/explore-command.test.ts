import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { holdsFinding, parseExploreArguments } from './explore-command.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the arguments: a lane, --runs or --budget, the seed, the driver, tries, replays', () => {
  expect(parseExploreArguments(['v1beta1'])).toMatchObject({ kind: 'search', lane: { name: 'shared-v1beta1' }, runs: 30, tries: 3, replays: 10, shrink: true, driver: { kind: 'harness', variant: 'reference' } });
  expect(parseExploreArguments(['ha', '--budget', '10m', '--seed', '7', '--driver', 'suspend-first', '--tries', '1', '--no-shrink'])).toMatchObject({ lane: { name: 'ha' }, runs: undefined, budgetMs: 600_000, seed: 7, tries: 1, shrink: false, driver: { variant: 'suspend-first' } });
  expect(parseExploreArguments(['--help'])).toEqual({ kind: 'help' });
  expect(parseExploreArguments(['v1beta1', '--shard', '2/3'])).toMatchObject({ shard: { index: 1, count: 3 } });
  expect(parseExploreArguments(['v1beta1', '--replays', '0'])).toMatchObject({ replays: 0 });
  expect(parseExploreArguments(['merge', 'out', 'a', 'b'])).toMatchObject({ kind: 'merge', inputs: [expect.stringMatching(/a$/), expect.stringMatching(/b$/)] });
});

test('bad input is refused before anything starts, naming what is wrong', () => {
  const refused = (args: string[]) => {
    try {
      parseExploreArguments(args);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  expect(refused([])).toContain('name a lane');
  expect(refused(['nosuchlane'])).toMatch(/nosuchlane/);
  expect(refused(['v1beta1', 'ha'])).toBe('one lane at a time, got v1beta1, ha');
  expect(refused(['v1beta1', '--runs', '0'])).toBe('--runs must be a whole number >= 1, got "0"');
  expect(refused(['v1beta1', '--runs', '3', '--budget', '1m'])).toBe('--runs and --budget: choose one');
  expect(refused(['v1beta1', '--budget', 'soon'])).toBe('--budget must be a duration like 90s, 10m or 1h, got "soon"');
  expect(refused(['v1beta1', '--driver', 'nope'])).toMatch(/^unknown driver "nope"/);
  expect(refused(['v1beta1', '--driver', 'external=/tmp/s.sock'])).toMatch(/cannot be crashed or put behind the fault proxy/);
  expect(refused(['v1beta1', '--frobnicate'])).toMatch(/frobnicate/);
  expect(refused(['replay'])).toMatch(/replay takes one folder/);
  expect(refused(['replay', 'reports/explore/x', '--replays', '0'])).toBe('--replays must be a whole number >= 1, got "0"');
  expect(refused(['v1beta1', '--shard', '4/3'])).toBe('--shard must be I/N with 1 <= I <= N, got "4/3"');
  expect(refused(['v1beta1', '--shard', 'half'])).toBe('--shard must be I/N with 1 <= I <= N, got "half"');
  expect(refused(['merge', 'out'])).toMatch(/merge takes the folder to write/);
  expect(holdsFinding(tmpdir())).toBe(false);
});

test('the command exits 2 on bad input and leaves nothing behind', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'explore-bad-'));
  try {
    const result = await execa(process.execPath, ['--import', 'tsx', 'scripts/explore.ts', 'v1beta1', '--runs', 'many', '--report-dir', join(dir, 'reports')], { cwd: ROOT, reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('error: --runs must be a whole number >= 1, got "many"');
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
