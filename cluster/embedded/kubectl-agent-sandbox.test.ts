import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { upstreamManifests } from '../manifests/test-kit.ts';
import { KubectlFixture, tableRows } from './test-kit.ts';

/**
 * The real upstream Agent Sandbox v0.5.0 manifest, installed with `kubectl apply -f` on a fresh
 * embedded cluster, and its Sandbox CRD at work through kubectl: schema validation per version,
 * v1alpha1 <-> v1beta1 conversion, the v1alpha1 deprecation warning, patch types on a CRD.
 * Serial: the later tests use the CRD the first one installs.
 */

test.describe.configure({ mode: 'serial' });
const upstream = upstreamManifests('v0.5.0');
test.skip(!!upstream.missing, upstream.missing);
const k = KubectlFixture.register();

const MANIFEST = upstream.paths['v0.5.0'];

/**
 * The objects of the v0.5.0 release asset, in the asset's own order (the release script joins
 * controller.yaml, the CRD, then the generated RBAC): kubectl applies and reports them in this
 * order. The first test checks this list against the file itself.
 */
const V050_OBJECTS = [
  'namespace/agent-sandbox-system',
  'serviceaccount/agent-sandbox-controller',
  'clusterrolebinding.rbac.authorization.k8s.io/agent-sandbox-controller',
  'role.rbac.authorization.k8s.io/agent-sandbox-controller',
  'rolebinding.rbac.authorization.k8s.io/agent-sandbox-controller',
  'service/agent-sandbox-controller',
  'deployment.apps/agent-sandbox-controller',
  'service/agent-sandbox-webhook-service',
  'customresourcedefinition.apiextensions.k8s.io/sandboxes.agents.x-k8s.io',
  'clusterrole.rbac.authorization.k8s.io/agent-sandbox-controller',
];

/** `kind.group/name` of each object in a manifest file, in file order (how kubectl names them). */
function objectsIn(file: string): string[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as { apiVersion: string; kind: string; metadata: { name: string } } | null)
    .filter((o) => o !== null)
    .map((o) => {
      const group = o.apiVersion.includes('/') ? `.${o.apiVersion.split('/')[0]}` : '';
      return `${o.kind.toLowerCase()}${group}/${o.metadata.name}`;
    });
}
const CRD = 'crd/sandboxes.agents.x-k8s.io';
const DEPRECATION = 'Warning: agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead';

function sandbox(version: 'v1alpha1' | 'v1beta1', name: string, spec: string): string {
  return `apiVersion: agents.x-k8s.io/${version}
kind: Sandbox
metadata:
  name: ${name}
spec:
${spec}`;
}

const POD_TEMPLATE = `  podTemplate:
    spec:
      containers:
      - name: main
        image: busybox:1.36
`;

test('the v0.5.0 manifest applies and the Sandbox CRD becomes Established', async () => {
  expect(objectsIn(MANIFEST)).toEqual(V050_OBJECTS);
  const out = await k.ok(['apply', '-f', MANIFEST]);
  expect(out.split('\n')).toEqual(V050_OBJECTS.map((object) => `${object} created`));
  expect(await k.ok(['wait', '--for=condition=Established', CRD, '--timeout=20s'])).toBe('customresourcedefinition.apiextensions.k8s.io/sandboxes.agents.x-k8s.io condition met');
  expect(await k.ok(['get', CRD, '-o', 'jsonpath={.status.acceptedNames.kind} {.status.storedVersions}'])).toBe('Sandbox ["v1beta1"]');
  const resources = tableRows(await k.ok(['api-resources', '--api-group=agents.x-k8s.io']));
  expect(resources[1]).toEqual(['sandboxes', 'sandbox', 'agents.x-k8s.io/v1beta1', 'true', 'Sandbox']);
  // Applying the same manifest again changes nothing.
  expect((await k.ok(['apply', '-f', MANIFEST])).split('\n').every((line) => line.endsWith(' unchanged'))).toBe(true);
});

test('v1alpha1 refuses spec.replicas: 2 (maximum 1)', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const stderr = await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox('v1alpha1', 'two', `  replicas: 2\n${POD_TEMPLATE}`) });
  expect(stderr).toContain(DEPRECATION);
  expect(stderr).toContain('The Sandbox "two" is invalid: spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1');
});

test('v1beta1 refuses spec.operatingMode: Paused and a missing podTemplate', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const paused = await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox('v1beta1', 'paused', `  operatingMode: Paused\n${POD_TEMPLATE}`) });
  expect(paused).toBe('The Sandbox "paused" is invalid: spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"');
  const bare = await k.fails(['-n', ns, 'create', '-f', '-'], { input: sandbox('v1beta1', 'bare', '  operatingMode: Running\n') });
  expect(bare).toBe('The Sandbox "bare" is invalid: spec.podTemplate: Required value');
  const alpha = await k.fails(['-n', ns, 'create', '-f', '-'], { input: sandbox('v1alpha1', 'bare', '  replicas: 1\n') });
  expect(alpha).toContain('The Sandbox "bare" is invalid: spec.podTemplate: Required value');
  expect((await k.run(['-n', ns, 'get', 'sandboxes'])).stderr).toBe(`No resources found in ${ns} namespace.`);
});

