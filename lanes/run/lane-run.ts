/**
 * The one value a lane hands to Playwright: which lane, on which cluster, with which driver,
 * reporting where. The lane runner writes it as JSON and points `CONFORMANCE_RUN` at the file;
 * playwright.config.ts names the scenario project after the lane and passes it on as the
 * worker option `run`, where the fixtures read everything from it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ClusterHandle } from '../../cluster/cluster-provider.ts';
import type { DriverVariant } from '../../driver/compute-driver.ts';
import type { ProxyCertificate } from '../../faults/proxy/proxy-certificate.ts';
import type { Schedule } from '../../faults/schedule/schedule.ts';
import type { DeclaredCapabilities } from '../capabilities.ts';
import type { Lane } from '../lane-declaration.ts';
import type { DriverAccess } from '../setup/driver-access.ts';

export const LANE_RUN_ENV = 'CONFORMANCE_RUN';
/**
 * Names the bundled fixtures a lane's Playwright loads (lanes/run/fixtures-bundle.ts); set to
 * `off` before `npm run lane` to load them from source instead.
 */
export const FIXTURES_BUNDLE_ENV = 'CONFORMANCE_FIXTURES_BUNDLE';

/**
 * The driver the lane tests: the harness's own (in process or external, as the lane deploys it),
 * a driver binary the harness starts (`exec`: a shell command line, run with `--bind-socket PATH`
 * and KUBECONFIG), or one the user serves on a socket.
 */
export type DriverUnderTest = { kind: 'harness'; variant: DriverVariant } | { kind: 'exec'; command: string } | { kind: 'socket'; socket: string };

export interface LaneRun {
  lane: Lane;
  cluster: ClusterHandle;
  driver: DriverUnderTest;
  /**
   * The ServiceAccount the harness's driver runs as (the lane's rules, least privilege); absent
   * for a driver served on a socket, which brings its own credentials.
   */
  driverAccess?: DriverAccess;
  /** reports/<lane>/: html/, junit.xml, results.json, summary.md. */
  reportDir: string;
  /**
   * The run's seed (`--seed`, else drawn and printed): each test seeds its gateway's replica
   * routing with a seed derived from it and the test's identity; on the embedded cluster it is
   * also the seed of the simulated controller's timing.
   */
  seed: number;
  /** `--faults FILE`: a fault schedule every test of the lane runs (beside a scenario's own). */
  faults?: Schedule;
  /**
   * The serving certificate of the fault proxies the lane's tests start in front of the driver,
   * made once by the lane runner instead of once per worker (absent for a driver on a socket:
   * its proxy runs on its own, `faultProxyControl`).
   */
  faultProxyCertificate?: ProxyCertificate;
  /**
   * `--fault-proxy SOCKET`, with a driver served on a socket: the control socket of the fault proxy
   * (`npm run fault-proxy`) that driver reaches the cluster through; tests drive its faults there.
   */
  faultProxyControl?: string;
  /** `--scenarios DIR`: the user's own `*.spec.ts`, run as a second project of the lane (`<lane>/yours`). */
  scenariosDir?: string;
  /**
   * With `scenariosDir`: a tsconfig whose `paths` map `sandbox-conformance/fixtures` to the
   * fixtures this run loads, for Playwright to resolve the user's imports by, so that they find
   * the one instance even where the package is not installed beside them (`npx` runs it from npm's
   * cache) and never a second copy.
   */
  scenariosTsconfig?: string;
  /** What the driver declares (`conformance.yaml`, `--capabilities`); absent: everything. */
  capabilities?: DeclaredCapabilities;
  /**
   * `results`: only results.json (and the list on the terminal): a run read back by a program
   * (explore's batches), not opened by a person, skips the HTML, JUnit and blob reports.
   */
  reports?: 'full' | 'results';
}

/** What the user's scenarios import the fixtures as (the package's `exports`). */
export const FIXTURES_SPECIFIER = 'sandbox-conformance/fixtures';

/** The Playwright project that runs the user's own scenarios (`--scenarios DIR`) beside a lane's. */
export const yourScenariosProject = (lane: string) => `${lane}/yours`;

export function writeLaneRun(path: string, run: LaneRun): void {
  writeFileSync(path, `${JSON.stringify(run, null, 2)}\n`, { mode: 0o600 });
}

/** The run value named by CONFORMANCE_RUN, or undefined outside a lane (unit tests, `--list`). */
export function readLaneRun(env: NodeJS.ProcessEnv = process.env): LaneRun | undefined {
  const path = env[LANE_RUN_ENV];
  if (!path) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LaneRun;
  } catch (error) {
    throw new Error(`${LANE_RUN_ENV}=${path}: cannot read the lane run (${(error as Error).message}); scenarios run through \`npm run lane -- <lane>\`, which writes it`);
  }
}

/** How reports and the summary name the driver under test. */
export function describeDriver(driver: DriverUnderTest, lane?: Lane): string {
  if (driver.kind === 'socket') return `external at ${driver.socket}`;
  const replicas = lane?.driver.replicas ?? 1;
  if (driver.kind === 'exec') return `external: ${driver.command}${replicas > 1 ? ` (${replicas} replicas)` : ''}`;
  if (lane?.driver.deployment !== 'external') return driver.variant;
  return `${driver.variant}, ${replicas > 1 ? `${replicas} replicas as external processes` : 'as an external process'}`;
}
