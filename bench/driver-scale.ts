/**
 * `npm run bench -- driver-scale`: the reference driver's memory and wall time with many
 * sandboxes at once. It is a measurement, not a test: a missed target is printed as MISSED and
 * the exit code stays 0.
 *
 *   The embedded cluster (Agent Sandbox v0.5.0, fixture images) runs in this process; the
 *   reference driver runs as an external process (driver/launch/, the `external` lane's way),
 *   acting as a least-privilege ServiceAccount with the shared mode's rules (lanes/driver-rbac.ts),
 *   so a permission the driver lacks fails here as it would in a lane; the gateway
 *   (driver/gateway/) in this process is its client. Each round takes N sandboxes through
 *   create → stop → start → delete, all N at once; the driver process's RSS (VmRSS from
 *   /proc/<pid>/status) is sampled throughout and once more after the round, when it has been
 *   idle a while (V8 shrinks its heap only once allocation stops).
 *
 * RSS does not depend on how busy the machine is; the wall time does.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import type { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { Gateway } from '../driver/gateway/gateway.ts';
import { ExternalDriverProcess, harnessDriverCommand } from '../driver/launch/external-driver-process.ts';
import { ownCpuMs } from '../fixtures/reporters/process-tree-cpu.ts';
import { DRIVER_RBAC } from '../lanes/driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from '../lanes/driver-settings.ts';
import { grantDriverAccess } from '../lanes/setup/driver-access.ts';
import { busyWarning, fmt, progressLog, reportBenchmark, startBenchCluster, type BenchOptions, type Row } from './common.ts';
import type { Measurement } from './figures-table.ts';

export const DRIVER_SCALE_TARGETS = {
  /** Peak driver RSS in any round, at the full size. */
  peakRssMiB: 200,
  /** Wall time of one round, at the full size. */
  roundSeconds: 60,
  /** Idle RSS after the last round minus idle RSS after the first. */
  growthMiB: 16,
  failures: 0,
};

export interface DriverScaleOptions {
  /** Sandboxes per round, all at once. */
  sandboxes: number;
  rounds: number;
  /** How long the driver is left idle after a round before its RSS is read. */
  idleMs: number;
  progress?: (line: string) => void;
}

export interface DriverScaleRound {
  round: number;
  wallMs: number;
  /** CPU time (user + system) the driver process spent in the round; undefined without /proc. */
  driverCpuMs?: number;
  peakRssBytes: number;
  /** After the round, once the driver has been idle `idleMs`. */
  idleRssBytes: number;
  failures: number;
  /** The distinct failure messages (sandbox names blanked), at most three. */
  failureMessages: string[];
}

export interface DriverScaleFigures {
  sandboxes: number;
  idleMs: number;
  /** The driver's RSS once it served, before any sandbox. */
  startRssBytes: number;
  rounds: DriverScaleRound[];
  /** Idle RSS after the last round minus after the first. */
  growthBytes: number;
}

export const DRIVER_SCALE_FULL: DriverScaleOptions = { sandboxes: 100, rounds: 3, idleMs: 15_000 };
export const DRIVER_SCALE_QUICK: DriverScaleOptions = { sandboxes: 10, rounds: 2, idleMs: 3_000 };

/** A main command that ends at once on SIGTERM, so a round measures the driver, not grace periods. */
const MAIN = ['sh', '-c', 'exec sleep 100000'];
const SAMPLE_EVERY_MS = 200;
/**
 * The lanes' settings with OpenShell's API headroom (30 s) instead of the lanes' 5 s: with a
 * hundred sandboxes at once on a busy machine, a transition's conflict re-reads (the controller
 * writes each Sandbox's status meanwhile) can take longer than 5 s, and a round would then
 * measure failures instead of the driver's memory.
 */
const DRIVER_SETTINGS = { ...HARNESS_DRIVER_SETTINGS, apiHeadroomSeconds: 30 };
/** Each lifecycle call's deadline, counted from the start of its round. */
const ROUND_DEADLINE_MS = 300_000;

/** VmRSS of a process in bytes (Linux /proc; `ps` elsewhere). */
export async function residentBytes(pid: number): Promise<number> {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // no /proc: ask ps
  }
  const { stdout } = await execa('ps', ['-o', 'rss=', '-p', String(pid)]);
  return Number(stdout.trim()) * 1024;
}

