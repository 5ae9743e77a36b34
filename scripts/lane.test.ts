import { expect, test } from '@playwright/test';
import { execa } from 'execa';
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INVARIANTS } from '../timeline/evaluate/registry.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function lane(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', ...args], { cwd: ROOT, reject: false, all: true, env: { CI: '', ...env } });
}

test.describe('bad input: a clear message and a non-zero exit', () => {
  // Each test starts the lane command several times (~3 CPU-s each through tsx): on a loaded
  // machine that outgrew the default 60 s. A deadline, not a speed check.
  test.describe.configure({ timeout: 180_000 });
  test('unknown lane', async () => {
    const run = await lane(['nope']);
    expect(run.exitCode).toBe(2);
    expect(run.all).toContain('unknown lane "nope"; lanes: shared-v1alpha1 (v1alpha1), shared-v1beta1 (v1beta1), managed, operator, external, ha');
  });

  test('unknown driver', async () => {
    const run = await lane(['v1beta1', '--driver', 'bogus']);
    expect(run.exitCode).toBe(2);
    expect(run.all).toContain('unknown driver "bogus"; choose reference, suspend-first, headroom-deadline, stale-supervisor-read, watch-trusting-wait, resume-skips-wait, conflict-as-success, expired-watch-as-gone, error-as-gone, stale-start-read, exec=<command> or external=<socket>');
  });

  test('a fault schedule that is not one, or needs the embedded cluster on another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lane-faults-'));
    try {
      const bad = join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ apiVersion: 'sandbox-conformance.io/v1alpha1', kind: 'FaultSchedule', items: [{ id: 'x', trigger: { on: 'start' }, fault: { kind: 'meteor' } }] }));
      const invalid = await lane(['v1beta1', '--faults', bad]);
      expect(invalid.exitCode).toBe(2);
      expect(invalid.all).toContain(`${bad}: not a valid fault schedule:\n  - items[0] (id "x").fault.kind: unknown fault kind "meteor"`);
      const embeddedOnly = join(dir, 'embedded.json');
      writeFileSync(embeddedOnly, JSON.stringify({ apiVersion: 'sandbox-conformance.io/v1alpha1', kind: 'FaultSchedule', items: [{ id: 'lag', trigger: { on: 'start' }, fault: { kind: 'controller-cache-lag', ms: 100 } }] }));
      const onExisting = await lane(['v1beta1', '--faults', embeddedOnly, '--cluster', 'existing'], { KUBECONFIG: join(dir, 'no-such-kubeconfig') });
      expect(onExisting.exitCode).toBe(2);
      expect(onExisting.all).toContain(`${embeddedOnly}: item "lag" (controller-cache-lag) needs the embedded cluster's own fault hooks, and this run is on existing`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an exec driver without a command, and a roles file that is not one', async () => {
    const empty = await lane(['external', '--driver', 'exec=']);
    expect(empty.exitCode).toBe(2);
    expect(empty.all).toContain("--driver exec= needs a command, e.g. --driver exec='npm run -s driver -- serve'");
    const missing = join(tmpdir(), `no-roles-${process.pid}.yaml`);
    const roles = await lane(['external', '--roles', missing]);
    expect(roles.exitCode).toBe(2);
    expect(roles.all).toContain(`--roles ${missing}: cannot read it (ENOENT)`);
  });

  test('an Agent Sandbox release that cannot run the lane, or is unknown', async () => {
    const wrongApi = await lane(['v1beta1', '--agent-sandbox', 'v0.4.6']);
    expect(wrongApi.exitCode).toBe(2);
    expect(wrongApi.all).toContain(
      'Agent Sandbox v0.4.6 cannot run lane shared-v1beta1: the lane tests the v1beta1 Sandbox API, and with v0.4.6 the driver uses v1alpha1. Lane shared-v1beta1 runs on v0.5.0 or v0.5.4; v0.4.6 runs the lanes shared-v1alpha1.',
    );
    const converted = await lane(['v1alpha1', '--agent-sandbox', 'v0.5.4']);
    expect(converted.exitCode).toBe(2);
    expect(converted.all).toContain('Agent Sandbox v0.5.4 cannot run lane shared-v1alpha1: the lane tests the v1alpha1 Sandbox API, and with v0.5.4 the driver uses v1beta1. Lane shared-v1alpha1 runs on v0.4.6;');
    const unknown = await lane(['v1beta1', '--agent-sandbox', 'v0.9.9']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.all).toContain('unknown Agent Sandbox version "v0.9.9"; known: v0.4.6, v0.5.0, v0.5.4');
  });

  test('--reports: a value it does not know', async () => {
    const run = await lane(['v1beta1', '--reports', 'html']);
    expect(run.exitCode).toBe(2);
    expect(run.all).toContain('--reports must be full or results, got "html"');
  });

  test('--realism and --seed: bad values, and a cluster that runs the real controller', async () => {
    expect((await lane(['v1beta1', '--realism', 'maybe'])).all).toContain('--realism must be "on" or "off", got "maybe"');
    expect((await lane(['v1beta1', '--seed', '1.5'])).all).toContain('--seed must be a whole number >= 0, got "1.5"');
    expect((await lane(['v1beta1', '--realism', 'off', '--seed', '7'])).all).toContain('with --realism off and no such lane there is nothing to seed');
    const existing = await lane(['v1beta1', '--cluster', 'existing', '--seed', '7']);
    expect(existing.exitCode).toBe(2);
    expect(existing.all).toContain(
      "--realism and --seed set the timing of the embedded cluster's simulated Agent Sandbox controller; the existing cluster runs the real controller (choose --cluster embedded; --seed seeds only the replica routing there, for lanes with driver replicas such as ha)",
    );
  });

  test('--seed on a cluster with the real controller is taken for a lane with replicas: it seeds the routing alone', async () => {
    // Past the seed check, the lane stops at the missing kubeconfig: the seed was accepted.
    const kubeconfig = join(tmpdir(), `does-not-exist-${process.pid}`, 'kubeconfig');
    const run = await lane(['ha', '--cluster', 'existing', '--seed', '7'], { KUBECONFIG: kubeconfig });
    expect(run.all).not.toContain('--realism and --seed');
    expect(run.all).toContain(`kubeconfig ${kubeconfig} does not exist`);
    const realism = await lane(['ha', '--cluster', 'existing', '--realism', 'on', '--seed', '7'], { KUBECONFIG: kubeconfig });
    expect(realism.exitCode).toBe(2);
    expect(realism.all).toContain('the existing cluster runs the real controller (choose --cluster embedded)');
  });

  test('--fault-proxy: only for a driver on a socket, and a control socket nobody serves', async () => {
    const withHarness = await lane(['v1beta1', '--fault-proxy', join(tmpdir(), 'x.sock')]);
    expect(withHarness.exitCode).toBe(2);
    expect(withHarness.all).toContain('--fault-proxy is for a driver you serve yourself (--driver external=<socket>)');
    // Something listens where the driver should (the lane only checks that), nothing where the proxy should.
    const dir = mkdtempSync(join(tmpdir(), 'lane-fault-proxy-'));
    const driver = createServer().listen(join(dir, 'driver.sock'));
    try {
      const control = join(dir, 'control.sock');
      const run = await lane(['v1beta1', '--driver', `external=${join(dir, 'driver.sock')}`, '--fault-proxy', control]);
      expect(run.exitCode).toBe(2);
      expect(run.all).toContain(`--fault-proxy ${control}: no fault proxy answers there`);
      expect(run.all).toContain(`start one with \`npm run fault-proxy -- --control ${control} --write-kubeconfig FILE\``);
    } finally {
      driver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a driver socket nobody listens on', async () => {
    const socket = join(tmpdir(), `nobody-listens-here-${process.pid}.sock`);
    const run = await lane(['v1beta1', '--driver', `external=${socket}`]);
    expect(run.exitCode).toBe(2);
    expect(run.all).toContain(`no compute driver is listening on ${socket}`);
  });

  test('--cluster kind without the kind CLI (or docker, or kubectl)', async () => {
    // A PATH with node alone, wherever kind, docker and kubectl live on this machine.
    const bin = test.info().outputPath('bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const run = await lane(['v1beta1', '--cluster', 'kind'], { PATH: bin, KUBECTL: '' });
    expect(run.exitCode).not.toBe(0);
    expect(run.all).toContain('the kind CLI was not found on PATH');
    expect(run.all).toContain('the kubectl CLI was not found on PATH');
  });

  test('a kubeconfig that does not exist', async () => {
    const kubeconfig = join(tmpdir(), `does-not-exist-${process.pid}`, 'kubeconfig');
    const run = await lane(['v1beta1', '--cluster', 'existing'], { KUBECONFIG: kubeconfig });
    expect(run.exitCode).not.toBe(0);
    expect(run.all).toContain(`kubeconfig ${kubeconfig} does not exist`);
  });

  test('a kubeconfig that points nowhere', async () => {
    const kubeconfig = test.info().outputPath('nowhere.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    const run = await lane(['v1beta1', '--cluster', 'existing'], { KUBECONFIG: kubeconfig });
    expect(run.exitCode).not.toBe(0);
    expect(run.all).toMatch(/unreachable/);
  });
});

test('--list needs no cluster: lanes, the scenarios as Playwright lists them, and the registered invariants', async () => {
  const run = await lane(['--list']);
  expect(run.exitCode, run.all).toBe(0);
  expect(run.stdout).toContain('shared-v1beta1   Agent Sandbox v0.5.0 (v1beta1), driver shared mode in-process; alias v1beta1');
  expect(run.stdout).toContain('ha               Agent Sandbox v0.5.0 (v1beta1), driver shared mode external x2 replicas');
  expect(run.stdout).toMatch(/Scenarios \(each runs in every lane\)\n  scenarios\/sandbox-lifecycle\/\S+\.spec\.ts:\d+:\d+ › /);
  expect(run.stdout).toContain('stop-ordering.spec.ts');
  const invariants = run.stdout.slice(run.stdout.indexOf('\nInvariants\n'));
  expect([...invariants.matchAll(/^ {2}(\S+\/\S+)$/gm)].map((m) => m[1]), 'every registered invariant, in order').toEqual(INVARIANTS.map((i) => i.id));
});

test('Ctrl-C in the middle of a lane leaves no process behind', async () => {
  test.setTimeout(300_000);
  const { result } = await interruptedLane(['v1beta1']);
  expect(result.all).toContain('SIGINT: stopping the run and tearing down shared-v1beta1');
});

/**
 * Starts `npm run lane` with `args` on the embedded cluster, lets its scenarios get going (the
 * runner's own containers running), sends the runner SIGINT and checks that it exits 130 and that
 * every process it started has ended. Only the runner's own process tree is judged: other tests
 * of this run start embedded nodes of their own beside it. Whatever happens, the runner does not
 * outlive the test.
 */
async function interruptedLane(args: string[], ready: (output: string) => boolean = () => true) {
  const reports = test.info().outputPath('reports');
  const child = execa(process.execPath, ['--import', 'tsx', 'scripts/lane.ts', ...args, '--cluster', 'embedded', '--report-dir', reports], { cwd: ROOT, reject: false, all: true, env: { CI: '' } });
  let output = '';
  child.all?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await expect.poll(() => ready(output) && descendants(child.pid!).filter(isContainer).length > 0, { timeout: 180_000, message: 'the lanes\' scenarios under way, a container running' }).toBe(true);
    const tree = [{ pid: child.pid!, ppid: process.pid, args: 'the lane runner' }, ...descendants(child.pid!)];
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode, result.all).toBe(130);
    const pids = new Set(tree.map((p) => p.pid));
    await expect.poll(() => processes().filter((p) => pids.has(p.pid) || (isContainer(p) && pids.has(p.ppid))).map((p) => `${p.pid} ${p.ppid} ${p.args}`), { timeout: 20_000, message: 'every process the lane started has ended' }).toEqual([]);
    return { result, tree };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      await Promise.race([child, new Promise((r) => setTimeout(r, 60_000))]);
      child.kill('SIGKILL');
    }
  }
}

