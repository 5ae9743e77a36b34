/**
 * `npm run bench -- lanes`: how long the conformance suite takes on the embedded cluster, and
 * what the timeline recorder costs. Wall-time targets (one lane <= 10 s, five lanes <= 30 s on
 * 2 cores) are absolute; the recorder's cost is a ratio against the same lifecycle run without
 * a recorder, measured in this run.
 */
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { sandboxApiVersion } from '../driver/agent-sandbox-api.ts';
import { KubernetesDriver } from '../driver/kubernetes/kubernetes-driver.ts';
import { Gateway } from '../driver/gateway/gateway.ts';
import { HARNESS_DRIVER_SETTINGS } from '../lanes/driver-settings.ts';
import { OPENSHELL_ROLES } from '../lanes/openshell-roles.ts';
import { TimelineRecorder } from '../timeline/collect/recorder.ts';
import { fmt, machine, progressLog, renderTable, startBenchCluster, writeReport, type BenchOptions, type Row } from './common.ts';

async function timeLane(args: string[], reportDir: string): Promise<{ seconds: number; exitCode: number }> {
  const started = performance.now();
  const run = await execa('node_modules/.bin/tsx', ['scripts/lane.ts', ...args, '--cluster', 'embedded', '--report-dir', reportDir], { reject: false, env: { CI: '' } });
  return { seconds: (performance.now() - started) / 1000, exitCode: run.exitCode ?? 1 };
}

/** One create -> stop -> start -> delete cycle with the reference driver; milliseconds. */
async function lifecycle(driver: Gateway, name: string): Promise<number> {
  const started = performance.now();
  const sandbox = await driver.create({ name, command: ['sh', '-c', 'exec sleep 100000'] });
  await driver.stop(sandbox.id);
  await driver.start(sandbox.id);
  await driver.delete(sandbox.id);
  return performance.now() - started;
}

async function recorderOverhead(cycles: number, log: (line: string) => void): Promise<{ without: number[]; withRecorder: number[] }> {
  const cluster = await startBenchCluster('v0.5.0');
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  const reference = new KubernetesDriver({ kubeconfig: kc, ...HARNESS_DRIVER_SETTINGS });
  const driver = new Gateway({ clients: [reference] });
  const without: number[] = [];
  const withRecorder: number[] = [];
  try {
    // Alternate, so a slow stretch of the machine hits both sides.
    for (let i = 0; i < cycles; i++) {
      log(`recorder overhead: cycle ${i + 1}/${cycles} without recorder`);
      without.push(await lifecycle(driver, `plain-${i}`));
      log(`recorder overhead: cycle ${i + 1}/${cycles} with recorder`);
      const recorder = new TimelineRecorder(kc, { namespace: HARNESS_DRIVER_SETTINGS.namespace, roles: OPENSHELL_ROLES, sandboxApiVersion: sandboxApiVersion('v1beta1') });
      await recorder.start();
      withRecorder.push(await lifecycle(driver, `recorded-${i}`));
      recorder.stop();
    }
  } finally {
    await driver.close();
    await reference.close();
    await cluster.stop();
  }
  return { without, withRecorder };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runLanesBenchmark(options: BenchOptions): Promise<void> {
  const log = progressLog('lanes');
  const reports = await mkdtemp(join(tmpdir(), 'bench-lanes-'));
  try {
    log('timing `npm run lane -- v1beta1` on the embedded cluster');
    const one = await timeLane(['v1beta1'], reports);
    let all: { seconds: number; exitCode: number } | undefined;
    if (!options.quick) {
      log('timing all five lanes on the embedded cluster');
      all = await timeLane(['--all'], reports);
    }
    const overhead = await recorderOverhead(options.quick ? 1 : 3, log);
    const ratio = median(overhead.withRecorder) / median(overhead.without);
    const rows: Row[] = [
      { measure: 'one lane (v1beta1), wall time', value: `${one.seconds.toFixed(1)} s${one.exitCode ? ' (lane FAILED)' : ''}`, target: '<= 10 s', pass: one.seconds <= 10 && one.exitCode === 0 },
      ...(all ? [{ measure: 'all five lanes, wall time', value: `${all.seconds.toFixed(1)} s${all.exitCode ? ' (a lane FAILED)' : ''}`, target: '<= 30 s', pass: all.seconds <= 30 && all.exitCode === 0 }] : []),
      { measure: 'lifecycle cycle without recorder (median)', value: fmt.ms(median(overhead.without)) },
      { measure: 'lifecycle cycle with recorder (median)', value: fmt.ms(median(overhead.withRecorder)) },
      { measure: 'recorder overhead (with / without)', value: `${ratio.toFixed(2)}x` },
    ];
    process.stdout.write(renderTable('Conformance lanes on the embedded cluster', rows));
    const file = await writeReport('lanes', { machine: machine(), oneLane: one, allLanes: all, recorder: { ...overhead, ratio } });
    process.stdout.write(`\nwritten: ${file}\n`);
  } finally {
    await rm(reports, { recursive: true, force: true });
  }
}
