/**
 * One lane, start to end: brings its cluster up, sets the lane up (operator namespaces, the
 * driver's ServiceAccount), writes the run value, runs the scenarios in Playwright, writes
 * reports/<lane>/summary.md, and tears the cluster down. What it prints goes to a LaneOutput:
 * the terminal itself when lanes run one after the other, a buffer printed whole afterwards when
 * they run side by side (so no two lanes' output interleave); its phases go to `onState`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { execa } from 'execa';
import type { ClusterHandle, ClusterProvider, FixtureImage, ProviderOptions } from '../../cluster/cluster-provider.ts';
import type { RoleSelectors } from '../../driver/role-selectors.ts';
import { proxyCertificate } from '../../faults/proxy/proxy-certificate.ts';
import type { Schedule } from '../../faults/schedule/schedule.ts';
import type { DeclaredCapabilities } from '../capabilities.ts';
import type { Lane } from '../lane-declaration.ts';
import { announceDriver } from './announce-driver.ts';
import { fixturesBundle } from './fixtures-bundle.ts';
import { driverReplicas, testsSideBySide } from './driver-launch.ts';
import { driverIdentityName, grantDriverAccess, revokeDriverAccess, type DriverAccess } from '../setup/driver-access.ts';
import { prepareOperatorWorkspaces } from '../setup/operator-namespaces.ts';
import { describeDriver, FIXTURES_SPECIFIER, LANE_RUN_ENV, writeLaneRun, yourScenariosProject, type DriverUnderTest } from './lane-run.ts';
import { countTestLine, type LaneState } from './lane-progress.ts';
import type { RunControl } from './run-control.ts';
import { readOutcomes, summaryTable, type Outcome } from './summary-table.ts';

/**
 * Where the config and the scenarios are: the checkout (TypeScript, run through tsx), or the
 * installed package's dist/ (the same code compiled: Playwright transpiles nothing under
 * node_modules). Nothing is ever written here; reports and work files go where the options say.
 */
export const ROOT = resolve(import.meta.dirname, '../..');
/** True when this is the compiled package (dist/), not the checkout. */
export const COMPILED = import.meta.url.endsWith('.js');
/** The Playwright config beside the scenarios, given to Playwright by its absolute path. */
export const PLAYWRIGHT_CONFIG = join(ROOT, COMPILED ? 'playwright.config.js' : 'playwright.config.ts');
/**
 * Playwright's command, resolved from here: the one copy of @playwright/test the package's
 * fixtures import (in the checkout, node_modules/.bin/playwright runs the same file).
 */
export const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');

export interface LaneRunOptions {
  lanes: Lane[];
  /** The embedded cluster's Agent Sandbox controller timing (`--realism`, `--seed`); the cluster's default when absent. */
  agentSandboxRealism?: { enabled: boolean; seed?: number };
  /** The run's one seed (`--seed`, else drawn): the controller's timing (above) and every test's replica routing. */
  seed: number;
  provider: ClusterProvider;
  driver: DriverUnderTest;
  /** `--roles FILE`: replaces every lane's role selectors. */
  roles?: RoleSelectors;
  /** `--faults FILE`: the fault schedule every test runs, and the file it came from. */
  faults?: { schedule: Schedule; file: string };
  /** `--fault-proxy SOCKET`: the control socket of the fault proxy a driver on a socket reaches the cluster through. */
  faultProxyControl?: string;
  /** The fixture programs every cluster provides. */
  images: readonly FixtureImage[];
  /** Invariant IDs the summary names when a scenario fails on them. */
  invariantIds: readonly string[];
  /** reports/ by default; a folder per lane inside. */
  reportRoot: string;
  keep: boolean;
  /** Where a lane's cluster files go (kubeconfigs, the driver's credentials): `.cluster/` of the checkout, or under the report folder when installed. */
  workRoot: string;
  /** `--scenarios DIR`: the user's own scenarios, a second project of each lane. */
  scenariosDir?: string;
  /** What the driver declares it supports; absent: everything. */
  capabilities?: DeclaredCapabilities;
  /** conformance-report.yaml: the driver as declared (conformance.yaml, --driver-version). */
  conformanceReport?: { driver: { name?: string; version?: string } };
  /** `--serial`: one lane after the other, Playwright printing straight to the terminal. */
  serial?: boolean;
  /** Which reports Playwright writes (lane-run.ts `reports`); every one by default. */
  reports?: 'full' | 'results';
  playwrightArgs: string[];
}

