/**
 * Watch events are encoded once for all watchers (WatchEventEncoder), and each watcher still
 * gets exactly its own stream: its namespace, selectors, starting resourceVersion and
 * representation (objects or Table rows).
 */
import { expect, test as base } from '@playwright/test';
import { deepFreeze, type KubeObject } from '../types.ts';
import { send, test } from './test-kit.ts';
import { WatchEventEncoder } from './watch-encoding.ts';

const object = (name: string, rv: string): KubeObject => deepFreeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: rv } });

base.describe('WatchEventEncoder', () => {
  base('one event is rendered and encoded once per type and representation; every watcher gets the same bytes', () => {
    const encoder = new WatchEventEncoder();
    const renders: string[] = [];
    const render = (representation: string) => (o: KubeObject) => (renders.push(`${representation} ${o.metadata.name}`), representation === 'table' ? { kind: 'Table' } : o);
    const event = object('a', '7');
    const lines = [1, 2, 3].map(() => encoder.line('MODIFIED', event, 'object', render('object')));
    expect(lines[1]).toBe(lines[0]);
    expect(lines[2]).toBe(lines[0]);
    expect(JSON.parse(lines[0].toString())).toEqual({ type: 'MODIFIED', object: event });
    expect(lines[0].toString().endsWith('}\n')).toBe(true);
    // A watcher whose selector the object just entered sees ADDED: another line; a Table watcher: another one.
    expect(JSON.parse(encoder.line('ADDED', event, 'object', render('object')).toString()).type).toBe('ADDED');
    expect(JSON.parse(encoder.line('MODIFIED', event, 'table', render('table')).toString()).object).toEqual({ kind: 'Table' });
    encoder.line('MODIFIED', event, 'table', render('table'));
    expect(renders).toEqual(['object a', 'object a', 'table a']);
  });

  base('another event, or a later delivery of the same one, is encoded afresh (a Table row carries its age)', async () => {
    const encoder = new WatchEventEncoder();
    let renders = 0;
    const render = (o: KubeObject) => (renders++, o);
    const first = object('a', '7');
    const line = encoder.line('ADDED', first, 'object', render);
    encoder.line('ADDED', object('b', '8'), 'object', render);
    expect(renders).toBe(2);
    // Back to the first event within the same delivery: its lines were dropped with the revision change.
    expect(encoder.line('ADDED', first, 'object', render)).not.toBe(line);
    expect(renders).toBe(3);
    const again = encoder.line('ADDED', first, 'object', render);
    await Promise.resolve();
    expect(encoder.line('ADDED', first, 'object', render)).not.toBe(again);
    expect(renders).toBe(4);
  });
});

interface WatchLine {
  type: string;
  object: { kind: string; metadata: { name?: string; resourceVersion?: string }; rows?: { object: { metadata: { name: string } } }[] };
}

function events(text: string): WatchLine[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as WatchLine);
}

const names = (lines: WatchLine[]) => lines.map((l) => `${l.type} ${l.object.kind === 'Table' ? `row ${l.object.rows![0].object.metadata.name}` : l.object.metadata.name}`);

test('watchers of one resource with different filters and representations each get their own stream', async ({ cluster, call }) => {
  expect((await call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'other' } } })).status).toBe(201);
  const from = String(cluster.store.currentRevision());
  const cm = (name: string, app: string) => ({ metadata: { name, labels: { app } }, data: { k: 'v' } });
  const watch = (path: string, accept?: string) => send(cluster, 'GET', `${path}${path.includes('?') ? '&' : '?'}watch=true&timeoutSeconds=2&resourceVersion=${from}`, { accept });
  const streams = {
    all: watch('/api/v1/configmaps?fieldSelector=metadata.name!=kube-root-ca.crt'),
    defaultOnly: watch('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name!=kube-root-ca.crt'),
    web: watch('/api/v1/configmaps?labelSelector=app=web'),
    table: watch('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name!=kube-root-ca.crt', 'application/json;as=Table;v=v1;g=meta.k8s.io'),
  };
  expect((await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('a', 'web') })).status).toBe(201);
  expect((await call('POST', '/api/v1/namespaces/other/configmaps', { body: cm('b', 'web') })).status).toBe(201);
  const patched = await call('PATCH', '/api/v1/namespaces/default/configmaps/a', { body: { metadata: { labels: { app: 'db' } } }, contentType: 'application/merge-patch+json' });
  expect(patched.status).toBe(200);
  // Opened after the writes: it replays them from the revision log.
  const late = watch('/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name!=kube-root-ca.crt');
  expect((await call('DELETE', '/api/v1/namespaces/default/configmaps/a')).status).toBe(200);

  const replies = Object.fromEntries(await Promise.all(Object.entries({ ...streams, late }).map(async ([key, reply]) => [key, events((await reply).text)] as const)));
  expect(names(replies.all)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED a']);
  expect(names(replies.defaultOnly)).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);
  // "a" leaves the label selector with the patch: DELETED for this watcher, and nothing after.
  expect(names(replies.web)).toEqual(['ADDED a', 'ADDED b', 'DELETED a']);
  expect(names(replies.table)).toEqual(['ADDED row a', 'MODIFIED row a', 'DELETED row a']);
  expect(names(replies.late)).toEqual(names(replies.defaultOnly));
  // The same event reaches the object watchers as the same object.
  expect(replies.all[2]).toEqual(replies.defaultOnly[1]);
  expect(replies.all[2].object.metadata.resourceVersion).toBe(patched.body.metadata.resourceVersion);
});
