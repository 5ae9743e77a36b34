import { test, expect } from '@playwright/test';
import { KubectlFixture, podManifest, tableRows } from './test-kit.ts';

/**
 * Real kubectl writing to the embedded cluster: create, client-side and server-side apply,
 * the three patch types, label/annotate, delete (graceful, forced, waited), kubectl wait,
 * and the clear refusals (exec and logs without a node agent).
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

function configMap(name: string, data: Record<string, string> = {}): string {
  const entries = Object.entries(data).map(([key, value]) => `\n  ${key}: "${value}"`).join('');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:${entries || ' {}'}\n`;
}

/** Binds a Pod to a node through the pods/binding subresource, as the scheduler does (`kubectl create --raw`). */
async function bind(ns: string, pod: string, node = 'node-1'): Promise<void> {
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod }, target: { kind: 'Node', name: node } };
  const out = await k.ok(['create', '--raw', `/api/v1/namespaces/${ns}/pods/${pod}/binding`, '-f', '-'], { input: JSON.stringify(binding) });
  expect(JSON.parse(out)).toMatchObject({ kind: 'Status', status: 'Success' });
}

async function json(ns: string, ...args: string[]): Promise<any> {
  return JSON.parse(await k.ok(['-n', ns, 'get', ...args, '-o', 'json']));
}

test('create -f creates; creating it again is AlreadyExists', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.ok(['-n', ns, 'create', '-f', '-'], { input: configMap('cm1', { a: '1' }) })).toBe('configmap/cm1 created');
  expect(await k.ok(['-n', ns, 'create', '-f', '-'], { input: podManifest('p1') })).toBe('pod/p1 created');
  expect((await json(ns, 'configmap', 'cm1')).data).toEqual({ a: '1' });
  const again = await k.fails(['-n', ns, 'create', '-f', '-'], { input: configMap('cm1', { a: '2' }) });
  expect(again).toBe('Error from server (AlreadyExists): error when creating "STDIN": configmaps "cm1" already exists');
});

test('an invalid name is refused as Invalid with the metadata.name cause', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const stderr = await k.fails(['-n', ns, 'create', '-f', '-'], { input: configMap('Bad_Name') });
  expect(stderr).toMatch(/^The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
  const pod = await k.fails(['-n', ns, 'create', '-f', '-'], { input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: empty}\nspec: {containers: []}\n' });
  expect(pod).toBe('The Pod "empty" is invalid: spec.containers: Required value');
});

test('apply -f (client-side): created, then configured, then unchanged', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.apply(ns, configMap('cfg', { a: '1' }))).toBe('configmap/cfg created');
  expect(await k.apply(ns, configMap('cfg', { a: '1', b: '2' }))).toBe('configmap/cfg configured');
  expect(await k.apply(ns, configMap('cfg', { a: '1', b: '2' }))).toBe('configmap/cfg unchanged');
  // Removing a key from the manifest removes it from the object (three-way merge with last-applied).
  expect(await k.apply(ns, configMap('cfg', { b: '2' }))).toBe('configmap/cfg configured');
  const cm = await json(ns, 'configmap', 'cfg');
  expect(cm.data).toEqual({ b: '2' });
  expect(JSON.parse(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'])).toMatchObject({ data: { b: '2' } });
});

test('apply --server-side: creates, updates, and records the kubectl field manager', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const ssa = (manifest: string) => k.ok(['-n', ns, 'apply', '--server-side', '-f', '-'], { input: manifest });
  expect(await ssa(configMap('ssa', { a: '1' }))).toBe('configmap/ssa serverside-applied');
  expect(await ssa(configMap('ssa', { a: '2' }))).toBe('configmap/ssa serverside-applied');
  const cm = JSON.parse(await k.ok(['-n', ns, 'get', 'configmap', 'ssa', '-o', 'json', '--show-managed-fields']));
  expect(cm.data).toEqual({ a: '2' });
  expect(cm.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
  expect(cm.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } }));
  expect(await k.ok(['-n', ns, 'apply', '--server-side', '--field-manager=me', '-f', '-'], { input: podManifest('ssa-pod') })).toBe('pod/ssa-pod serverside-applied');
  expect((await json(ns, 'pod', 'ssa-pod')).status.phase).toBe('Pending');
});

