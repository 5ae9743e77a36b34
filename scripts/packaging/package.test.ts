import { expect, test } from '@playwright/test';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { installOffline } from './test-kit.ts';

/**
 * Issue 24's "done when", as a driver repository meets the package: packed (`npm pack`, which
 * builds dist/), installed into an empty folder with nothing of this checkout beside it (offline,
 * from the npm cache), and run there through `npx sandbox-conformance`:
 *
 * - `run v1beta1 --driver exec='npx sandbox-conformance driver serve'` passes, with the folder's
 *   own `conformance/mine.spec.ts` (importing `sandbox-conformance/fixtures`, TypeScript, no
 *   build step) run beside the suite and reported, and `conformance.yaml` leaving `faults`
 *   undeclared: the fault scenarios are skipped, naming the capability;
 * - the same with the reference driver's suspend-first variant (stop-ordering only) fails, naming
 *   the stop/ invariants;
 * - `report merge` joins both runs' blob reports;
 * - nothing is written under node_modules.
 *
 * One pack and one install serve every check, and the two runs go side by side (the passing
 * run's long poles are the driver's own deadlines and restarts), near three minutes on 2 cores.
 */

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));

const MINE = `import { expect, test } from 'sandbox-conformance/fixtures';

test('mine: my driver stops a sandbox in order', async ({ sandboxes, driver, timeline }) => {
  const sandbox = await timeline.step('create', () => sandboxes.create({ name: 'mine', command: ['sh', '-c', 'exec sleep 100000'] }));
  expect(sandbox.phase).toBe('Ready');
  const stopped = await timeline.step('stop', () => driver.stop(sandbox.id));
  expect(stopped.phase).toBe('Stopped');
  await expect(timeline).toHold('stop/suspend-after-supervisor-gone');
});
`;

const CONFORMANCE_YAML = `driver:
  name: reference-driver
  version: 9.9.9
capabilities: [workspace-mode/shared, sandbox-api/v1beta1, replicas, restart]
`;

/** Every path under `dir` (directories too) changed after `since`, symlinks not followed. */
function changedSince(dir: string, since: number): string[] {
  const changed: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.mtimeMs > since || stat.ctimeMs > since) changed.push(path);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(dir);
  return changed;
}

interface Report {
  harness: { name: string; version: string; contract: string };
  driver: { name: string; version: string };
  capabilities: { declared: string[] | 'all'; exempt: string[] };
  result: string;
  lanes: { name: string; kubernetes: string; agentSandbox: string; scenarios: { scenario: string; result: string; reason?: string; detail?: string }[]; invariants: Record<string, { violations: number; evaluations: number }> }[];
}

test.describe.configure({ mode: 'serial' });

let work: string;
let repo: string;
let tarball: string;
let installedAt: number;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  work = mkdtempSync(join(tmpdir(), 'sandbox-conformance-package-'));
  const started = Date.now();
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: CHECKOUT, timeout: 180_000, env: { npm_config_loglevel: 'error' } });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; size: number; files: { path: string }[] }[];
  tarball = join(work, info.filename);
  const packedAt = Date.now();
  const size = `${info.filename}: ${(statSync(tarball).size / 1024).toFixed(0)} KiB, ${info.files.length} files; build and pack ${((packedAt - started) / 1000).toFixed(0)} s`;
  repo = join(work, 'driver-repository');
  mkdirSync(join(repo, 'conformance'), { recursive: true });
  await installOffline({ checkout: CHECKOUT, tarball, dir: repo, timeoutMs: 180_000 });
  process.stdout.write(`${size}; offline install ${((Date.now() - packedAt) / 1000).toFixed(0)} s\n`);
  writeFileSync(join(repo, 'conformance/mine.spec.ts'), MINE);
  writeFileSync(join(repo, 'conformance.yaml'), CONFORMANCE_YAML);
  installedAt = Date.now();
});