type Process = { pid: number; ppid: number; args: string };

function processes(): Process[] {
  return execSync('ps -eo pid=,ppid=,args=').toString().split('\n').flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    return m ? [{ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }] : [];
  });
}

/** The processes under `root` (not itself), children before grandchildren. */
function descendants(root: number): Process[] {
  const all = processes();
  const found: Process[] = [];
  for (let parents = new Set([root]); parents.size; ) {
    const children = all.filter((p) => parents.has(p.ppid));
    found.push(...children);
    parents = new Set(children.map((p) => p.pid));
  }
  return found;
}

/** Container processes of the embedded node run the fixture programs from this checkout. */
function isContainer(p: Process): boolean {
  return p.args.includes(`${ROOT}fixtures/programs/`);
}

test('Ctrl-C while lanes run side by side leaves no process, cluster or work folder behind', async () => {
  test.setTimeout(360_000);
  // Not on a terminal, each lane's state changes are lines: wait until both lanes run scenarios.
  const { result, tree } = await interruptedLane(['v1beta1', 'managed'], (output) => ['shared-v1beta1', 'managed'].every((l) => output.includes(`[${l}] running scenarios`)));
  expect(result.all).toMatch(/SIGINT: stopping the run and tearing down (shared-v1beta1, managed|managed, shared-v1beta1)/);
  // Each lane's work folder (kubeconfigs, the driver's credentials) is `.cluster/embedded/<lane>-<runner pid>`.
  const left = existsSync(join(ROOT, '.cluster/embedded')) ? readdirSync(join(ROOT, '.cluster/embedded')).filter((d) => tree.some((p) => d.endsWith(`-${p.pid}`))) : [];
  expect(left).toEqual([]);
});
