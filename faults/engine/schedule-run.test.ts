import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { ProxyFixture } from '../proxy/test-kit.ts';
import type { ObjectRole, ScheduleItem } from '../schedule/schedule.ts';
import { faultSchedule } from '../schedule/schedule.ts';
import type { WatchedObject } from './object-change.ts';
import { ScheduleRun, type FaultHost, type FaultReport } from './schedule-run.ts';

/**
 * The schedule engine against the real fault proxy in front of an embedded cluster, with
 * client-node as the driver: each trigger fires on what really happens, each heal ends its fault,
 * and every firing and heal is reported in order. The harness's side (crash, replicas, denials)
 * is a recording host here: the lanes' fault scenarios run the real one.
 */
const f = ProxyFixture.register();

/** Objects labelled `role=<role>` play that role, in the sandbox named by `sandbox=<name>`. */
const classify = (_resource: string, object: WatchedObject) => {
  const role = object.metadata?.labels?.role as ObjectRole | undefined;
  return role ? { role, sandbox: object.metadata?.labels?.sandbox } : undefined;
};

function harness() {
  const reports: FaultReport[] = [];
  const did: string[] = [];
  const host: FaultHost = {
    crash: async (replica) => (did.push(`crash ${replica}`), `replica ${replica} crashed`),
    startReplica: async () => (did.push('replica-start'), 'started'),
    deny: async () => {
      did.push('deny');
      return { heal: async () => void did.push('deny healed') };
    },
  };
  return { reports, did, host, lines: () => reports.map((r) => `${r.status} ${r.item}`) };
}

/** Changes of Secrets, as the recorder would deliver them, fed to the run. */
async function feed(run: ScheduleRun, namespace: string): Promise<() => void> {
  const request = await new k8s.Watch(f.adminKubeconfig()).watch(`/api/v1/namespaces/${namespace}/secrets`, {}, (type, object: WatchedObject) => run.observe('secrets', type as 'ADDED', object), () => undefined);
  return () => request.abort();
}

const object = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels } });

