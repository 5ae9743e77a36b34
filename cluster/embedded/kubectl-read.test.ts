import { test, expect } from '@playwright/test';
import { parse as parseYaml } from 'yaml';
import { KubectlFixture, names, podManifest, tableRows } from './test-kit.ts';

/**
 * Real kubectl reading from the embedded cluster: version, discovery, `get` in its output
 * formats, selectors, errors and `get -w`. Each test works in a namespace of its own.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();
const eventually = { timeout: 30_000 };

/** Pods a {app: web, tier: fe}, b {app: db, tier: be}, c {app: web}. */
async function threePods(ns: string): Promise<void> {
  await k.apply(
    ns,
    [
      podManifest('a', { labels: { app: 'web', tier: 'fe' } }),
      podManifest('b', { labels: { app: 'db', tier: 'be' } }),
      podManifest('c', { labels: { app: 'web' } }),
    ].join('---\n'),
  );
}

test('version reports the 1.32 client and the embedded server', async () => {
  const out = await k.ok(['version']);
  expect(out).toContain('Client Version: v1.32.4');
  expect(out).toContain('Server Version: v1.32.0+embedded');
  const json = JSON.parse(await k.ok(['version', '-o', 'json'])) as { serverVersion: { major: string; minor: string } };
  expect(json.serverVersion).toMatchObject({ major: '1', minor: '32' });
});

