/**
 * The lane runner: for each lane, brings a cluster up, sets the lane up, writes the run value,
 * runs the scenarios in Playwright against it, writes reports/<lane>/summary.md, and tears the
 * cluster down. Ctrl-C stops Playwright, tears down whatever is up and exits 130.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { ClusterHandle, ClusterProvider, FixtureImage, ProviderOptions } from '../../cluster/cluster-provider.ts';
import type { RoleSelectors } from '../../driver/role-selectors.ts';
import type { Lane } from '../lane-declaration.ts';
import { announceDriver } from './announce-driver.ts';
import { driverReplicas } from './driver-launch.ts';
import { driverIdentityName, grantDriverAccess, revokeDriverAccess, type DriverAccess } from '../setup/driver-access.ts';
import { prepareOperatorWorkspaces } from '../setup/operator-namespaces.ts';
import { describeDriver, LANE_RUN_ENV, writeLaneRun, type DriverUnderTest } from './lane-run.ts';
import { readOutcomes, summaryTable, type Outcome } from './summary-table.ts';

/** The checkout: where Playwright, its config and the scenarios are. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** Scenarios mostly wait on the cluster, so more workers than cores pay off; --workers after -- wins. */
const LANE_WORKERS = 2;

interface LaneRunOptions {
  lanes: Lane[];
  /** The embedded cluster's Agent Sandbox controller timing (`--realism`, `--seed`); the cluster's default when absent. */
  agentSandboxRealism?: { enabled: boolean; seed?: number };
  /** The run's one seed (`--seed`, else drawn): the controller's timing (above) and every test's replica routing. */
  seed: number;
  provider: ClusterProvider;
  driver: DriverUnderTest;
  /** `--roles FILE`: replaces every lane's role selectors. */
  roles?: RoleSelectors;
  /** The fixture programs every cluster provides. */
  images: readonly FixtureImage[];
  /** Invariant IDs the summary names when a scenario fails on them. */
  invariantIds: readonly string[];
  /** reports/ by default; a folder per lane inside. */
  reportRoot: string;
  keep: boolean;
  playwrightArgs: string[];
}