/** Samples a process's RSS until stopped; `peak` is the highest seen. */
function sampleRss(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await residentBytes(pid).catch(() => 0));
      await sleep(SAMPLE_EVERY_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return Math.max(peak, await residentBytes(pid).catch(() => 0));
    },
  };
}

function distinctMessages(reasons: unknown[]): string[] {
  const messages = reasons.map((r) => String((r as Error)?.message ?? r).replace(/scale-\d+-\d+/g, 'scale-…').slice(0, 160));
  return [...new Set(messages)].slice(0, 3);
}

async function runRound(gateway: Gateway, pid: number, round: number, options: DriverScaleOptions): Promise<DriverScaleRound> {
  const progress = options.progress ?? (() => undefined);
  const sampler = sampleRss(pid);
  // The driver's CPU time, unlike its wall time, hardly depends on how busy the machine is, so it
  // compares driver builds (a V8 flag, say) measured on a busy one.
  const cpuBefore = ownCpuMs(pid);
  const began = Date.now();
  const deadline = began + ROUND_DEADLINE_MS;
  const outcomes = await Promise.allSettled(
    Array.from({ length: options.sandboxes }, async (_, i) => {
      const sandbox = await gateway.create({ name: `scale-${round}-${i}`, command: MAIN }, { deadline });
      await gateway.stop(sandbox.id, { deadline });
      await gateway.start(sandbox.id, { deadline });
      await gateway.delete(sandbox.id, { deadline });
    }),
  );
  const wallMs = Date.now() - began;
  const cpuAfter = ownCpuMs(pid);
  const driverCpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const peakRssBytes = await sampler.stop();
  const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  const cpu = driverCpuMs === undefined ? '' : `, driver CPU ${(driverCpuMs / 1000).toFixed(1)} s`;
  progress(`round ${round}: ${options.sandboxes} sandboxes in ${(wallMs / 1000).toFixed(1)} s${cpu}, peak RSS ${fmt.mib(peakRssBytes)}, ${failed.length} failed; idle ${options.idleMs / 1000} s`);
  await sleep(options.idleMs);
  const idleRssBytes = await residentBytes(pid);
  progress(`round ${round}: RSS once idle ${fmt.mib(idleRssBytes)}`);
  return { round, wallMs, driverCpuMs, peakRssBytes, idleRssBytes, failures: failed.length, failureMessages: distinctMessages(failed.map((f) => f.reason)) };
}

/**
 * The figures alone (another benchmark's table calls this): an embedded cluster, the reference
 * driver as a process with the shared mode's least privilege, the gateway, `rounds` rounds.
 */
