import { test, expect } from '@playwright/test';
import { upstreamManifests } from '../manifests/test-kit.ts';
import { KubectlFixture, tableRows } from './test-kit.ts';

/**
 * Upgrading Agent Sandbox with kubectl: the real v0.4.6 manifest (v1alpha1 only), a Sandbox
 * stored under it, then the v0.5.0 manifest applied over it (v1beta1 becomes the storage
 * version, converted by the webhook). Serial: each step builds on the one before.
 */

test.describe.configure({ mode: 'serial' });
const upstream = upstreamManifests('v0.4.6', 'v0.5.0');
test.skip(!!upstream.missing, upstream.missing);
const k = KubectlFixture.register();

const V046 = upstream.paths['v0.4.6'];
const V050 = upstream.paths['v0.5.0'];
const CRD = 'crd/sandboxes.agents.x-k8s.io';
const CRD_MET = 'customresourcedefinition.apiextensions.k8s.io/sandboxes.agents.x-k8s.io condition met';
const DEPRECATION = 'Warning: agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead';
let ns = '';

test('v0.4.6 applies: v1alpha1 is the only version', async ({}, testInfo) => {
  const out = await k.ok(['apply', '-f', V046]);
  expect(out).toContain('customresourcedefinition.apiextensions.k8s.io/sandboxes.agents.x-k8s.io created');
  expect(out).toContain('deployment.apps/agent-sandbox-controller created');
  expect(await k.ok(['wait', '--for=condition=Established', CRD, '--timeout=20s'])).toBe(CRD_MET);
  expect(await k.ok(['get', CRD, '-o', 'jsonpath={.spec.versions[*].name} {.status.storedVersions}'])).toBe('v1alpha1 ["v1alpha1"]');

  ns = await k.namespace(testInfo);
  const created = await k.run(['-n', ns, 'apply', '-f', '-'], {
    input: 'apiVersion: agents.x-k8s.io/v1alpha1\nkind: Sandbox\nmetadata: {name: old}\nspec:\n  replicas: 0\n  podTemplate:\n    spec:\n      containers: [{name: main, image: "busybox:1.36"}]\n',
  });
  expect(created.stdout).toBe('sandbox.agents.x-k8s.io/old created');
  // Not deprecated yet in v0.4.6.
  expect(created.stderr).toBe('');
  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'old', '-o', 'jsonpath={.apiVersion} {.spec.replicas}'])).toBe('agents.x-k8s.io/v1alpha1 0');
});

test('v0.5.0 applies over v0.4.6 and the stored v1alpha1 Sandbox reads through v1beta1', async () => {
  const out = (await k.ok(['apply', '-f', V050])).split('\n');
  expect(out).toContain('customresourcedefinition.apiextensions.k8s.io/sandboxes.agents.x-k8s.io configured');
  expect(out).toContain('deployment.apps/agent-sandbox-controller configured');
  expect(out).toContain('service/agent-sandbox-webhook-service created');
  expect(out).toContain('namespace/agent-sandbox-system unchanged');
  expect(await k.ok(['wait', '--for=condition=Established', CRD, '--timeout=20s'])).toBe(CRD_MET);
  expect(await k.ok(['get', CRD, '-o', 'jsonpath={.spec.versions[*].name} {.status.storedVersions}'])).toBe('v1beta1 v1alpha1 ["v1alpha1","v1beta1"]');
  expect(tableRows(await k.ok(['api-resources', '--api-group=agents.x-k8s.io']))[1]).toEqual(['sandboxes', 'sandbox', 'agents.x-k8s.io/v1beta1', 'true', 'Sandbox']);

  expect(await k.ok(['-n', ns, 'get', 'sandbox', 'old', '-o', 'jsonpath={.apiVersion} {.spec.operatingMode}'])).toBe('agents.x-k8s.io/v1beta1 Suspended');
  const alpha = await k.run(['-n', ns, 'get', 'sandboxes.v1alpha1.agents.x-k8s.io', 'old', '-o', 'jsonpath={.spec.replicas}']);
  expect(alpha.stdout).toBe('0');
  expect(alpha.stderr).toBe(DEPRECATION);
  // The v1alpha1 schema now served refuses what v0.4.6 also refused.
  const two = await k.fails(['-n', ns, 'patch', 'sandboxes.v1alpha1.agents.x-k8s.io', 'old', '--type', 'merge', '-p', '{"spec":{"replicas":2}}']);
  expect(two).toContain('spec.replicas: Invalid value: 2: spec.replicas in body should be less than or equal to 1');
  // And applying v0.5.0 again is a no-op.
  expect((await k.ok(['apply', '-f', V050])).split('\n').every((line) => line.endsWith(' unchanged'))).toBe(true);
});