/** Where a lane's lines go: the terminal, or a buffer replayed once the lane is done. */
export interface LaneOutput {
  out(text: string): void;
  err(text: string): void;
  /** Playwright's own output: inherited (the terminal) or captured into this output. */
  readonly capturesPlaywright: boolean;
}

export interface LaneResult {
  /** The summary table's column (`shared-v1beta1 (v0.5.0)`), with the lane's outcomes, once Playwright ran. */
  column?: string;
  outcomes?: Outcome[];
  failed: boolean;
  /** `--keep` on the embedded cluster: the cluster lives in this process until Ctrl-C. */
  keptRunning?: string;
  /** The driver by its own GetCapabilities answer, once it answered. */
  driverIdentity?: { name: string; version: string };
  /** The cluster's Kubernetes version (`/version` gitVersion), once it was up. */
  kubernetesVersion?: string;
}

/**
 * Scenarios mostly wait on the cluster (grace periods, probes), so on the embedded cluster a
 * lane runs many tests at once: up to 3 × CPUs for the machine, shared by the lanes side by side,
 * and never fewer than two per lane (Playwright starts no more workers than it has tests,
 * `fullyParallel`; each worker is a Node process of ~100-150 MiB that records, judges and, in
 * process, runs the driver, and starts on ~1.5 s of CPU). Measured on 2 CPUs, `npm run lane --
 * v1beta1` (15 tests), paired runs: 6 workers 32-39 s wall on 37-54 s of CPU, 12 workers 35-45 s
 * on 52-73 s — beyond 3 per core the workers' own start-up and cross-talk cost more than the
 * waits they overlap. Six lanes side by side: 2 per lane 158 s, 1 per lane 169 s (the `ha` lane's
 * long scenarios then queue). 16 at once in one lane once ran at load 17-19 and a stop did not
 * reach its first phase within 60 s. On kind and existing clusters the real Agent Sandbox
 * controller reconciles one Sandbox at a time up to v0.5.0 (`--sandbox-concurrent-workers` 1)
 * and the node's containers share the machine with Docker: more tests at once only queue behind
 * it and eat into their own deadlines, so two stay. `--workers` after `--` wins.
 */
export function laneWorkers(provider: ClusterProvider['name'], lanesAtOnce = 1): number {
  if (provider !== 'embedded') return 2;
  return Math.max(2, Math.floor((3 * availableParallelism()) / lanesAtOnce));
}

