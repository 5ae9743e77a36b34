import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { commandBundle } from '../lanes/run/command-bundle.ts';

const MAIN = fileURLToPath(new URL('./sandbox-conformance.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** tsx by its own location: the commands run from folders outside the checkout too. */
const TSX = import.meta.resolve('tsx');

/**
 * The command as a user runs it, in its own process: from its bundle (lanes/run/command-bundle.ts,
 * as `npm run lane` runs; ~0.3 CPU-s to start where through tsx each took ~2.5), through tsx when
 * bundles are off; compiled, in the package: scripts/packaging/.
 */
let main: Promise<string[]> | undefined;
async function command(args: string[], cwd = ROOT, env: Record<string, string> = {}) {
  main ??= commandBundle(MAIN, ['cli']).then((bundle) => (bundle ? [bundle] : ['--import', TSX, MAIN]));
  return execa(process.execPath, [...(await main), ...args], { cwd, reject: false, timeout: 60_000, env: { CONFORMANCE_RUN: '', ...env } });
}

test('--help at every level: what it does, exit 0', async () => {
  const helps = await Promise.all([[], ['run'], ['cluster'], ['report'], ['init'], ['driver']].map((c) => command([...c, '--help'])));
  // Each help is the first thing its command does: none of them loads the lanes' graph but run's.
  for (const [i, run] of helps.entries()) {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout, `help ${i}`).toMatch(/Usage:/);
  }
  expect(helps[0].stdout).toContain('run <lane>...');
  expect(helps[1].stdout).toContain('Usage: sandbox-conformance run <lane>...');
  expect(helps[1].stdout).toContain('--scenarios DIR');
  expect(helps[1].stdout).toContain('--capabilities LIST');
  expect(helps[1].stdout).toContain('default: ./conformance-reports/');
  expect(helps[2].stdout).toContain('sandbox-conformance cluster up <lane>');
  expect(helps[3].stdout).toContain('report merge DIR...');
  expect(helps[4].stdout).toContain('conformance/example.spec.ts');
  expect(helps[5].stdout).toContain('sandbox-conformance driver serve --bind-socket PATH');
  expect(helps[5].stdout).not.toContain('npm run');
});

test('bad usage: a message naming the input, a pointer to the help, exit 2, nothing started', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'sc-cli-'));
  try {
    // One process per command room; the checks of each option's values are unit tests (lanes/capabilities.test.ts, scripts/lane.test.ts).
    const cases: [string[], RegExp][] = [
      [[], /Usage: sandbox-conformance <command>/],
      [['bogus'], /unknown command "bogus"/],
      [['run'], /name a lane \(or --all\)[\s\S]*sandbox-conformance run --help/],
      [['run', 'v1beta1', '--capabilities', 'faults,teleport'], /--capabilities: unknown capability "teleport"; known: workspace-mode\/shared/],
      [['run', 'v1beta1', '--scenarios', join(empty, 'nowhere')], /--scenarios .*nowhere: no such folder/],
      [['cluster', 'up'], /cluster up: name one lane/],
      [['report', 'merge', empty], /no blob report/],
      [['init', '--bogus'], /Unknown option '--bogus'/],
    ];
    const runs = await Promise.all(cases.map(([args]) => command(args, empty)));
    for (const [i, run] of runs.entries()) {
      expect(run.exitCode, `${cases[i][0].join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr, cases[i][0].join(' ')).toMatch(cases[i][1]);
    }
    // Nothing was started or written: no report folder, no cluster files.
    expect(existsSync(join(empty, 'conformance-reports'))).toBe(false);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('version: the package, the contract, the Agent Sandbox releases', async () => {
  const run = await command(['version']);
  expect(run.exitCode).toBe(0);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(run.stdout).toContain(`sandbox-conformance ${pkg.version}`);
  expect(run.stdout).toContain('contract: openshell.compute.v1.ComputeDriver');
  expect(run.stdout).toMatch(/Agent Sandbox releases: v0\.4\.6, v0\.5\.0/);
});

test('init writes the workflow, conformance.yaml and an example scenario, and leaves existing files alone', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'sc-init-'));
  try {
    mkdirSync(join(repo, 'conformance'));
    writeFileSync(join(repo, 'conformance/example.spec.ts'), '// mine\n');
    const run = await command(['init', '--driver', './bin/d serve'], repo);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('wrote .github/workflows/conformance.yml');
    expect(run.stdout).toContain('kept conformance/example.spec.ts (exists; --force overwrites)');
    expect(readFileSync(join(repo, 'conformance/example.spec.ts'), 'utf8')).toBe('// mine\n');
    const workflow = parse(readFileSync(join(repo, '.github/workflows/conformance.yml'), 'utf8')) as { jobs: { conformance: { steps: { with?: Record<string, string> }[] } } };
    expect(workflow.jobs.conformance.steps.find((s) => s.with?.driver)?.with?.driver).toBe('./bin/d serve');
    const declared = parse(readFileSync(join(repo, 'conformance.yaml'), 'utf8')) as { capabilities: string[] };
    expect(declared.capabilities).toContain('sandbox-api/v1beta1');
    const forced = await command(['init', '--force'], repo);
    expect(forced.stdout).toContain('wrote conformance/example.spec.ts');
    expect(readFileSync(join(repo, 'conformance/example.spec.ts'), 'utf8')).toContain("from 'sandbox-conformance/fixtures'");
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('cluster down deletes the lane\'s kind cluster, with the kubeconfig run keeps under the report folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-down-'));
  try {
    // A kind stand-in first on PATH that records how it was called (no Docker here).
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin/kind'), `#!/bin/sh\necho "$@" >> "${join(dir, 'kind-calls')}"\n`, { mode: 0o755 });
    const run = await command(['cluster', 'down', 'v1beta1', '--report-dir', join(dir, 'reports')], dir, { PATH: `${join(dir, 'bin')}:${process.env.PATH}` });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('kind: deleting cluster sandbox-conformance-shared-v1beta1');
    expect(readFileSync(join(dir, 'kind-calls'), 'utf8').trim()).toBe(`delete cluster --name sandbox-conformance-shared-v1beta1 --kubeconfig ${join(dir, 'reports/.cluster/kind/shared-v1beta1/sandbox-conformance-shared-v1beta1.kubeconfig')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
