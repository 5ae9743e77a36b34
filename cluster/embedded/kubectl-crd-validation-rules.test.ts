import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { upstreamManifests } from '../manifests/test-kit.ts';
import { KubectlFixture } from './test-kit.ts';

/**
 * CRD `x-kubernetes-validations` (CEL) with real kubectl: the transition rule Agent Sandbox
 * v0.5.3+ puts on `spec` to make `volumeClaimTemplates` immutable, in a CRD of the test's own and
 * in the real v0.5.4 CRD (from the manifest resolver), and a CRD refused for a rule that does
 * not compile.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

const IMMUTABLE_CLAIMS_RULE =
  'has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates) || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)';

const MODEL_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sandboxes.rules.example.com}
spec:
  group: rules.example.com
  names: {plural: sandboxes, singular: sandbox, kind: Sandbox, listKind: SandboxList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "${IMMUTABLE_CLAIMS_RULE}"
              message: volumeClaimTemplates is immutable
            properties:
              replicas:
                type: integer
                x-kubernetes-validations:
                - {rule: "self <= 1", messageExpression: "'replicas must be 0 or 1, not ' + string(self)"}
              volumeClaimTemplates:
                type: array
                items:
                  type: object
                  properties:
                    metadata: {type: object, properties: {name: {type: string}}}
                    spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

function sandbox(apiVersion: string, replicas: number, claims: string[] | undefined): string {
  const templates = claims ? `\n  volumeClaimTemplates:${claims.map((c) => `\n  - metadata: {name: ${c}}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`).join('')}` : '';
  return `apiVersion: ${apiVersion}\nkind: Sandbox\nmetadata: {name: sb}\nspec:\n  replicas: ${replicas}${templates}\n`;
}

test('volumeClaimTemplates is immutable: a change is refused, other changes pass', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['apply', '-f', '-'], { input: MODEL_CRD });
  await k.ok(['wait', '--for=condition=Established', 'crd/sandboxes.rules.example.com', '--timeout=30s']);
  const gv = 'rules.example.com/v1';
  expect(await k.apply(ns, sandbox(gv, 1, ['data']))).toBe('sandbox.rules.example.com/sb created');
  expect(await k.apply(ns, sandbox(gv, 0, ['data']))).toBe('sandbox.rules.example.com/sb configured');
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox(gv, 0, ['data', 'more']) })).toBe(
    'The Sandbox "sb" is invalid: spec: Invalid value: "object": volumeClaimTemplates is immutable',
  );
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox(gv, 0, undefined) })).toBe(
    'The Sandbox "sb" is invalid: spec: Invalid value: "object": volumeClaimTemplates is immutable',
  );
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox(gv, 3, ['data']) })).toBe(
    'The Sandbox "sb" is invalid: spec.replicas: Invalid value: "integer": replicas must be 0 or 1, not 3',
  );
  // A status write leaves spec alone; the transition rule does not stand in its way.
  expect(await k.ok(['-n', ns, 'patch', 'sandbox.rules.example.com', 'sb', '--subresource=status', '--type', 'merge', '-p', '{"status":{"phase":"Ready"}}'])).toBe(
    'sandbox.rules.example.com/sb patched',
  );
  await k.ok(['delete', 'crd', 'sandboxes.rules.example.com']);
});

test('a CRD whose rule does not compile is refused', async () => {
  const broken = MODEL_CRD.replace('sandboxes.rules.example.com', 'sandboxes.broken.example.com').replace('group: rules.example.com', 'group: broken.example.com').replace('"self <= 1"', '"self <= limit"');
  const stderr = await k.fails(['apply', '-f', '-'], { input: broken });
  expect(stderr).toMatch(
    /^The CustomResourceDefinition "sandboxes.broken.example.com" is invalid: spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].properties\[replicas\].x-kubernetes-validations\[0\].rule: Invalid value: apiextensions.ValidationRule\{Rule:"self <= limit", .*\}: compilation failed: ERROR: <input>:1:9: undeclared reference to 'limit' \(in container ''\)/,
  );
});

const upstream = upstreamManifests('v0.5.4');

/** The real Agent Sandbox CRD of the v0.5.4 release (through the manifest resolver). */
function upstreamSandboxCrd(): string {
  const file = upstream.paths['v0.5.4'];
  const crd = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .find((d) => d?.kind === 'CustomResourceDefinition' && d.metadata?.name === 'sandboxes.agents.x-k8s.io');
  if (!crd) throw new Error(`${file} has no sandboxes.agents.x-k8s.io CustomResourceDefinition`);
  return stringify(crd);
}

test('the real v0.5.4 Sandbox CRD: its volumeClaimTemplates rule holds', async ({}, testInfo) => {
  test.skip(!!upstream.missing, upstream.missing);
  const crd = upstreamSandboxCrd();
  const ns = await k.namespace(testInfo);
  await k.ok(['apply', '--server-side', '-f', '-'], { input: crd });
  await k.ok(['wait', '--for=condition=Established', 'crd/sandboxes.agents.x-k8s.io', '--timeout=30s']);
  const real = (claims: string[]) =>
    `apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata: {name: sb}\nspec:\n  podTemplate:\n    spec:\n      containers: [{name: main, image: busybox}]\n  volumeClaimTemplates:${claims
      .map((c) => `\n  - metadata: {name: ${c}}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`)
      .join('')}\n`;
  expect(await k.apply(ns, real(['data']))).toBe('sandbox.agents.x-k8s.io/sb created');
  expect(await k.ok(['-n', ns, 'label', 'sandbox.agents.x-k8s.io', 'sb', 'changed=yes'])).toBe('sandbox.agents.x-k8s.io/sb labeled');
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: real(['other']) })).toBe(
    'The Sandbox "sb" is invalid: spec: Invalid value: "object": volumeClaimTemplates is immutable',
  );
});