/** Runs one lane; `lanesAtOnce` is how many lanes run beside it, sharing the machine's workers. */
export async function runLane(lane: Lane, options: LaneRunOptions, control: RunControl, output: LaneOutput, onState: (state: LaneState) => void, lanesAtOnce = 1): Promise<LaneResult> {
  const { provider, driver } = options;
  const reportDir = join(options.reportRoot, lane.name);
  const opts: ProviderOptions = {
    ...providerOptions(provider, lane.name, options.keep, output, options.workRoot),
    reportDir,
    signal: control.stopping.signal,
    // Registered before a cluster is created, so Ctrl-C during `up` deletes it too.
    onCluster: (handle) => control.clusterUp(lane.name, handle, opts),
  };
  rmSync(reportDir, { recursive: true, force: true });
  mkdirSync(reportDir, { recursive: true });
  opts.progress(`${releaseOf(lane)}; ${lane.description}`);
  onState({ phase: 'cluster' });
  let handle: ClusterHandle;
  try {
    handle = await provider.up({ lane: lane.name, agentSandbox: lane.agentSandbox, images: options.images, agentSandboxRealism: options.agentSandboxRealism }, opts);
  } catch (error) {
    await control.haltIfInterrupted();
    output.err(`[${lane.name}] error: could not bring up the cluster: ${(error as Error).message}\n`);
    control.forgetCluster(lane.name);
    if (provider.name !== 'kind') rmSync(opts.workDir, { recursive: true, force: true });
    onState({ phase: 'failed' });
    return { failed: true };
  }
  control.clusterUp(lane.name, handle, opts);
  onState({ phase: 'setup' });
  let driverAccess: DriverAccess | undefined;
  const result: LaneResult = { failed: false };
  try {
    if (lane.operator) opts.progress(`operator: labelled workspace namespaces ${(await prepareOperatorWorkspaces(handle.kubeconfigPath, lane)).join(', ')}`);
    if (driver.kind === 'harness') {
      driverAccess = await grantLaneDriverAccess(lane, handle, opts.workDir);
      opts.progress(`driver: runs as ${driverAccess.username} (${describeRbac(driverAccess)})`);
    }
    const runPath = join(opts.workDir, 'run.json');
    const announced = await announceDriver(driver, lane, handle.kubeconfigPath);
    result.driverIdentity = { name: announced.name, version: announced.version };
    opts.progress(announced.line);
    result.kubernetesVersion = await kubernetesVersion(handle.kubeconfigPath).catch(() => undefined);
    const seeded = seedUse(lane, driver, options);
    if (seeded) opts.progress(`seed ${options.seed}: ${seeded}; the same again: --seed ${options.seed}`);
    if (options.faultProxyControl) opts.progress(`fault proxy: the driver's requests go through the proxy whose control socket is ${options.faultProxyControl}; one test at a time (its faults act on every request of the driver)`);
    if (options.faults) opts.progress(`fault schedule: ${options.faults.file} (${options.faults.schedule.items.map((i) => `${i.id}: ${i.fault.kind}`).join(', ')}), run by every test`);
    writeLaneRun(runPath, { lane: options.roles ? { ...lane, roles: options.roles } : lane, cluster: handle, driver, driverAccess, reportDir, seed: options.seed, ...(driver.kind !== 'socket' && { faultProxyCertificate: await proxyCertificate() }), ...(options.faults && { faults: options.faults.schedule }), ...(options.faultProxyControl && { faultProxyControl: options.faultProxyControl }), ...(options.scenariosDir && { scenariosDir: options.scenariosDir, scenariosTsconfig: writeScenariosTsconfig(opts.workDir) }), ...(options.capabilities && { capabilities: options.capabilities }), ...(options.reports && { reports: options.reports }) });
    opts.progress(`running scenarios (driver: ${describeDriver(driver, lane)})`);
    const tests = { passed: 0, failed: 0, skipped: 0 };
    onState({ phase: 'scenarios', tests });
    const exitCode = await runPlaywright(lane, options, runPath, control, output, lanesAtOnce, (line) => {
      if (countTestLine(line, tests)) onState({ phase: 'scenarios', tests });
    });
    await control.haltIfInterrupted();
    const outcomes = readOutcomes(join(reportDir, 'results.json'), options.invariantIds);
    // A lane on another release already carries it in its name (release-axis.ts).
    result.column = lane.name.endsWith(`-${lane.agentSandbox.version}`) ? lane.name : `${lane.name} (${lane.agentSandbox.version})`;
    result.outcomes = outcomes;
    const routing = driverReplicas(driver, lane) > 1 ? `; replica routing: seed ${options.seed}` : '';
    const cluster = `${provider.name}${handle.agentSandboxRealism ? `, ${handle.agentSandboxRealism}` : ''}`;
    writeFileSync(join(reportDir, 'summary.md'), `### ${lane.name}: ${releaseOf(lane)} on ${cluster}; driver: ${describeDriver(driver, lane)}${routing}\n\n${summaryTable(new Map([[result.column, outcomes]]))}\n`);
    if (exitCode !== 0) {
      result.failed = true;
      if (provider.exportLogs) {
        opts.progress('exporting cluster logs for the failure report');
        await provider.exportLogs(handle, join(reportDir, 'cluster-logs')).catch((e: Error) => opts.progress(`could not export logs: ${e.message}`));
      }
    }
  } catch (error) {
    await control.haltIfInterrupted();
    output.err(`[${lane.name}] error: ${(error as Error).message}\n`);
    result.failed = true;
  } finally {
    await control.haltIfInterrupted();
    onState({ phase: 'teardown' });
    if (driverAccess) {
      await revokeDriverAccess(handle.kubeconfigPath, driverAccess).catch((e: Error) => opts.progress(`could not remove the driver's ServiceAccount and roles: ${e.message}`));
      rmSync(driverAccess.kubeconfigPath, { force: true });
    }
    if (options.keep && provider.name === 'embedded') result.keptRunning = `${lane.name}: KUBECONFIG=${handle.kubeconfigPath}`;
    else await control.clusterDown(lane.name);
  }
  onState({ phase: result.failed ? 'failed' : 'passed' });
  return result;
}