test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball is the package: compiled JavaScript and declarations, its run-time files, no tests, no TypeScript sources', async () => {
  const listing = await execa('tar', ['tzf', tarball], { timeout: 30_000 });
  const files = listing.stdout.split('\n').filter(Boolean);
  expect(files).toContain('package/dist/cli/sandbox-conformance.js');
  expect(files).toContain('package/dist/fixtures/conformance.d.ts');
  expect(files).toContain('package/dist/playwright.config.js');
  expect(files).toContain('package/dist/fixtures/programs/supervisor/main.cjs');
  expect(files).toContain('package/dist/driver/grpc/compute_driver.proto');
  // The driver as the harness and `sandbox-conformance driver serve` run it: one file, its .proto beside it.
  expect(files).toContain('package/dist/driver/bundle/driver.mjs');
  expect(files).toContain('package/dist/driver/bundle/compute_driver.proto');
  // The fixtures as one file, and the hook that makes the lane's Playwright processes load it.
  for (const file of ['fixtures.mjs', 'register.mjs', 'hooks.mjs']) expect(files).toContain(`package/dist/fixtures/bundle/${file}`);
  expect(files).toContain('package/action.yml');
  expect(files).toContain('package/CHANGELOG.md');
  expect(files).toContain('package/docs/ci.md'); // the pages README links to and every --help names
  expect(files.filter((f) => /\.test\.|test-kit|\/testdata\/|\/bench\/|\/reports\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  const pkg = JSON.parse(readFileSync(join(repo, 'node_modules/sandbox-conformance/package.json'), 'utf8')) as { private?: boolean };
  expect(pkg.private).toBeUndefined();
  // One copy of the runner: the package's peer, hoisted beside it, and none nested inside it.
  expect(readdirSync(join(repo, 'node_modules/@playwright'))).toEqual(['test']);
  expect(readdirSync(join(repo, 'node_modules/sandbox-conformance'))).not.toContain('node_modules');
});

/**
 * A lane's Playwright processes load the fixtures from the package's bundle (lanes/run/fixtures-bundle.ts):
 * through the hook it ships, an import of `sandbox-conformance/fixtures`, as the user's scenarios
 * write it, is the bundle itself; without the hook it is the compiled module. (The runs below
 * pass on it: its modules find the package's files, the schedule schema and the driver's .proto
 * among them, where their compiled copies are.)
 */
test('through the shipped hook, sandbox-conformance/fixtures is the fixtures bundle', async () => {
  const bundleDir = join(repo, 'node_modules/sandbox-conformance/dist/fixtures/bundle');
  const script = `const a = await import('sandbox-conformance/fixtures'); const b = await import(${JSON.stringify(pathToFileURL(join(bundleDir, 'fixtures.mjs')).href)}); console.log(JSON.stringify({ same: a === b, test: typeof a.test }));`;
  const load = (hook: string[]) => execa(process.execPath, [...hook, '--input-type=module', '-e', script], { cwd: repo, reject: false, timeout: 60_000 });
  const [hooked, plain] = await Promise.all([load(['--import', pathToFileURL(join(bundleDir, 'register.mjs')).href]), load([])]);
  expect(hooked.stderr).toBe('');
  expect(JSON.parse(hooked.stdout)).toEqual({ same: true, test: 'function' });
  expect(JSON.parse(plain.stdout)).toEqual({ same: false, test: 'function' });
});

/** `sandbox-conformance/fixtures` is typed: the user's scenario type-checks against the installed declarations alone (tsc from this checkout, as any TypeScript would do), and a wrong use does not. */
async function typeCheck(): Promise<{ good: { exitCode?: number; stdout: string }; bad: { stdout: string } }> {
  const check = join(repo, 'type-check');
  mkdirSync(join(check, 'wrong'), { recursive: true });
  // In the driver repository, outside ./conformance (which the passing run reads meanwhile).
  writeFileSync(join(check, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: [join(repo, 'conformance/mine.spec.ts')] }));
  writeFileSync(join(check, 'wrong/tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', files: ['wrong.spec.ts'] }));
  writeFileSync(join(check, 'wrong/wrong.spec.ts'), "import { test } from 'sandbox-conformance/fixtures';\ntest('w', async ({ sandboxes }) => { const n: number = (await sandboxes.create({ name: 'w', command: ['sh'] })).phase; void n; });\n");
  const tsc = join(CHECKOUT, 'node_modules/typescript/bin/tsc');
  const [good, bad] = await Promise.all([check, join(check, 'wrong')].map((dir) => execa(process.execPath, [tsc, '-p', dir], { cwd: repo, reject: false, timeout: 120_000 })));
  return { good, bad };
}

