import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScheduleRun, type FaultHost, type FaultReport } from '../engine/schedule-run.ts';
import type { WatchedObject } from '../engine/object-change.ts';
import { ProxyFixture, within } from '../proxy/test-kit.ts';
import { faultSchedule, type ObjectRole } from '../schedule/schedule.ts';
import { ControlServer } from './control-server.ts';
import { RemoteFaultProxy } from './remote-proxy.ts';

/**
 * A fault proxy driven from another process: the schedule engine drives it through its control
 * socket exactly as it drives a proxy in its own process, against an embedded cluster, with
 * client-node and kubectl as the driver; and `npm run fault-proxy`, the command that serves it.
 */
// One cluster for the file, its tests in order in one worker.
test.describe.configure({ mode: 'default' });
const f = ProxyFixture.register();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let dir: string;
let control: ControlServer;
test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'remote-proxy-'));
  control = await ControlServer.serve(f.proxy, join(dir, 'control.sock'));
});
test.afterAll(async () => {
  await control?.close();
  rmSync(dir, { recursive: true, force: true });
});

const classify = (_resource: string, object: WatchedObject) => {
  const role = object.metadata?.labels?.role as ObjectRole | undefined;
  return role ? { role, sandbox: object.metadata?.labels?.sandbox } : undefined;
};
const host: FaultHost = {
  crash: () => Promise.reject(new Error('not here')),
  startReplica: () => Promise.reject(new Error('not here')),
  deny: () => Promise.reject(new Error('not here')),
};
const object = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels } });

test('the control socket is private to its owner', () => {
  expect(statSync(control.socketPath).mode & 0o777).toBe(0o600);
});