/** Runs the lanes one after the other; resolves to the exit code (0 when every lane passed). */
export async function runLanes(options: LaneRunOptions): Promise<number> {
  const { provider, driver } = options;
  // Ctrl-C: stop Playwright (or a cluster coming up), tear the cluster down, leave nothing behind.
  let running: ResultPromise | undefined;
  const active = new Map<string, ClusterHandle>();
  const stopping = new AbortController();
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\n${signal}: stopping the run and tearing down ${[...active.keys()].join(', ') || 'nothing'}\n`);
      stopping.abort();
      running?.kill('SIGINT');
      void (async () => {
        await running?.catch(() => undefined);
        for (const [lane, handle] of active) await tearDown(provider, handle, providerOptions(provider, lane, options.keep)).catch(() => undefined);
        process.exit(130);
      })();
    });
  }

  const results = new Map<string, Outcome[]>();
  let failed = false;
  for (const lane of options.lanes) {
    if (interrupted) break;
    const reportDir = join(options.reportRoot, lane.name);
    const opts: ProviderOptions = {
      ...providerOptions(provider, lane.name, options.keep),
      reportDir,
      signal: stopping.signal,
      // Registered before a cluster is created, so Ctrl-C during `up` deletes it too.
      onCluster: (handle) => active.set(lane.name, handle),
    };
    rmSync(reportDir, { recursive: true, force: true });
    mkdirSync(reportDir, { recursive: true });
    opts.progress(`${releaseOf(lane)}; ${lane.description}`);
    let handle: ClusterHandle;
    try {
      handle = await provider.up({ lane: lane.name, agentSandbox: lane.agentSandbox, images: options.images, agentSandboxRealism: options.agentSandboxRealism }, opts);
    } catch (error) {
      if (interrupted) await new Promise(() => undefined); // the signal handler tears down and exits 130
      process.stderr.write(`[${lane.name}] error: could not bring up the cluster: ${(error as Error).message}\n`);
      active.delete(lane.name);
      failed = true;
      continue;
    }
    active.set(lane.name, handle);
    let driverAccess: DriverAccess | undefined;
    try {
      if (lane.operator) opts.progress(`operator: labelled workspace namespaces ${(await prepareOperatorWorkspaces(handle.kubeconfigPath, lane)).join(', ')}`);
      if (driver.kind === 'harness') {
        driverAccess = await grantLaneDriverAccess(lane, handle, opts.workDir);
        opts.progress(`driver: runs as ${driverAccess.username} (${describeRbac(driverAccess)})`);
      }
      const runPath = join(opts.workDir, 'run.json');
      opts.progress(await announceDriver(driver, lane, handle.kubeconfigPath));
      const seeded = seedUse(lane, driver, options);
      if (seeded) opts.progress(`seed ${options.seed}: ${seeded}; the same again: --seed ${options.seed}`);
      writeLaneRun(runPath, { lane: options.roles ? { ...lane, roles: options.roles } : lane, cluster: handle, driver, driverAccess, reportDir, seed: options.seed });
      opts.progress(`running scenarios (driver: ${describeDriver(driver, lane)})`);
      const workers = options.playwrightArgs.some((a) => a.startsWith('--workers') || a === '-j') ? [] : ['--workers', String(lane.workers ?? LANE_WORKERS)];
      running = execa(join(ROOT, 'node_modules/.bin/playwright'), ['test', '--project', lane.name, ...workers, ...options.playwrightArgs], {
        cwd: ROOT,
        stdio: 'inherit',
        reject: false,
        env: { [LANE_RUN_ENV]: runPath },
      });
      const result = await running;
      running = undefined;
      if (interrupted) await new Promise(() => undefined); // the signal handler tears down and exits 130
      const outcomes = readOutcomes(join(reportDir, 'results.json'), options.invariantIds);
      // A lane on another release already carries it in its name (release-axis.ts).
      const column = lane.name.endsWith(`-${lane.agentSandbox.version}`) ? lane.name : `${lane.name} (${lane.agentSandbox.version})`;
      results.set(column, outcomes);
      const cluster = `${provider.name}${handle.agentSandboxRealism ? `, ${handle.agentSandboxRealism}` : ''}`;
      const routing = driverReplicas(driver, lane) > 1 ? `; replica routing: seed ${options.seed}` : '';
      writeFileSync(join(reportDir, 'summary.md'), `### ${lane.name}: ${releaseOf(lane)} on ${cluster}; driver: ${describeDriver(driver, lane)}${routing}\n\n${summaryTable(new Map([[column, outcomes]]))}\n`);
      if (result.exitCode !== 0) {
        failed = true;
        if (provider.exportLogs) {
          opts.progress('exporting cluster logs for the failure report');
          await provider.exportLogs(handle, join(reportDir, 'cluster-logs')).catch((e: Error) => opts.progress(`could not export logs: ${e.message}`));
        }
      }
    } catch (error) {
      process.stderr.write(`[${lane.name}] error: ${(error as Error).message}\n`);
      failed = true;
    } finally {
      if (driverAccess) {
        await revokeDriverAccess(handle.kubeconfigPath, driverAccess).catch((e: Error) => opts.progress(`could not remove the driver's ServiceAccount and roles: ${e.message}`));
        rmSync(driverAccess.kubeconfigPath, { force: true });
      }
      if (options.keep && provider.name === 'embedded') {
        opts.progress(`--keep: the embedded cluster keeps running; KUBECONFIG=${handle.kubeconfigPath}; Ctrl-C to stop it`);
        await new Promise(() => undefined);
      }
      if (!interrupted) {
        await tearDown(provider, handle, opts);
        active.delete(lane.name);
      }
    }
  }

  if (results.size) {
    process.stdout.write(`\nLane x scenario (driver: ${driver.kind === 'harness' ? driver.variant : 'external'}; reports in reports/<lane>/)\n\n${summaryTable(results)}\n\n`);
  }
  return failed ? 1 : 0;
}

/** What the run's seed drives in this lane, or undefined when nothing (no realism, one replica). */
function seedUse(lane: Lane, driver: DriverUnderTest, options: LaneRunOptions): string | undefined {
  const uses = [options.agentSandboxRealism?.enabled && "the embedded controller's timing", driverReplicas(driver, lane) > 1 && 'the routing of each call to a driver replica (per test: derived from this seed, the title and the repeat index)'].filter(Boolean);
  return uses.length ? uses.join(' and ') : undefined;
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

function providerOptions(provider: ClusterProvider, lane: string, keep: boolean): ProviderOptions {
  // kind clusters outlive a run (get-or-create), so their files keep one place per lane; what
  // a run writes for an embedded or existing cluster (kubeconfigs, the driver's credentials) is
  // this run's alone, so concurrent runs on one machine cannot overwrite each other's files.
  const workDir = join(ROOT, '.cluster', provider.name, provider.name === 'kind' ? lane : `${lane}-${process.pid}`);
  mkdirSync(workDir, { recursive: true });
  return { keep, workDir, progress: (line: string) => process.stdout.write(`[${lane}] ${line}\n`) };
}

async function tearDown(provider: ClusterProvider, handle: ClusterHandle, options: ProviderOptions): Promise<void> {
  await provider.down(handle, options);
  if (provider.name !== 'kind') rmSync(options.workDir, { recursive: true, force: true });
}