test('patch --type merge and --type json', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, configMap('cm', { a: '1', b: '2' }));
  expect(await k.ok(['-n', ns, 'patch', 'configmap', 'cm', '--type', 'merge', '-p', '{"data":{"z":"9","b":null}}'])).toBe('configmap/cm patched');
  expect(await k.ok(['-n', ns, 'patch', 'configmap', 'cm', '--type', 'json', '-p', '[{"op":"add","path":"/data/y","value":"8"},{"op":"replace","path":"/data/a","value":"10"}]'])).toBe(
    'configmap/cm patched',
  );
  expect((await json(ns, 'configmap', 'cm')).data).toEqual({ a: '10', y: '8', z: '9' });
  expect(await k.ok(['-n', ns, 'patch', 'configmap', 'cm', '--type', 'merge', '-p', '{"data":{"z":"9"}}'])).toBe('configmap/cm patched (no change)');
  const failed = await k.fails(['-n', ns, 'patch', 'configmap', 'cm', '--type', 'json', '-p', '[{"op":"test","path":"/data/a","value":"nope"}]']);
  expect(failed).toContain('The request is invalid');
  expect(await k.fails(['-n', ns, 'patch', 'configmap', 'missing', '--type', 'merge', '-p', '{}'])).toBe('Error from server (NotFound): configmaps "missing" not found');
});

test('patch (strategic, the default) merges containers and env by name', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(
    ns,
    `apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers:
  - {name: main, image: "busybox:1.36", env: [{name: A, value: "1"}, {name: B, value: "2"}]}
  - {name: side, image: "busybox:1.36"}
`,
  );
  // A Pod's container image may change; the other container is untouched (merge by name, not replace).
  expect(await k.ok(['-n', ns, 'patch', 'pod', 'two', '-p', '{"spec":{"containers":[{"name":"side","image":"busybox:1.37"}]}}'])).toBe('pod/two patched');
  const pod = await json(ns, 'pod', 'two');
  expect(pod.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['main=busybox:1.36', 'side=busybox:1.37']);
  expect(pod.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
  // Env is immutable on a Pod, as on a real cluster.
  const envOnPod = await k.fails(['-n', ns, 'patch', 'pod', 'two', '-p', '{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"22"}]}]}}']);
  expect(envOnPod).toMatch(/^The Pod "two" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\]\.image`/);

  // In a Deployment's Pod template, env merges by name: B replaced, C added, A kept.
  await k.apply(
    ns,
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: main, image: "nginx:1.25", env: [{name: A, value: "1"}, {name: B, value: "2"}]}
      - {name: side, image: "busybox:1.36"}
`,
  );
  const envPatch = '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"nginx:1.26","env":[{"name":"B","value":"22"},{"name":"C","value":"3"}]}]}}}}';
  expect(await k.ok(['-n', ns, 'patch', 'deployment', 'web', '-p', envPatch])).toBe('deployment.apps/web patched');
  const containers = (await json(ns, 'deployment', 'web')).spec.template.spec.containers;
  expect(containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['main=nginx:1.26', 'side=busybox:1.36']);
  expect(containers[0].env).toEqual([
    { name: 'A', value: '1' },
    { name: 'B', value: '22' },
    { name: 'C', value: '3' },
  ]);
  // $patch: delete removes one list item by its merge key.
  expect(await k.ok(['-n', ns, 'patch', 'deployment', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}'])).toBe(
    'deployment.apps/web patched',
  );
  expect((await json(ns, 'deployment', 'web')).spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['main']);
});

test('label, annotate and label --overwrite', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('p', { labels: { app: 'web' } }));
  expect(await k.ok(['-n', ns, 'label', 'pod', 'p', 'color=red'])).toBe('pod/p labeled');
  expect(await k.fails(['-n', ns, 'label', 'pod', 'p', 'color=blue'])).toBe("error: 'color' already has a value (red), and --overwrite is false");
  expect(await k.ok(['-n', ns, 'label', 'pod', 'p', 'color=blue', '--overwrite'])).toBe('pod/p labeled');
  expect(await k.ok(['-n', ns, 'annotate', 'pod', 'p', 'note=hello world'])).toBe('pod/p annotated');
  expect((await k.run(['-n', ns, 'label', 'pod', 'p', 'app-'])).stdout).toBe('pod/p unlabeled');
  const pod = await json(ns, 'pod', 'p');
  expect(pod.metadata.labels).toEqual({ color: 'blue' });
  expect(pod.metadata.annotations.note).toBe('hello world');
  expect(await k.ok(['-n', ns, 'get', 'pods', '-l', 'color=blue', '-o', 'name'])).toBe('pod/p');
});