test('a v1alpha1 write (replicas: 0) reads back through v1beta1 as Suspended, with the deprecation warning only on v1alpha1', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const created = await k.run(['-n', ns, 'apply', '-f', '-'], { input: sandbox('v1alpha1', 'sb', `  replicas: 0\n${POD_TEMPLATE}`) });
  expect(created.exitCode).toBe(0);
  expect(created.stdout).toBe('sandbox.agents.x-k8s.io/sb created');
  expect(created.stderr).toBe(DEPRECATION);

  const beta = await k.run(['-n', ns, 'get', 'sandboxes.v1beta1.agents.x-k8s.io', 'sb', '-o', 'json']);
  expect(beta.stderr).toBe('');
  expect(JSON.parse(beta.stdout)).toMatchObject({ apiVersion: 'agents.x-k8s.io/v1beta1', spec: { operatingMode: 'Suspended' } });
  expect(JSON.parse(beta.stdout).spec.replicas).toBeUndefined();

  const alpha = await k.run(['-n', ns, 'get', 'sandboxes.v1alpha1.agents.x-k8s.io', 'sb', '-o', 'jsonpath={.apiVersion} {.spec.replicas}']);
  expect(alpha.stdout).toBe('agents.x-k8s.io/v1alpha1 0');
  expect(alpha.stderr).toBe(DEPRECATION);

  // The short forms resolve to the preferred version, v1beta1.
  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'sb', '-o', 'jsonpath={.apiVersion} {.spec.operatingMode}'])).toBe('agents.x-k8s.io/v1beta1 Suspended');
  expect(tableRows(await k.ok(['-n', ns, 'get', 'sandboxes']))).toEqual([
    ['NAME', 'AGE'],
    ['sb', expect.stringMatching(/^\d+s$/)],
  ]);
});

test('patching a Sandbox: merge and json patches work, strategic merge gets kubectl\'s 415 message', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, sandbox('v1beta1', 'sb', POD_TEMPLATE));
  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'sb', '-o', 'jsonpath={.spec.operatingMode}'])).toBe('Running');

  const strategic = await k.fails(['-n', ns, 'patch', 'sandbox', 'sb', '-p', '{"spec":{"operatingMode":"Suspended"}}']);
  expect(strategic).toBe(
    'error: application/strategic-merge-patch+json is not supported by agents.x-k8s.io/v1beta1, Kind=Sandbox: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );

  expect(await k.ok(['-n', ns, 'patch', 'sandbox', 'sb', '--type', 'merge', '-p', '{"spec":{"operatingMode":"Suspended"}}'])).toBe('sandbox.agents.x-k8s.io/sb patched');
  expect(await k.ok(['-n', ns, 'get', 'sandboxes.v1alpha1.agents.x-k8s.io', 'sb', '-o', 'jsonpath={.spec.replicas}'])).toBe('0');
  const invalid = await k.fails(['-n', ns, 'patch', 'sandbox', 'sb', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/operatingMode","value":"Paused"}]']);
  expect(invalid).toContain('spec.operatingMode: Unsupported value: "Paused"');
  expect(await k.ok(['-n', ns, 'patch', 'sandbox', 'sb', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/operatingMode","value":"Running"}]'])).toBe(
    'sandbox.agents.x-k8s.io/sb patched',
  );
  expect(await k.ok(['-n', ns, 'label', 'sandbox', 'sb', 'team=a'])).toBe('sandbox.agents.x-k8s.io/sb labeled');
  expect(await k.ok(['-n', ns, 'get', 'sandbox', '-l', 'team=a', '-o', 'jsonpath={.items[*].spec.operatingMode}'])).toBe('Running');
});

test('apply -f of a changed Sandbox uses a merge patch; scale works through v1alpha1', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.apply(ns, sandbox('v1beta1', 'sb', POD_TEMPLATE))).toBe('sandbox.agents.x-k8s.io/sb created');
  expect(await k.apply(ns, sandbox('v1beta1', 'sb', `  operatingMode: Suspended\n${POD_TEMPLATE}`))).toBe('sandbox.agents.x-k8s.io/sb configured');
  expect(await k.apply(ns, sandbox('v1beta1', 'sb', `  operatingMode: Suspended\n${POD_TEMPLATE}`))).toBe('sandbox.agents.x-k8s.io/sb unchanged');
  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'sb', '-o', 'jsonpath={.spec.operatingMode}'])).toBe('Suspended');
  const scaled = await k.run(['-n', ns, 'scale', 'sandboxes.v1alpha1.agents.x-k8s.io/sb', '--replicas=1']);
  expect(scaled.stdout).toBe('sandbox.agents.x-k8s.io/sb scaled');
  expect(scaled.stderr).toBe(DEPRECATION);
  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'sb', '-o', 'jsonpath={.spec.operatingMode}'])).toBe('Running');
  expect(await k.ok(['-n', ns, 'delete', 'sandbox', 'sb'])).toBe('sandbox.agents.x-k8s.io "sb" deleted');
});