test('api-resources lists the built-in kinds with short names, group version and scope', async () => {
  const rows = tableRows(await k.ok(['api-resources']));
  expect(rows[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
  const row = (name: string) => rows.find((r) => r[0] === name);
  expect(row('pods')).toEqual(['pods', 'po', 'v1', 'true', 'Pod']);
  expect(row('namespaces')).toEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  expect(row('configmaps')).toEqual(['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
  expect(row('deployments')).toEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  expect(row('customresourcedefinitions')).toEqual(['customresourcedefinitions', 'crd,crds', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition']);
  // Subresources are not listed.
  expect(rows.some((r) => r[0].includes('/'))).toBe(false);
});

test('get pods prints the Pod table: NAME READY STATUS RESTARTS AGE', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect((await k.run(['-n', ns, 'get', 'pods'])).stderr).toBe(`No resources found in ${ns} namespace.`);
  await threePods(ns);
  const rows = tableRows(await k.ok(['-n', ns, 'get', 'pods']));
  expect(rows[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
  expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
    ['a', '0/1', 'Pending', '0'],
    ['b', '0/1', 'Pending', '0'],
    ['c', '0/1', 'Pending', '0'],
  ]);
  expect(rows[1][4]).toMatch(/^\d+s$/);
  // One object by name, and by short name.
  expect(tableRows(await k.ok(['-n', ns, 'get', 'po', 'b']))[1].slice(0, 3)).toEqual(['b', '0/1', 'Pending']);
});

test('get configmaps prints NAME DATA AGE', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\ndata: {a: "1", b: "2"}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty}\n');
  const rows = tableRows(await k.ok(['-n', ns, 'get', 'configmaps']));
  expect(rows[0]).toEqual(['NAME', 'DATA', 'AGE']);
  expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
    ['empty', '0'],
    ['two', '2'],
  ]);
});

test('get -o json prints a List of full objects, and one object with server defaults', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  const list = JSON.parse(await k.ok(['-n', ns, 'get', 'pods', '-o', 'json']));
  expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
  expect(list.items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['a', 'b', 'c']);
  const pod = JSON.parse(await k.ok(['-n', ns, 'get', 'pod', 'a', '-o', 'json']));
  expect(pod).toMatchObject({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'a', namespace: ns, labels: { app: 'web', tier: 'fe' } },
    spec: { restartPolicy: 'Always', containers: [{ name: 'main', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
    status: { phase: 'Pending' },
  });
  expect(pod.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(pod.metadata.resourceVersion).toMatch(/^\d+$/);
  // kubectl hides managedFields unless asked.
  expect(pod.metadata.managedFields).toBeUndefined();
  const shown = JSON.parse(await k.ok(['-n', ns, 'get', 'pod', 'a', '-o', 'json', '--show-managed-fields']));
  expect(shown.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl-client-side-apply', operation: 'Update' });
});

test('get -o yaml prints the object as YAML', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  const out = await k.ok(['-n', ns, 'get', 'pod', 'b', '-o', 'yaml']);
  expect(out).toMatch(/^apiVersion: v1\nkind: Pod\nmetadata:\n/);
  expect(parseYaml(out)).toMatchObject({ kind: 'Pod', metadata: { name: 'b', labels: { app: 'db' } }, status: { phase: 'Pending' } });
  const list = parseYaml(await k.ok(['-n', ns, 'get', 'pods', '-o', 'yaml']));
  expect(list.kind).toBe('List');
  expect(list.items).toHaveLength(3);
});

test('get -o jsonpath evaluates against lists and single objects', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  expect(await k.ok(['-n', ns, 'get', 'pods', '-o', 'jsonpath={.items[*].metadata.name}'])).toBe('a b c');
  expect(await k.ok(['-n', ns, 'get', 'pod', 'a', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe('busybox:1.36');
  expect(await k.ok(['-n', ns, 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.app}{"\\n"}{end}'])).toBe('a=web\nb=db\nc=web');
  expect(await k.ok(['-n', ns, 'get', 'pods', '-o', 'name'])).toBe('pod/a\npod/b\npod/c');
});

test('get -o wide adds the IP and NODE columns', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('solo'));
  const rows = tableRows(await k.ok(['-n', ns, 'get', 'pods', '-o', 'wide']));
  expect(rows[0]).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED', 'NODE', 'READINESS', 'GATES']);
  expect(rows[1]).toEqual(['solo', '0/1', 'Pending', '0', expect.stringMatching(/^\d+s$/), '<none>', '<none>', '<none>', '<none>']);
});

test('get -A lists across namespaces with a NAMESPACE column', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  const rows = tableRows(await k.ok(['get', 'pods', '-A']));
  expect(rows[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
  expect(rows.filter((r) => r[0] === ns).map((r) => r[1])).toEqual(['a', 'b', 'c']);
  const namespaces = tableRows(await k.ok(['get', 'namespaces']));
  expect(namespaces[0]).toEqual(['NAME', 'STATUS', 'AGE']);
  expect(namespaces.map((r) => r[0])).toEqual(expect.arrayContaining(['default', 'kube-system', ns]));
});

test('get -l honours =, !=, in, notin, exists and !key selectors', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  const select = async (selector: string) => names(await k.ok(['-n', ns, 'get', 'pods', '-l', selector, '-o', 'name']));
  expect(await select('app=web')).toEqual(['a', 'c']);
  expect(await select('app==web')).toEqual(['a', 'c']);
  expect(await select('app!=web')).toEqual(['b']);
  expect(await select('app in (db,cache)')).toEqual(['b']);
  expect(await select('app notin (web)')).toEqual(['b']);
  expect(await select('tier')).toEqual(['a', 'b']);
  expect(await select('!tier')).toEqual(['c']);
  expect(await select('app=web,tier=fe')).toEqual(['a']);
  expect(await select('tier notin (fe)')).toEqual(['b', 'c']);
  expect((await k.run(['-n', ns, 'get', 'pods', '-l', 'app=none'])).stderr).toBe(`No resources found in ${ns} namespace.`);
  const bad = await k.fails(['-n', ns, 'get', 'pods', '-l', 'app in web']);
  expect(bad).toContain('unable to parse requirement');
});

test('get --field-selector honours metadata.name and status.phase', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await threePods(ns);
  const select = async (selector: string) => names(await k.ok(['-n', ns, 'get', 'pods', '--field-selector', selector, '-o', 'name']));
  expect(await select('metadata.name=b')).toEqual(['b']);
  expect(await select('metadata.name!=b')).toEqual(['a', 'c']);
  expect(await select('status.phase=Pending')).toEqual(['a', 'b', 'c']);
  expect(await select('status.phase=Running')).toEqual([]);
  // The status subresource, through kubectl patch --subresource.
  expect(await k.ok(['-n', ns, 'patch', 'pod', 'b', '--subresource=status', '--type', 'merge', '-p', '{"status":{"phase":"Running"}}'])).toBe('pod/b patched');
  expect(await select('status.phase=Running')).toEqual(['b']);
  expect(await select('status.phase!=Running,metadata.name!=a')).toEqual(['c']);
  expect(tableRows(await k.ok(['-n', ns, 'get', 'pod', 'b']))[1].slice(0, 3)).toEqual(['b', '0/1', 'Running']);
  const bad = await k.fails(['-n', ns, 'get', 'pods', '--field-selector', 'spec.nope=x']);
  expect(bad).toContain('Error from server (BadRequest)');
  expect(bad).toContain('field label not supported: spec.nope');
});

test('errors: NotFound, unknown resource type, and a wrong token', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.fails(['-n', ns, 'get', 'pod', 'nope'])).toBe('Error from server (NotFound): pods "nope" not found');
  expect(await k.fails(['-n', ns, 'get', 'configmap', 'x', 'y'])).toBe('Error from server (NotFound): configmaps "x" not found\nError from server (NotFound): configmaps "y" not found');
  expect(await k.fails(['get', 'widgets'])).toBe('error: the server doesn\'t have a resource type "widgets"');
  const wrong = await k.wrongTokenKubeconfig();
  const stderr = await k.fails(['-n', ns, 'get', 'pods'], { kubeconfig: wrong });
  expect(stderr).toMatch(/^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)$/m);
});

test('get pods -w --output-watch-events prints ADDED, MODIFIED and DELETED rows', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('before'));
  const watch = k.spawn(['-n', ns, 'get', 'pods', '-w', '--output-watch-events']);
  let out = '';
  watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    // The initial list is printed first; later changes are replayed from its resourceVersion.
    await expect.poll(() => out, eventually).toMatch(/^ADDED\s+before\s+0\/1\s+Pending/m);
    await k.apply(ns, podManifest('during'));
    await k.ok(['-n', ns, 'label', 'pod', 'during', 'seen=yes']);
    await k.ok(['-n', ns, 'delete', 'pod', 'during']);
    await expect.poll(() => out, eventually).toMatch(/^DELETED\s+during\s/m);
  } finally {
    watch.kill();
    await watch;
  }
  const rows = tableRows(out);
  expect(rows[0]).toEqual(['EVENT', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
  expect(rows.slice(1).map((r) => r.slice(0, 4).join(' '))).toEqual([
    'ADDED before 0/1 Pending',
    'ADDED during 0/1 Pending',
    'MODIFIED during 0/1 Pending',
    'DELETED during 0/1 Pending',
  ]);
});

test('get -w -o json streams the raw watch events', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const watch = k.spawn(['-n', ns, 'get', 'configmaps', '-w', '--output-watch-events', '-o', 'json']);
  const opened = k.watchCounter('configmaps', ns);
  let out = '';
  watch.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await opened.opened();
    await k.apply(ns, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: streamed}\ndata: {a: "1"}\n');
    await expect.poll(() => out, eventually).toContain('\n');
  } finally {
    watch.kill();
    await watch;
  }
  const event = JSON.parse(out.split('\n')[0]);
  expect(event).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'streamed', namespace: ns }, data: { a: '1' } } });
});