test('delete waits by default, and --grace-period=0 --force deletes at once', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, [configMap('cm'), podManifest('p1'), podManifest('p2')].join('---\n'));
  expect(await k.ok(['-n', ns, 'delete', 'configmap', 'cm'])).toBe('configmap "cm" deleted');
  expect(await k.ok(['-n', ns, 'delete', 'pod', 'p1'])).toBe('pod "p1" deleted');
  const forced = await k.run(['-n', ns, 'delete', 'pod', 'p2', '--grace-period=0', '--force']);
  expect(forced.exitCode).toBe(0);
  expect(forced.stdout).toBe('pod "p2" force deleted');
  expect(forced.stderr).toContain('Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated.');
  expect((await k.run(['-n', ns, 'get', 'pods'])).stderr).toBe(`No resources found in ${ns} namespace.`);
  expect(await k.fails(['-n', ns, 'delete', 'pod', 'p1'])).toBe('Error from server (NotFound): pods "p1" not found');
});

test('a Pod bound to a node stays Terminating after a graceful delete until it is force deleted', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('x'));
  await bind(ns, 'x');
  expect(await k.ok(['-n', ns, 'get', 'pod', 'x', '-o', 'jsonpath={.spec.nodeName}'])).toBe('node-1');
  expect(await k.ok(['-n', ns, 'delete', 'pod', 'x', '--grace-period=5', '--wait=false'])).toBe('pod "x" deleted');
  // No node agent confirms the containers stopped, so the Pod stays with its deletion mark.
  expect(await k.ok(['-n', ns, 'get', 'pod', 'x', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(await k.ok(['-n', ns, 'get', 'pod', 'x', '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'])).toBe('5');
  expect(tableRows(await k.ok(['-n', ns, 'get', 'pod', 'x']))[1].slice(0, 3)).toEqual(['x', '0/1', 'Terminating']);
  expect(await k.ok(['-n', ns, 'delete', 'pod', 'x', '--grace-period=0', '--force'])).toBe('pod "x" force deleted');
  expect(await k.fails(['-n', ns, 'get', 'pod', 'x'])).toBe('Error from server (NotFound): pods "x" not found');
});

test('wait --for=delete returns once another client deletes the Pod', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('x'));
  await bind(ns, 'x');
  const watching = k.watchCounter('pods', ns);
  const wait = k.spawn(['-n', ns, 'wait', '--for=delete', 'pod/x', '--timeout=20s']);
  await watching.opened();
  // A graceful delete from another kubectl only marks the Pod (MODIFIED); the wait goes on.
  await k.ok(['-n', ns, 'delete', 'pod', 'x', '--grace-period=30', '--wait=false']);
  // Then the in-process API removes it, as the node agent's final delete would.
  k.cluster.api.delete(k.cluster.api.target('v1', 'pods', ns), 'x', { gracePeriodSeconds: 0 });
  const result = await wait;
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toBe('pod/x condition met');
});

test('wait --for=jsonpath and --for=condition, met later or timing out', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('x'));
  expect(await k.ok(['-n', ns, 'wait', '--for=jsonpath={.status.phase}=Pending', 'pod/x', '--timeout=20s'])).toBe('pod/x condition met');

  const watching = k.watchCounter('pods', ns);
  const wait = k.spawn(['-n', ns, 'wait', '--for=jsonpath={.metadata.labels.ready}=yes', 'pod/x', '--timeout=20s']);
  await watching.opened();
  await k.ok(['-n', ns, 'label', 'pod', 'x', 'ready=yes']);
  const result = await wait;
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toBe('pod/x condition met');

  await bind(ns, 'x');
  expect(await k.ok(['-n', ns, 'wait', '--for=condition=PodScheduled', 'pod/x', '--timeout=20s'])).toBe('pod/x condition met');
  const timedOut = await k.fails(['-n', ns, 'wait', '--for=condition=Ready', 'pod/x', '--timeout=1s']);
  expect(timedOut).toBe('error: timed out waiting for the condition on pods/x');
});

test('exec and logs fail clearly while no node agent runs', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, podManifest('x'));
  expect(await k.fails(['-n', ns, 'logs', 'x'])).toBe('Error from server (BadRequest): pod x does not have a host assigned');
  await bind(ns, 'x');
  const logs = await k.fails(['-n', ns, 'logs', 'x']);
  expect(logs).toContain('no node agent');
  const exec = await k.run(['-n', ns, 'exec', 'x', '--', 'echo', 'hi']);
  expect(exec.exitCode).not.toBe(0);
  expect(exec.stdout).toBe('');
  expect(exec.stderr).toContain('no node agent');
  expect(await k.fails(['-n', ns, 'exec', 'nope', '--', 'echo', 'hi'])).toBe('Error from server (NotFound): pods "nope" not found');
});