export async function measureDriverScale(options: DriverScaleOptions): Promise<DriverScaleFigures> {
  const progress = options.progress ?? (() => undefined);
  const dir = await mkdtemp(join(tmpdir(), 'driver-scale-'));
  let cluster: EmbeddedCluster | undefined;
  let driver: ExternalDriverProcess | undefined;
  let gateway: Gateway | undefined;
  try {
    progress('starting the embedded cluster (Agent Sandbox v0.5.0, fixture images)');
    cluster = await startBenchCluster('v0.5.0');
    const adminPath = join(dir, 'admin.kubeconfig');
    await writeFile(adminPath, cluster.kubeconfig(), { mode: 0o600 });
    const { namespace } = DRIVER_SETTINGS;
    const access = await grantDriverAccess(adminPath, { name: 'sc-driver-scale', namespace, roleNamespace: namespace, rbac: DRIVER_RBAC.shared, dir });
    progress('starting the reference driver as an external process (shared mode, least privilege)');
    driver = await ExternalDriverProcess.start({
      command: harnessDriverCommand({ workspaceMode: 'shared', variant: 'reference', settings: DRIVER_SETTINGS }),
      kubeconfigPath: access.kubeconfigPath,
    });
    const pid = driver.pid;
    if (!pid) throw new Error('the external driver has no process id to sample');
    gateway = new Gateway({ clients: [driver.client] });
    const startRssBytes = await residentBytes(pid);
    progress(`driver pid ${pid} serving, RSS ${fmt.mib(startRssBytes)}; ${options.rounds} rounds of ${options.sandboxes} sandboxes at once`);
    const rounds: DriverScaleRound[] = [];
    for (let round = 1; round <= options.rounds; round++) rounds.push(await runRound(gateway, pid, round, options));
    return { sandboxes: options.sandboxes, idleMs: options.idleMs, startRssBytes, rounds, growthBytes: rounds.at(-1)!.idleRssBytes - rounds[0].idleRssBytes };
  } finally {
    progress('stopping the driver and the cluster');
    await gateway?.close();
    await driver?.stop();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runDriverScaleBenchmark(options: BenchOptions): Promise<void> {
  const sizes = options.quick ? DRIVER_SCALE_QUICK : DRIVER_SCALE_FULL;
  const progress = progressLog('driver-scale');
  const busy = busyWarning();
  if (busy) progress(busy);
  const figures = await measureDriverScale({ ...sizes, progress });
  const T = DRIVER_SCALE_TARGETS;
  const rows: Row[] = [{ measure: 'driver RSS once serving, before any sandbox', value: fmt.mib(figures.startRssBytes) }];
  for (const r of figures.rounds) {
    rows.push(
      { measure: `round ${r.round}: wall time, ${figures.sandboxes} sandboxes create → stop → start → delete at once`, value: `${(r.wallMs / 1000).toFixed(1)} s`, target: `<= ${T.roundSeconds} s`, pass: r.wallMs <= T.roundSeconds * 1000 },
      { measure: `round ${r.round}: driver CPU time (user + system)`, value: r.driverCpuMs === undefined ? 'n/a (no /proc)' : `${(r.driverCpuMs / 1000).toFixed(1)} s` },
      { measure: `round ${r.round}: driver peak RSS`, value: fmt.mib(r.peakRssBytes), target: `<= ${T.peakRssMiB} MiB`, pass: r.peakRssBytes <= T.peakRssMiB * 2 ** 20 },
      { measure: `round ${r.round}: driver RSS once idle ${figures.idleMs / 1000} s after`, value: fmt.mib(r.idleRssBytes) },
      { measure: `round ${r.round}: failed sandboxes${r.failureMessages.length ? ` (${r.failureMessages.join(' | ')})` : ''}`, value: `${r.failures}/${figures.sandboxes}`, target: String(T.failures), pass: r.failures <= T.failures },
    );
  }
  rows.push({
    measure: `RSS growth once idle, round 1 → round ${figures.rounds.length}`,
    value: `${figures.growthBytes >= 0 ? '+' : ''}${fmt.mib(figures.growthBytes)}`,
    target: `<= ${T.growthMiB} MiB`,
    pass: figures.growthBytes <= T.growthMiB * 2 ** 20,
  });
  await reportBenchmark({
    name: 'driver-scale',
    options,
    quickNote: `${sizes.sandboxes} sandboxes per round, not comparable with the targets`,
    subtitle: `${figures.rounds.length} rounds of ${figures.sandboxes} sandboxes`,
    busyAtStart: busy,
    rows,
    note: 'RSS does not depend on the machine\'s load; wall time does (the cluster, its Pods and the driver share the CPUs).',
    figures: { sizes, targets: T, results: figures },
  });
}

/** The figure for `npm run bench`'s one table (bench/issue-figures.ts): the slowest round, the highest peak, the growth. */
export async function driverScaleFigures(options: BenchOptions, progress: (line: string) => void): Promise<Measurement[]> {
  const figures = await measureDriverScale({ ...(options.quick ? DRIVER_SCALE_QUICK : DRIVER_SCALE_FULL), progress });
  const T = DRIVER_SCALE_TARGETS;
  const wallSeconds = Math.max(...figures.rounds.map((r) => r.wallMs)) / 1000;
  const peakMiB = Math.max(...figures.rounds.map((r) => r.peakRssBytes)) / 2 ** 20;
  const growthMiB = figures.growthBytes / 2 ** 20;
  const failures = figures.rounds.reduce((n, r) => n + r.failures, 0);
  return [
    {
      id: 'driver-scale',
      measured: `${wallSeconds.toFixed(0)} s; ${peakMiB.toFixed(0)} MiB`,
      values: { wallSeconds, peakRssMiB: peakMiB, growthMiB, failures },
      pass: wallSeconds <= T.roundSeconds && peakMiB <= T.peakRssMiB && growthMiB <= T.growthMiB && failures <= T.failures,
      note: `slowest of ${figures.rounds.length} rounds of ${figures.sandboxes}; growth ${growthMiB.toFixed(1)} MiB; ${failures} failed`,
    },
  ];
}