test('a request trigger fires on the k-th matching request, before it is forwarded, and its fault acts on that very request', async () => {
  const ns = await f.namespace('engine-request');
  const h = harness();
  const items: ScheduleItem[] = [{ id: 'slow-second', trigger: { on: 'request', match: { verb: 'create', resource: 'configmaps' }, occurrence: 2 }, fault: { kind: 'error', status: 503, match: { verb: 'create' } }, heal: { afterRequests: 1 } }];
  const run = new ScheduleRun(faultSchedule(items), { proxy: f.proxy, host: h.host, classify, suspended: () => false, report: (r) => h.reports.push(r) });
  await run.start();
  await f.core.createNamespacedConfigMap({ namespace: ns, body: object('first') });
  await expect(f.core.createNamespacedConfigMap({ namespace: ns, body: object('second') })).rejects.toMatchObject({ code: 503 });
  await f.core.createNamespacedConfigMap({ namespace: ns, body: object('third') });
  await run.end();
  expect(h.lines()).toEqual(['fired slow-second', 'healed slow-second']);
  expect(h.reports[0].detail).toMatch(/^on the 2nd CREATE configmaps engine-request-\d+ \(replica 0, its write #\d+\) \(received\): answering matching requests 503/);
  expect(h.reports[1].detail).toBe('after acting on 1 request');
});

test('a crash at "answered": the write lands, the client that sent it never sees the answer, and the host crashes that replica', async () => {
  const ns = await f.namespace('engine-crash');
  const h = harness();
  const run = new ScheduleRun(faultSchedule([{ id: 'crash', trigger: { on: 'request', match: { verb: 'create', resource: 'configmaps' }, at: 'answered' }, fault: { kind: 'crash' } }]), {
    proxy: f.proxy,
    host: h.host,
    classify,
    suspended: () => false,
    report: (r) => h.reports.push(r),
  });
  await run.start();
  await expect(f.core.createNamespacedConfigMap({ namespace: ns, body: object('landed') })).rejects.toThrow(/socket hang up|ECONNRESET|fetch failed/);
  expect((await f.direct.readNamespacedConfigMap({ namespace: ns, name: 'landed' })).metadata?.name).toBe('landed');
  await run.end();
  expect(h.did).toEqual(['crash 0']);
  expect(h.lines()).toEqual(['fired crash']);
});

test('an event trigger fires on the k-th recorded change of an object in a role; "after" follows it; stale views name its revision', async () => {
  const ns = await f.namespace('engine-event');
  const h = harness();
  const items: ScheduleItem[] = [
    { id: 'on-label', trigger: { on: 'event', object: { role: 'generationSecrets', sandbox: 'box' }, change: { field: '$.metadata.labels.phase', to: 'two' } }, fault: { kind: 'replica-start' } },
    { id: 'then-stale', trigger: { on: 'after', item: 'on-label' }, fault: { kind: 'stale-reads', view: { item: 'on-label' } } },
  ];
  const run = new ScheduleRun(faultSchedule(items), { proxy: f.proxy, host: h.host, classify, suspended: () => false, report: (r) => h.reports.push(r) });
  const stop = await feed(run, ns);
  try {
    await run.start();
    const label = (phase: string) => f.direct.patchNamespacedSecret({ namespace: ns, name: 'watched', body: { metadata: { labels: { phase } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await f.direct.createNamespacedSecret({ namespace: ns, body: object('watched', { role: 'generationSecrets', sandbox: 'box', phase: 'one' }) });
    await label('two');
    await run.fired('then-stale');
    await label('three');
    // A read that may be stale is answered as of the revision when "on-label" fired; a consistent one is not.
    const stale = await f.raw(f.proxy.kubeconfig(0), 'GET', `/api/v1/namespaces/${ns}/secrets/watched?resourceVersion=0`);
    expect((JSON.parse(stale.text) as WatchedObject).metadata?.labels?.phase).toBe('two');
    expect((await f.core.readNamespacedSecret({ namespace: ns, name: 'watched' })).metadata?.labels?.phase).toBe('three');
    await run.end();
  } finally {
    stop();
  }
  expect(h.did).toEqual(['replica-start']);
  expect(h.lines()).toEqual(['fired on-label', 'fired then-stale', 'healed then-stale']);
  expect(h.reports[0].detail).toMatch(/^on the 1st time a generation Secret watched was \$\.metadata\.labels\.phase changed: started$/);
});

test('heals: after a time (before the end), at the end; an item whose trigger never came is reported as never fired', async () => {
  const h = harness();
  const items: ScheduleItem[] = [
    { id: 'brief', trigger: { on: 'start' }, fault: { kind: 'latency', ms: 1 }, heal: { afterMs: 50 } },
    { id: 'denial', trigger: { on: 'start', delayMs: 10 }, fault: { kind: 'deny', operations: ['DELETE'], object: { role: 'sandbox' } } },
    { id: 'never', trigger: { on: 'request', match: { verb: 'deletecollection' } }, fault: { kind: 'reset' } },
  ];
  const run = new ScheduleRun(faultSchedule(items), { proxy: f.proxy, host: h.host, classify, suspended: () => false, report: (r) => h.reports.push(r) });
  const sandboxSeen = { metadata: { name: 'sb', namespace: 'x', uid: 'u1', labels: { role: 'sandbox' } } };
  run.observe('sandboxes', 'ADDED', sandboxSeen);
  await run.start();
  await run.fired('denial');
  await expect.poll(() => h.lines(), { message: 'the brief fault heals on its own, before the end' }).toContain('healed brief');
  // Waiting for an item whose trigger does not come ends at a deadline, naming the trigger.
  await expect(run.fired('never', 100)).rejects.toThrow('waiting for fault "never" to fire: its trigger (the 1st request matching {"verb":"deletecollection"} (received)) did not happen within 0.1 s');
  await run.end();
  expect(h.lines()).toEqual(['fired brief', 'fired denial', 'healed brief', 'healed denial', 'never-fired never']);
  expect(h.reports.at(-1)!.detail).toBe('its trigger (the 1st request matching {"verb":"deletecollection"} (received)) did not happen during the fault phase');
  expect(h.did).toEqual(['deny', 'deny healed']);
});

test('a fault that cannot be put in force is reported and fails the end of the phase, naming the item', async () => {
  const h = harness();
  const run = new ScheduleRun(faultSchedule([{ id: 'lag', trigger: { on: 'start' }, fault: { kind: 'controller-cache-lag', ms: 10 } }]), { proxy: f.proxy, host: h.host, classify, suspended: () => false, report: (r) => h.reports.push(r) });
  await run.start();
  await run.fired('lag');
  await expect(run.end()).rejects.toThrow('the fault schedule could not be carried out: item "lag" (controller-cache-lag) at the start of the fault phase: controller-cache-lag needs the embedded cluster\'s own fault hooks');
  expect(h.reports[0].detail).toContain('FAILED');
});

test("the harness's own concurrent write (a conflict fault's) is no change a trigger sees; the driver's next change is", async () => {
  const h = harness();
  const run = new ScheduleRun(faultSchedule([{ id: 'on-any-write', trigger: { on: 'event', object: { role: 'sandbox' }, change: { field: '$.metadata.resourceVersion' }, occurrence: 2 }, fault: { kind: 'replica-start' } }]), {
    proxy: f.proxy,
    host: h.host,
    classify,
    suspended: () => false,
    report: (r) => h.reports.push(r),
  });
  const sandbox = (rv: string, annotations: Record<string, string> = {}, spec: unknown = { replicas: 1 }) => ({ metadata: { name: 'sb', namespace: 'x', uid: 'u1', resourceVersion: rv, labels: { role: 'sandbox' }, annotations }, spec });
  await run.start();
  run.observe('sandboxes', 'ADDED', sandbox('1'));
  run.observe('sandboxes', 'MODIFIED', sandbox('2', { 'sandbox-conformance.io/concurrent-write': 'a' }));
  run.observe('sandboxes', 'MODIFIED', sandbox('3', { 'sandbox-conformance.io/concurrent-write': 'b' }));
  expect(run.hasFired('on-any-write'), 'two writes of the harness: not a change').toBe(false);
  run.observe('sandboxes', 'MODIFIED', sandbox('4', { 'sandbox-conformance.io/concurrent-write': 'b' }, { replicas: 0 }));
  await run.fired('on-any-write', 5_000);
  await run.end();
  expect(h.did).toEqual(['replica-start']);
});