test('npx sandbox-conformance run: the suite passes with your scenario beside it, undeclared capabilities skip, suspend-first fails on stop/; nothing under node_modules', async () => {
  test.setTimeout(600_000);
  const npx = (args: string[]) => execa('npx', ['--no-install', 'sandbox-conformance', ...args], { cwd: repo, all: true, reject: false, timeout: 540_000, env: { CI: '' } });
  const started = Date.now();
  const [passing, failing, typed] = await Promise.all([
    // The command exactly as a driver repository would type it: every scenario, the driver's own defaults (its long poles:
    // supervisor-never-ready waits out its 30 s supervisor-readiness deadline twice; reconcile-converges restarts it six times through npx).
    npx(['run', 'v1beta1', '--driver', 'exec=npx sandbox-conformance driver serve', '--scenarios', './conformance']),
    npx(['run', 'v1beta1', '--driver', 'exec=npx sandbox-conformance driver serve --variant suspend-first', '--report-dir', 'suspend-first-reports', '--grep', 'stop-ordering']),
    typeCheck(),
  ]);

  process.stdout.write(`both runs side by side: ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  await test.step('the suite passes, the versions printed first', () => {
    expect(passing.exitCode, passing.all).toBe(0);
    expect(passing.all!.split('\n')[0]).toMatch(/^sandbox-conformance \d+\.\d+\.\d+: contract openshell\.compute\.v1\.ComputeDriver; Agent Sandbox releases /);
  });
  const report = parse(readFileSync(join(repo, 'conformance-reports/conformance-report.yaml'), 'utf8')) as Report;
  const [lane] = report.lanes;
  await test.step('conformance-report.yaml: harness, driver as declared, capabilities, every scenario', () => {
    expect(report.harness.name).toBe('sandbox-conformance');
    expect(report.driver).toMatchObject({ name: 'reference-driver', version: '9.9.9' });
    expect(report.capabilities.exempt).toEqual(['workspace-mode/managed', 'workspace-mode/operator', 'sandbox-api/v1alpha1', 'faults']);
    expect(report.result).toBe('passed');
    expect(lane.name).toBe('shared-v1beta1');
    expect(lane.kubernetes).toMatch(/^v1\./);
    expect(lane.scenarios.find((s) => s.scenario.includes('stop-ordering'))?.result).toBe('passed');
    expect(lane.invariants['stop/suspend-after-supervisor-gone'].violations).toBe(0);
  });
  await test.step('your conformance/mine.spec.ts ran beside the suite and is in the report', () => {
    expect(passing.all).toContain('[shared-v1beta1/yours]');
    expect(lane.scenarios.find((s) => s.scenario.startsWith('conformance/mine'))).toMatchObject({ result: 'passed' });
  });
  await test.step('the scenarios under faults are skipped, naming the undeclared capability', () => {
    const faulted = lane.scenarios.filter((s) => s.scenario.startsWith('scenarios/under-faults/'));
    expect(faulted.length).toBeGreaterThan(0);
    for (const s of faulted) {
      expect(s.result).toBe('skipped');
      expect(s.reason).toContain('capability not declared: faults');
      expect(s.reason).toContain('conformance.yaml');
    }
  });
  await test.step('sandbox-conformance/fixtures is typed: your scenario type-checks, a wrong use does not', () => {
    expect(typed.good.exitCode, typed.good.stdout).toBe(0);
    expect(typed.bad.stdout).toContain("wrong.spec.ts(2,44): error TS2322: Type 'string' is not assignable to type 'number'.");
  });
  await test.step('suspend-first fails, naming the stop/ invariants', () => {
    expect(failing.exitCode, failing.all).toBe(1);
    const failed = parse(readFileSync(join(repo, 'suspend-first-reports/conformance-report.yaml'), 'utf8')) as Report;
    expect(failed.result).toBe('failed');
    const ordering = failed.lanes[0].scenarios.find((s) => s.scenario.includes('stop-ordering'));
    expect(ordering?.result).toBe('failed');
    expect(ordering?.detail).toContain('stop/suspend-after-supervisor-gone');
    expect(failing.all).toContain('FAIL stop/suspend-after-supervisor-gone');
  });
  await test.step('report merge: both runs\' blob reports into one HTML and JUnit report and one summary', async () => {
    const merged = await npx(['report', 'merge', 'conformance-reports', 'suspend-first-reports', '--out', 'merged']);
    expect(merged.exitCode, merged.all).toBe(0);
    const junit = readFileSync(join(repo, 'merged/junit.xml'), 'utf8');
    expect(junit).toContain('mine: my driver stops a sandbox in order');
    // The suspend-first stop-ordering test: its stop call threw (a JUnit <error>) and the judgement at its end named the rules.
    expect(junit).toMatch(/<(failure|error)[^>]*>[\s\S]*FAIL stop\/suspend-after-supervisor-gone/);
    expect(statSync(join(repo, 'merged/html/index.html')).size).toBeGreaterThan(0);
    const summary = readFileSync(join(repo, 'merged/summary.md'), 'utf8');
    expect(summary).toContain('### shared-v1beta1');
    expect(summary).toContain('| scenario | conformance-reports/shared-v1beta1 | suspend-first-reports/shared-v1beta1 |');
    expect(summary).toMatch(/\| scenarios\/sandbox-lifecycle\/stop-ordering › .* \| pass \| FAIL \(stop\/supervisor-gone-before-workload-delete, stop\/suspend-after-supervisor-gone/);
  });
  await test.step('nothing was written under node_modules', () => {
    expect(changedSince(join(repo, 'node_modules'), installedAt)).toEqual([]);
  });
});