test('a schedule run drives the proxy through the control socket: a request trigger fires on the k-th request, its fault acts on that very request, and heals after one', async () => {
  const ns = await f.namespace('remote-request');
  const remote = await RemoteFaultProxy.connect(control.socketPath);
  const reports: FaultReport[] = [];
  try {
    const run = new ScheduleRun(faultSchedule([{ id: 'second-create', trigger: { on: 'request', match: { verb: 'create', resource: 'configmaps' }, occurrence: 2 }, fault: { kind: 'error', status: 503, match: { verb: 'create' } }, heal: { afterRequests: 1 } }]), {
      proxy: remote,
      host,
      classify,
      suspended: () => false,
      report: (r) => reports.push(r),
    });
    await run.start();
    await f.core.createNamespacedConfigMap({ namespace: ns, body: object('first') });
    await expect(f.core.createNamespacedConfigMap({ namespace: ns, body: object('second') })).rejects.toMatchObject({ code: 503 });
    await f.core.createNamespacedConfigMap({ namespace: ns, body: object('third') });
    await run.end();
    expect(reports.map((r) => `${r.status} ${r.item}: ${r.detail}`)).toEqual([
      expect.stringMatching(/^fired second-create: on the 2nd CREATE configmaps remote-request-\d+ \(replica 0, its write #\d+\) \(received\): answering matching requests 503/),
      'healed second-create: after acting on 1 request',
    ]);
  } finally {
    await remote.close();
  }
});

test('objects named by role: the test says which requests aim at them, and only those meet the fault (a stale view answered by revision)', async () => {
  const ns = await f.namespace('remote-role');
  const remote = await RemoteFaultProxy.connect(control.socketPath);
  const reports: FaultReport[] = [];
  const run = new ScheduleRun(
    faultSchedule([
      { id: 'on-label', trigger: { on: 'event', object: { role: 'generationSecrets' }, change: { field: '$.metadata.labels.phase', to: 'two' } }, fault: { kind: 'error', status: 500, match: { verb: 'get', object: { role: 'generationSecrets' } } } },
      { id: 'stale', trigger: { on: 'after', item: 'on-label' }, fault: { kind: 'stale-reads', view: { item: 'on-label' } } },
    ]),
    { proxy: remote, host, classify, suspended: () => false, report: (r) => reports.push(r) },
  );
  const watch = await new k8s.Watch(f.adminKubeconfig()).watch(`/api/v1/namespaces/${ns}/secrets`, {}, (type, o: WatchedObject) => run.observe('secrets', type as 'ADDED', o), () => undefined);
  try {
    await run.start();
    const label = (name: string, phase: string) => f.direct.patchNamespacedSecret({ namespace: ns, name, body: { metadata: { labels: { phase } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await f.direct.createNamespacedSecret({ namespace: ns, body: object('generation', { role: 'generationSecrets', phase: 'one' }) });
    await f.direct.createNamespacedSecret({ namespace: ns, body: object('bystander', { phase: 'one' }) });
    await label('generation', 'two');
    await within(run.fired('stale'), 'the stale view fires after the label');
    await label('generation', 'three');
    // The Secret in the role meets the error; another Secret in the same namespace does not.
    await expect(f.core.readNamespacedSecret({ namespace: ns, name: 'generation' })).rejects.toMatchObject({ code: 500 });
    expect((await f.core.readNamespacedSecret({ namespace: ns, name: 'bystander' })).metadata?.name).toBe('bystander');
    // A read that allows it is answered as of the revision when on-label fired.
    const stale = await f.raw(f.proxy.kubeconfig(0), 'GET', `/api/v1/namespaces/${ns}/secrets?resourceVersion=0`);
    expect((JSON.parse(stale.text) as { items: WatchedObject[] }).items.find((s) => s.metadata?.name === 'generation')?.metadata?.labels?.phase).toBe('two');
    await run.end();
    expect((await f.core.readNamespacedSecret({ namespace: ns, name: 'generation' })).metadata?.labels?.phase).toBe('three');
  } finally {
    watch.abort();
    await remote.close();
  }
  expect(reports.map((r) => `${r.status} ${r.item}`)).toEqual(['fired on-label', 'fired stale', 'healed on-label', 'healed stale']);
});

test('a watch stream open before the session began is seen by it, and a fault switched on then acts on it', async () => {
  const ns = await f.namespace('remote-watch');
  const ended = new Promise<string>((resolve) => {
    void new k8s.Watch(f.proxy.kubeconfig(0)).watch(`/api/v1/namespaces/${ns}/configmaps`, {}, () => undefined, (error) => resolve(error ? String(error) : 'ended'));
  });
  await expect.poll(() => f.proxy.openWatches().filter((w) => w.request.namespace === ns).length, { message: 'the driver\'s watch is open at the proxy' }).toBe(1);
  const remote = await RemoteFaultProxy.connect(control.socketPath);
  try {
    const applied: string[] = [];
    const fault = remote.activate({ kind: 'watch-close', match: { resource: 'configmaps', namespace: ns }, afterEvents: 0 }, (_request, _client, what) => applied.push(what));
    expect(await within(ended, 'the open watch ends')).toBe('ended');
    await expect.poll(() => fault.applied).toBe(1);
    expect(applied).toHaveLength(1);
    await fault.heal();
  } finally {
    await remote.close();
  }
});

test('sessions take turns; a session that ends heals what it left in force, and a connection that left while waiting holds no one up', async () => {
  const ns = await f.namespace('remote-turns');
  const first = await RemoteFaultProxy.connect(control.socketPath);
  first.activate({ kind: 'error', status: 500, match: { verb: 'list', resource: 'configmaps', namespace: ns } });
  await expect(f.core.listNamespacedConfigMap({ namespace: ns })).rejects.toMatchObject({ code: 500 });
  // kubectl, as a driver would be, meets the same fault.
  expect((await f.kubectl.run(['-n', ns, 'get', 'configmaps'], { kubeconfig: f.kubeconfigFile(0) })).stderr).toContain('Error from server');
  const gone = await import('node:net').then(({ connect }) => connect(control.socketPath));
  gone.destroy();
  let secondReady = false;
  const second = RemoteFaultProxy.connect(control.socketPath).then((s) => ((secondReady = true), s));
  await new Promise((r) => setTimeout(r, 200));
  expect(secondReady, 'the second session waits for the first').toBe(false);
  await first.close();
  const next = await within(second, 'the second session starts once the first ended');
  try {
    expect((await f.core.listNamespacedConfigMap({ namespace: ns })).items).toEqual([]);
  } finally {
    await next.close();
  }
});

test('a control socket nobody serves: the error says how to start the proxy', async () => {
  await expect(RemoteFaultProxy.connect(join(dir, 'nobody.sock'))).rejects.toThrow(`the fault proxy's control socket ${join(dir, 'nobody.sock')}: cannot connect (ENOENT); is \`npm run fault-proxy -- --control ${join(dir, 'nobody.sock')} …\` running?`);
});

test.describe('npm run fault-proxy', () => {
  test.describe.configure({ timeout: 90_000 });
  const command = (args: string[]) => execa(process.execPath, ['--import', 'tsx', 'scripts/serve-fault-proxy.ts', ...args], { cwd: ROOT, reject: false, all: true, env: { KUBECONFIG: f.kubectl.kubeconfigPath } });

  test('serves the proxy in the foreground: the driver kubeconfig reaches the cluster through it, a session acts on it, and SIGTERM leaves nothing behind', async () => {
    const own = mkdtempSync(join(tmpdir(), 'fault-proxy-cmd-'));
    const socket = join(own, 'control.sock');
    const kubeconfig = join(own, 'driver.kubeconfig');
    const proxy = command(['--control', socket, '--write-kubeconfig', kubeconfig]);
    try {
      let out = '';
      proxy.all!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await expect.poll(() => out, { timeout: 30_000, message: 'the proxy says it is ready' }).toContain('fault proxy ready at https://127.0.0.1:');
      expect(out).toContain(`driver kubeconfig: ${kubeconfig}; control socket: ${socket}`);
      expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
      const ns = await f.namespace('remote-cmd');
      await f.direct.createNamespacedConfigMap({ namespace: ns, body: object('seen') });
      expect(await f.kubectl.ok(['-n', ns, 'get', 'configmap', 'seen', '-o', 'name'], { kubeconfig })).toBe('configmap/seen');
      const session = await RemoteFaultProxy.connect(socket);
      session.activate({ kind: 'error', status: 500, match: { verb: 'get', resource: 'configmaps', namespace: ns } });
      expect((await f.kubectl.run(['-n', ns, 'get', 'configmap', 'seen'], { kubeconfig })).exitCode).toBe(1);
      await session.close();
      expect(await f.kubectl.ok(['-n', ns, 'get', 'configmap', 'seen', '-o', 'name'], { kubeconfig })).toBe('configmap/seen');
      proxy.kill('SIGTERM');
      const done = await within(proxy, 'the proxy stops on SIGTERM');
      expect(done.exitCode, done.all).toBe(0);
      expect(existsSync(socket) || existsSync(kubeconfig), 'the socket and the kubeconfig are removed').toBe(false);
    } finally {
      proxy.kill('SIGKILL');
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('bad input: each says what was wrong, exits 2, and starts nothing', async () => {
    const own = mkdtempSync(join(tmpdir(), 'fault-proxy-bad-'));
    try {
      const noControl = await command(['--write-kubeconfig', join(own, 'k')]);
      expect(noControl.exitCode).toBe(2);
      expect(noControl.all).toContain('error: --control SOCKET is required');
      const noKubeconfig = await command(['--control', join(own, 's.sock'), '--write-kubeconfig', join(own, 'k'), '--kubeconfig', join(own, 'missing')]);
      expect(noKubeconfig.exitCode).toBe(2);
      expect(noKubeconfig.all).toContain(`error: --kubeconfig ${join(own, 'missing')}: no such file`);
      writeFileSync(join(own, 'not-yaml'), 'clusters: [');
      const notKubeconfig = await command(['--control', join(own, 's.sock'), '--write-kubeconfig', join(own, 'k'), '--kubeconfig', join(own, 'not-yaml')]);
      expect(notKubeconfig.exitCode).toBe(2);
      expect(notKubeconfig.all).toContain(`error: --kubeconfig ${join(own, 'not-yaml')}: not a kubeconfig`);
      const taken = await command(['--control', control.socketPath, '--write-kubeconfig', join(own, 'k')]);
      expect(taken.exitCode).toBe(2);
      expect(taken.all).toContain(`error: --control ${control.socketPath}: another fault proxy is serving there`);
      expect(existsSync(join(own, 'k'))).toBe(false);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
