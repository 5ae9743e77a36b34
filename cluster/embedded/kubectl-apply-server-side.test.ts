import { test, expect } from '@playwright/test';
import { KubectlFixture } from './test-kit.ts';

/**
 * `kubectl apply --server-side` with field ownership: managedFields per manager in FieldsV1,
 * round trips (apply, change, re-apply drops what the manager stopped applying), 409 conflicts
 * naming managers and fields as kube-apiserver words them, --force-conflicts, co-ownership, and
 * the Update entries that create/patch record for their managers.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

const configMap = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owned}\ndata: ${JSON.stringify(data)}\n`;

async function managed(ns: string, resource: string): Promise<{ object: any; fields: Record<string, unknown> }> {
  const object = JSON.parse(await k.ok(['-n', ns, 'get', resource, '-o', 'json', '--show-managed-fields']));
  const fields = Object.fromEntries((object.metadata.managedFields ?? []).map((e: any) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
  return { object, fields };
}

const ssa = (ns: string, manifest: string, ...flags: string[]) => k.run(['-n', ns, 'apply', '--server-side', ...flags, '-f', '-'], { input: manifest });

test('apply, change, re-apply: the manager owns exactly its configuration; a dropped field goes', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect((await ssa(ns, configMap({ a: '1', b: '2' }))).stdout).toBe('configmap/owned serverside-applied');
  expect((await managed(ns, 'configmap/owned')).fields).toEqual({ 'kubectl/Apply': { 'f:data': { 'f:a': {}, 'f:b': {} } } });
  expect((await ssa(ns, configMap({ a: '1', c: '3' }))).stdout).toBe('configmap/owned serverside-applied');
  const after = await managed(ns, 'configmap/owned');
  expect(after.object.data).toEqual({ a: '1', c: '3' });
  expect(after.fields).toEqual({ 'kubectl/Apply': { 'f:data': { 'f:a': {}, 'f:c': {} } } });
});

test('a second manager changing an owned field: 409 naming manager and field; --force-conflicts takes it over', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await ssa(ns, configMap({ a: '1', b: '2' }));
  const conflict = await ssa(ns, configMap({ a: '9' }), '--field-manager=other');
  expect(conflict.exitCode).toBe(1);
  expect(conflict.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "kubectl": .data.a');
  expect(conflict.stderr).toContain('--force-conflicts');
  expect((await managed(ns, 'configmap/owned')).object.data).toEqual({ a: '1', b: '2' });
  expect((await ssa(ns, configMap({ a: '9' }), '--field-manager=other', '--force-conflicts')).stdout).toBe('configmap/owned serverside-applied');
  const after = await managed(ns, 'configmap/owned');
  expect(after.object.data).toEqual({ a: '9', b: '2' });
  expect(after.fields).toEqual({ 'kubectl/Apply': { 'f:data': { 'f:b': {} } }, 'other/Apply': { 'f:data': { 'f:a': {} } } });
  // The same value is no conflict: both managers own the field.
  expect((await ssa(ns, configMap({ b: '2' }), '--field-manager=third')).exitCode).toBe(0);
  expect((await managed(ns, 'configmap/owned')).fields['third/Apply']).toEqual({ 'f:data': { 'f:b': {} } });
});

test('create and patch record Update entries; applying over a patched field conflicts with "kubectl-patch" using v1', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'configmap', 'owned', '--from-literal=a=1']);
  expect((await managed(ns, 'configmap/owned')).fields).toEqual({ 'kubectl-create/Update': { 'f:data': { 'f:a': {} } } });
  await k.ok(['-n', ns, 'patch', 'configmap', 'owned', '--type=merge', '-p', '{"data":{"a":"2","z":"26"}}']);
  expect((await managed(ns, 'configmap/owned')).fields).toEqual({ 'kubectl-patch/Update': { 'f:data': { 'f:a': {}, 'f:z': {} } } });
  const conflict = await ssa(ns, configMap({ a: '3', z: '0' }), '--field-manager=deployer');
  expect(conflict.stderr.split('\n').slice(0, 4)).toEqual(['error: Apply failed with 2 conflicts: conflicts with "kubectl-patch" using v1:', '- .data.a', '- .data.z', 'Please review the fields above--they currently have other managers. Here']);
});

test('keyed lists: a container is owned by its name, a conflict names it', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const deployment = (image: string, manager: string, replicas?: number) =>
    ssa(
      ns,
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  ${replicas === undefined ? '' : `replicas: ${replicas}`}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: "${image}"}
`,
      `--field-manager=${manager}`,
    );
  expect((await deployment('nginx:1.27', 'team-a', 2)).exitCode).toBe(0);
  const fields = (await managed(ns, 'deployment/web')).fields['team-a/Apply'] as any;
  expect(fields['f:spec']['f:template']['f:spec']['f:containers']).toEqual({ 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } });
  const conflict = await deployment('nginx:1.28', 'team-b');
  expect(conflict.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "team-a": .spec.template.spec.containers[name="web"].image');
  // Scaling through kubectl scale (an Update of spec.replicas) takes replicas from team-a.
  await k.ok(['-n', ns, 'scale', 'deployment', 'web', '--replicas=5']);
  const moved = await managed(ns, 'deployment/web');
  expect(moved.object.spec.replicas).toBe(5);
  expect((moved.fields['team-a/Apply'] as any)['f:spec']['f:replicas']).toBeUndefined();
});

test('a custom resource round trip with server-side apply', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const group = `${ns}.example.com`;
  await k.apply(ns, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: knobs.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: knobs, singular: knob, kind: Knob}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}}
`);
  await k.ok(['wait', '--for=condition=Established', `crd/knobs.${group}`, '--timeout=20s']);
  const knob = (spec: Record<string, unknown>) => `apiVersion: ${group}/v1\nkind: Knob\nmetadata: {name: k1}\nspec: ${JSON.stringify(spec)}\n`;
  expect((await ssa(ns, knob({ level: 1, mode: 'on' }))).stdout).toBe(`knob.${group}/k1 serverside-applied`);
  expect((await ssa(ns, knob({ level: 2 }))).exitCode).toBe(0);
  const after = await managed(ns, `knobs.${group}/k1`);
  expect(after.object.spec).toEqual({ level: 2 });
  expect(after.object.metadata.generation).toBe(2);
  expect((await ssa(ns, knob({ level: 3 }), '--field-manager=other')).stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.level');
});
