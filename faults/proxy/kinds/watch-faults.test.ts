/**
 * The watch fault kinds through @kubernetes/client-node's Watch and ListWatch: a stream ended
 * after N events; held events delivered, delivered and ended, or dropped with the resume refused
 * (ListWatch relists and still ends up with every object); open streams expired and resumes
 * refused with 410 until healed. Each held stream is compared with an unheld one on the same
 * collection (another client's), so "not delivered" is checked once the events exist.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test } from '@playwright/test';
import { startWatch, type RunningWatch } from '../../../cluster/embedded/test-kit.ts';
import type { ProxyFaultSpec } from '../proxy-fault.ts';
import { ProxyFixture, within } from '../test-kit.ts';

const f = ProxyFixture.register();

const names = (watch: RunningWatch) => watch.events.map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.reason}`);

/** A watch of client 0 (the one faults match) and one of client 1 beside it, from the namespace's current revision. */
async function watchPair(ns: string): Promise<{ watched: RunningWatch; control: RunningWatch; from: string }> {
  const from = (await f.core.listNamespacedConfigMap({ namespace: ns })).metadata!.resourceVersion!;
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const watched = await startWatch(f.proxy.kubeconfig(0), path, { resourceVersion: from });
  const control = await startWatch(f.proxy.kubeconfig(1), path, { resourceVersion: from });
  return { watched, control, from };
}

async function create(ns: string, ...configMaps: string[]): Promise<void> {
  for (const name of configMaps) await f.direct.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
}

function activate(spec: ProxyFaultSpec, what: string[]) {
  return f.proxy.activate(spec, (_r, _c, done) => what.push(done));
}

test('watch-close: the stream ends cleanly after N more events', async () => {
  const ns = await f.namespace('close');
  const { watched, control } = await watchPair(ns);
  const what: string[] = [];
  const fault = activate({ kind: 'watch-close', match: { namespace: ns, client: 0 }, afterEvents: 2 }, what);
  await create(ns, 'a', 'b', 'c');
  expect(await within(watched.done, 'the closed stream ending')).toBeNull();
  await expect.poll(() => names(control), { message: 'the unfaulted stream goes on' }).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
  expect(names(watched)).toEqual(['ADDED a', 'ADDED b']);
  expect(what).toEqual(['ended the stream after 2 events']);
  expect(fault.applied).toBe(1);
  await fault.heal();
  await control.stop();
});

for (const release of ['deliver', 'close'] as const) {
  test(`watch-hold, release ${release}: nothing arrives while held; healed, every event arrives in order${release === 'close' ? ' and the stream ends' : ''}`, async () => {
    const ns = await f.namespace(`hold-${release}`);
    const { watched, control } = await watchPair(ns);
    const what: string[] = [];
    const fault = activate({ kind: 'watch-hold', match: { namespace: ns, client: 0 }, release }, what);
    await create(ns, 'a', 'b');
    await expect.poll(() => names(control), { message: 'the events exist' }).toEqual(['ADDED a', 'ADDED b']);
    expect(names(watched)).toEqual([]);
    await fault.heal();
    await expect.poll(() => names(watched), { message: 'the held events' }).toEqual(['ADDED a', 'ADDED b']);
    if (release === 'close') expect(await within(watched.done, 'the released stream ending')).toBeNull();
    else {
      await create(ns, 'c');
      await expect.poll(() => names(watched), { message: 'the stream goes on' }).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
      expect(watched.ended()).toBe(false);
      await watched.stop();
    }
    expect(what).toEqual(['held the stream', `delivered 2 events${release === 'close' ? ' and ended the stream' : ''}`]);
    expect(fault.applied).toBe(1);
    await control.stop();
  });
}

test('watch-hold, release expire: the held events are dropped, the resume gets 410 and ListWatch relists, ending with every object', async () => {
  const ns = await f.namespace('hold-expire');
  await create(ns, 'before');
  const kc = f.proxy.kubeconfig(0);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const informed: string[] = [];
  const informer = new k8s.ListWatch<k8s.V1ConfigMap>(path, new k8s.Watch(kc), () => core.listNamespacedConfigMap({ namespace: ns }), false);
  informer.on('add', (c) => informed.push(`add ${c.metadata?.name}`));
  informer.on('update', (c) => informed.push(`update ${c.metadata?.name}`));
  const opened = new Promise<void>((resolve) => informer.on('connect', () => resolve()));
  await informer.start();
  await within(opened, "the informer's first watch");
  await expect.poll(() => informed, { message: 'the first list' }).toEqual(['add before']);
  const control = await startWatch(f.proxy.kubeconfig(1), path, { resourceVersion: (await f.direct.listNamespacedConfigMap({ namespace: ns })).metadata!.resourceVersion! });

  const what: string[] = [];
  let refusedNow!: () => void;
  const refused = new Promise<void>((resolve) => (refusedNow = resolve));
  const fault = f.proxy.activate({ kind: 'watch-hold', match: { namespace: ns, client: 0 }, release: 'expire' }, (_r, _c, done) => {
    what.push(done);
    if (done.startsWith('refused')) refusedNow();
  });
  await create(ns, 'during');
  await expect.poll(() => names(control), { message: 'the event exists' }).toEqual(['ADDED during']);
  expect(informed).toEqual(['add before']);
  await fault.heal();
  await within(refused, 'the refused resume');
  // The relist brings what the dropped events said; the informer never saw them as events.
  await expect.poll(() => informer.list().map((c) => c.metadata?.name).sort(), { message: 'the relist' }).toEqual(['before', 'during']);
  expect(informed).toEqual(['add before', 'add during']);
  expect(what).toEqual(['held the stream', 'dropped 1 events and ended the stream', 'refused the resume with 410 Expired']);
  await informer.stop();
  await control.stop();
});

test('watch-expire: open streams end; a resume gets HTTP 200 and one ERROR 410 Expired event until healed', async () => {
  const ns = await f.namespace('expire');
  const { watched, control, from } = await watchPair(ns);
  const what: string[] = [];
  const fault = activate({ kind: 'watch-expire', match: { namespace: ns, client: 0 } }, what);
  expect(await within(watched.done, 'the expired stream ending')).toBeNull();
  expect(control.ended()).toBe(false);

  const resumed = await startWatch(f.proxy.kubeconfig(0), `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: from });
  expect(await within(resumed.done, 'the refused resume ending')).toBeNull();
  expect(resumed.events).toEqual([
    { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${Number(from) + 1})`, reason: 'Expired', code: 410 } },
  ]);
  // A fresh watch (no resourceVersion) is no resume: it is served.
  const fresh = await startWatch(f.proxy.kubeconfig(0), `/api/v1/namespaces/${ns}/configmaps`, {});
  await fault.heal();
  await create(ns, 'after');
  await expect.poll(() => names(fresh), { message: 'the fresh watch' }).toEqual(['ADDED after']);
  const healed = await startWatch(f.proxy.kubeconfig(0), `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: from });
  await expect.poll(() => names(healed), { message: 'the resume once healed' }).toEqual(['ADDED after']);
  expect(what).toEqual(['ended the stream', 'refused the resume with 410 Expired']);
  expect(fault.applied).toBe(2);
  for (const watch of [fresh, healed, control]) await watch.stop();
});