/** Playwright on the lane's project; resolves to its exit code. Every line it prints also goes to `onLine`. */
async function runPlaywright(lane: Lane, options: LaneRunOptions, runPath: string, control: RunControl, output: LaneOutput, lanesAtOnce: number, onLine: (line: string) => void): Promise<number> {
  const count = testsSideBySide(options.driver, lane) ? laneWorkers(options.provider.name, lanesAtOnce) : 1;
  const workers = options.playwrightArgs.some((a) => a.startsWith('--workers') || a === '-j') ? [] : ['--workers', String(count)];
  const bundle = await fixturesBundle().catch((error: Error) => {
    output.err(`[${lane.name}] fixtures load from source: bundling them failed (${error.message})\n`);
    return undefined;
  });
  const projects = ['--project', lane.name, ...(options.scenariosDir ? ['--project', yourScenariosProject(lane.name)] : [])];
  const child = execa(process.execPath, [PLAYWRIGHT_CLI, 'test', '--config', PLAYWRIGHT_CONFIG, ...projects, ...workers, ...options.playwrightArgs], {
    cwd: COMPILED ? process.cwd() : ROOT,
    stdio: output.capturesPlaywright ? 'pipe' : 'inherit',
    reject: false,
    env: { [LANE_RUN_ENV]: runPath, ...bundle?.env },
  });
  if (output.capturesPlaywright) {
    for (const [stream, write] of [
      [child.stdout, (t: string) => output.out(t)],
      [child.stderr, (t: string) => output.err(t)],
    ] as const) {
      let partial = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        write(chunk);
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) onLine(line);
      });
    }
  }
  const result = await control.child(child);
  return result.exitCode ?? 1;
}

/** `Agent Sandbox v0.5.0 (Sandbox API v1beta1)`: what every report names the lane's release by. */
function releaseOf(lane: Lane): string {
  return `Agent Sandbox ${lane.agentSandbox.version} (Sandbox API ${lane.agentSandbox.apiVersion})`;
}

/** The lane's driver identity: a ServiceAccount in the driver's namespace with the lane's rules (Role in the sandbox namespace in shared mode). */
function grantLaneDriverAccess(lane: Lane, handle: ClusterHandle, dir: string): Promise<DriverAccess> {
  const { namespace } = lane.driver.settings;
  return grantDriverAccess(handle.kubeconfigPath, { name: driverIdentityName(lane.name), namespace, roleNamespace: lane.driver.workspaceMode === 'shared' ? namespace : undefined, rbac: lane.driver.rbac, dir });
}

function describeRbac(access: DriverAccess): string {
  const kinds = [access.rbac.role.length ? `Role in ${access.roleNamespace}` : '', access.rbac.clusterRole.length ? 'ClusterRole' : ''].filter(Boolean);
  return `${kinds.join(' + ')}, the lane's rules`;
}

function providerOptions(provider: ClusterProvider, lane: string, keep: boolean, output: LaneOutput, workRoot: string): ProviderOptions {
  // kind clusters outlive a run (get-or-create), so their files keep one place per lane; what
  // a run writes for an embedded or existing cluster (kubeconfigs, the driver's credentials) is
  // this run's alone, so concurrent runs on one machine cannot overwrite each other's files.
  const workDir = join(workRoot, provider.name, provider.name === 'kind' ? lane : `${lane}-${process.pid}`);
  mkdirSync(workDir, { recursive: true });
  return { keep, workDir, progress: (line: string) => output.out(`[${lane}] ${line}\n`) };
}

/** The tsconfig Playwright resolves the user's scenarios' imports by: `sandbox-conformance/fixtures` is this run's fixtures module. */
function writeScenariosTsconfig(dir: string): string {
  const path = join(dir, 'scenarios.tsconfig.json');
  const fixtures = join(ROOT, 'fixtures', COMPILED ? 'conformance.js' : 'conformance.ts');
  writeFileSync(path, `${JSON.stringify({ compilerOptions: { paths: { [FIXTURES_SPECIFIER]: [fixtures] } } }, null, 2)}\n`);
  return path;
}

/** The cluster's `/version` gitVersion, within 10 s. */
async function kubernetesVersion(kubeconfigPath: string): Promise<string> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const version = await Promise.race([
    kc.makeApiClient(k8s.VersionApi).getCode(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no /version answer within 10 s')), 10_000).unref()),
  ]);
  return version.gitVersion;
}

/** What the run's seed drives in this lane, or undefined when nothing (no realism, one replica). */
function seedUse(lane: Lane, driver: DriverUnderTest, options: LaneRunOptions): string | undefined {
  const uses = [options.agentSandboxRealism?.enabled && "the embedded controller's timing", driverReplicas(driver, lane) > 1 && 'the routing of each call to a driver replica (per test: derived from this seed, the title and the repeat index)'].filter(Boolean);
  return uses.length ? uses.join(' and ') : undefined;
}
