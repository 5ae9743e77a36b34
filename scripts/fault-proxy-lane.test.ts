import { expect, test } from '@playwright/test';
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../fixtures/programs/catalogue.ts';
import { findLane } from '../lanes/index.ts';
import { readOutcomes } from '../lanes/run/summary-table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tsx = (script: string, args: string[], env: Record<string, string>) => execa(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, reject: false, all: true, env: { CI: '', ...env } });

/** Resolves once `child`'s output contains `line`; fails naming `stage` after 60 s or when it exits first. */
async function waitFor(child: ResultPromise, line: string, stage: string): Promise<void> {
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${stage}: no "${line}" within 60 s:\n${out}`)), 60_000);
    child.all!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(line)) (clearTimeout(timer), resolve());
    });
    void child.then(() => (clearTimeout(timer), reject(new Error(`${stage}: exited before "${line}":\n${out}`))));
  });
}

/**
 * A driver someone else started (`--driver external=`) meets the fault scenarios' schedules too:
 * the user serves the fault proxy (`npm run fault-proxy`), starts the driver with the kubeconfig
 * it wrote, and passes its control socket to the lane. On an embedded cluster reached as an
 * existing one: the reference driver passes the fault scenarios a socket driver can run (the
 * crash scenario needs a driver the harness starts, and skips saying so), their faults really
 * fired; and watch-trusting-wait, served the same way, fails the scenario that holds its watches.
 */
test('external= drivers behind `npm run fault-proxy`: the reference holds under the fault scenarios, a defect only faults expose fails', async ({}, testInfo) => {
  test.setTimeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'fault-proxy-lane-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const cluster = await EmbeddedCluster.start({ kubeconfigPath, node: { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE }, agentSandbox: findLane('v1beta1').agentSandbox.version });
  const control = join(dir, 'control.sock');
  const driverKubeconfig = join(dir, 'driver.kubeconfig');
  const env = { KUBECONFIG: kubeconfigPath };
  const proxy = tsx('scripts/serve-fault-proxy.ts', ['--control', control, '--write-kubeconfig', driverKubeconfig], env);
  const running: ResultPromise[] = [proxy];
  try {
    await waitFor(proxy, 'fault proxy ready', 'the fault proxy');
    const serve = async (variant: string) => {
      const socket = join(dir, `${variant}.sock`);
      const driver = tsx('scripts/driver.ts', ['serve', '--bind-socket', socket, '--variant', variant, '--supervisor-grace', '10', '--workload-grace', '10', '--api-headroom', '5', '--reconcile-interval', '5'], { KUBECONFIG: driverKubeconfig });
      running.push(driver);
      await waitFor(driver, `compute driver listening on ${socket}`, `the ${variant} driver`);
      return { socket, driver };
    };
    // Only the reports read here (results.json, summary.md).
    const runLane = (socket: string, grep: string, name: string) => tsx('scripts/lane.ts', ['v1beta1', '--cluster', 'existing', '--driver', `external=${socket}`, '--fault-proxy', control, '--report-dir', testInfo.outputPath(name), '--reports', 'results', '--', '--grep', grep], env);

    const reference = await serve('reference');
    const held = await runLane(reference.socket, 'under-faults/', 'reference');
    await testInfo.attach('reference lane', { body: held.all ?? '' });
    expect(held.all).toContain(`fault proxy: the driver's requests go through the proxy whose control socket is ${control}; one test at a time`);
    const outcomes = readOutcomes(testInfo.outputPath('reference', 'shared-v1beta1', 'results.json'), []);
    expect(outcomes.map((o) => `${o.scenario.replace(/ › .*/, '')}: ${o.status}${o.status === 'skipped' ? ` (${o.detail})` : ''}`).sort()).toEqual([
      'scenarios/under-faults/conflict-storm: passed',
      `scenarios/under-faults/crash-after-suspension-write: skipped (fault schedule item "crash-after-suspension" (crash) needs a driver the harness starts (to crash or multiply it); the driver at ${reference.socket} is not the harness's)`,
      'scenarios/under-faults/read-errors-during-completion: passed',
      'scenarios/under-faults/stale-view-during-stop: passed',
      'scenarios/under-faults/watch-held-during-stop: passed',
    ]);
    expect(held.exitCode, held.all).toBe(0);
    reference.driver.kill('SIGTERM');
    await reference.driver;

    const defect = await serve('watch-trusting-wait');
    const broken = await runLane(defect.socket, 'watch-held-during-stop', 'defect');
    await testInfo.attach('watch-trusting-wait lane', { body: broken.all ?? '' });
    expect(broken.exitCode, broken.all).toBe(1);
    expect(readFileSync(testInfo.outputPath('defect', 'shared-v1beta1', 'summary.md'), 'utf8')).toMatch(/watch-held-during-stop .*\| FAIL \(.*stop\/suspend-after-supervisor-gone/);
  } finally {
    for (const child of running) child.kill('SIGTERM');
    await Promise.allSettled(running);
    await cluster.stop();
    expect(existsSync(control), 'the proxy removed its control socket').toBe(false);
    rmSync(dir, { recursive: true, force: true });
  }
});
