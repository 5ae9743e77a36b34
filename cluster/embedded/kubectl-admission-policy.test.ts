import { expect, test } from '@playwright/test';
import { KubectlFixture, podManifest, tableRows } from './test-kit.ts';

/**
 * ValidatingAdmissionPolicy with real kubectl: the policy and binding that deny the deletion of
 * one Secret (the fault the conformance harness injects on every cluster), the real error
 * output and exit code, Warn as a kubectl warning line, custom resources and status
 * subresources, failure policies, and policies refused for expressions that do not compile.
 * Policies are cluster-wide, so each test scopes its own to its namespace.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

/** Denies the deletion of exactly one Secret, by namespace and name; works as is on Kubernetes 1.30+. */
function denySecretDeletion(name: string, namespace: string, secret: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["secrets"]
  matchConditions:
  - name: the-one-secret
    expression: oldObject.metadata.namespace == "${namespace}" && oldObject.metadata.name == "${secret}"
  validations:
  - expression: "false"
    reason: Forbidden
    message: "conformance fault: deleting Secret ${namespace}/${secret} is denied"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${name}
  validationActions: [Deny]
`;
}

/** A policy + binding (same name) over `rules`, bound only in `namespace`. */
function scopedPolicy(name: string, namespace: string, body: string, actions = '[Deny]'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
${body}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${name}
  validationActions: ${actions}
  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: ${namespace}}
`;
}

const secret = (name: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}}\nstringData: {token: x}\n`;

async function removePolicy(name: string): Promise<void> {
  await k.ok(['delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', name]);
}

test('deleting the one Secret fails with the real message and exit 1; others delete; without the binding it deletes', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.apply(ns, [secret('that-one'), secret('another')].join('---\n'));
  expect(await k.ok(['apply', '-f', '-'], { input: denySecretDeletion('fault-secret', ns, 'that-one') })).toBe(
    'validatingadmissionpolicy.admissionregistration.k8s.io/fault-secret created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/fault-secret created',
  );
  const denied = `Error from server (Forbidden): secrets "that-one" is forbidden: ValidatingAdmissionPolicy 'fault-secret' with binding 'fault-secret' denied request: conformance fault: deleting Secret ${ns}/that-one is denied`;
  expect(await k.fails(['-n', ns, 'delete', 'secret', 'that-one'])).toBe(denied);
  // A server-side dry run meets the same admission: a readiness probe for the fault on any cluster.
  expect(await k.fails(['-n', ns, 'delete', 'secret', 'that-one', '--dry-run=server'])).toBe(denied);
  expect(await k.ok(['-n', ns, 'delete', 'secret', 'another'])).toBe('secret "another" deleted');

  const rows = tableRows(await k.ok(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings', 'fault-secret']));
  expect(rows.map((r) => r.slice(0, -1))).toEqual([
    ['NAME', 'VALIDATIONS', 'PARAMKIND'],
    ['validatingadmissionpolicy.admissionregistration.k8s.io/fault-secret', '1', '<unset>'],
    ['NAME', 'POLICYNAME', 'PARAMREF'],
    ['validatingadmissionpolicybinding.admissionregistration.k8s.io/fault-secret', 'fault-secret', '<unset>'],
  ]);
  const policy = JSON.parse(await k.ok(['get', 'validatingadmissionpolicy', 'fault-secret', '-o', 'json']));
  expect(policy.status).toEqual({ observedGeneration: 1 });

  await k.ok(['delete', 'validatingadmissionpolicybinding', 'fault-secret']);
  expect(await k.ok(['-n', ns, 'delete', 'secret', 'that-one'])).toBe('secret "that-one" deleted');
  await k.ok(['delete', 'validatingadmissionpolicy', 'fault-secret']);
});

test('without a reason a denial is Invalid (422), which kubectl prints as "is invalid"', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['apply', '-f', '-'], {
    input: scopedPolicy(
      'no-big-configmaps',
      ns,
      `  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data) || size(object.data) <= 1"
    messageExpression: "'at most one key, got ' + string(size(object.data))"`,
    ),
  });
  await k.apply(ns, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: small}\ndata: {a: "1"}\n');
  const stderr = await k.fails(['-n', ns, 'apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: "1", b: "2"}\n' });
  expect(stderr).toBe(
    `The configmaps "big" is invalid: : ValidatingAdmissionPolicy 'no-big-configmaps' with binding 'no-big-configmaps' denied request: at most one key, got 2`,
  );
  await removePolicy('no-big-configmaps');
});

test('the Warn action lets the request through with a kubectl warning line', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['apply', '-f', '-'], {
    input: scopedPolicy(
      'warn-unlabelled',
      ns,
      `  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, DELETE], resources: [secrets]}
  validations:
  - expression: "has((request.operation == 'DELETE' ? oldObject : object).metadata.labels)"
    message: Secrets should carry labels`,
      '[Warn]',
    ),
  });
  const created = await k.run(['-n', ns, 'apply', '-f', '-'], { input: secret('unlabelled') });
  expect(created.exitCode).toBe(0);
  expect(created.stderr.trim()).toBe(`Warning: Validation failed for ValidatingAdmissionPolicy 'warn-unlabelled' with binding 'warn-unlabelled': Secrets should carry labels`);
  const deleted = await k.run(['-n', ns, 'delete', 'secret', 'unlabelled']);
  expect([deleted.exitCode, deleted.stdout.trim(), deleted.stderr.trim()]).toEqual([0, 'secret "unlabelled" deleted', expect.stringContaining("Warning: Validation failed for ValidatingAdmissionPolicy 'warn-unlabelled'")]);
  await removePolicy('warn-unlabelled');
});

test('custom resources and status subresources: sandboxes and pods/status', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['apply', '-f', '-'], {
    input: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sandboxes.policy.example.com}
spec:
  group: policy.example.com
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
          spec: {type: object, properties: {mode: {type: string}}}
          status: {type: object, properties: {phase: {type: string}}}
`,
  });
  await k.ok(['wait', '--for=condition=Established', 'crd/sandboxes.policy.example.com', '--timeout=30s']);
  await k.ok(['apply', '-f', '-'], {
    input: scopedPolicy(
      'sandbox-rules',
      ns,
      `  matchConstraints:
    resourceRules:
    - {apiGroups: [policy.example.com], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: [sandboxes, sandboxes/status]}
    - {apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods/status]}
  # request.subResource is absent (not "") on the resource itself, as AdmissionRequest's omitempty leaves it.
  validations:
  - expression: "request.resource.resource != 'sandboxes' || has(request.subResource) || object.spec.mode != 'Forbidden'"
    message: sandbox mode Forbidden is not allowed
  - expression: "!has(request.subResource) || !has(object.status.phase) || object.status.phase != 'Broken'"
    messageExpression: "request.resource.resource + '/' + request.subResource + ' may not become Broken'"`,
    ),
  });
  const sandbox = (mode: string) => `apiVersion: policy.example.com/v1\nkind: Sandbox\nmetadata: {name: sb}\nspec: {mode: ${mode}}\n`;
  expect(await k.apply(ns, sandbox('Running'))).toBe('sandbox.policy.example.com/sb created');
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: sandbox('Forbidden') })).toBe(
    `The sandboxes "sb" is invalid: : ValidatingAdmissionPolicy 'sandbox-rules' with binding 'sandbox-rules' denied request: sandbox mode Forbidden is not allowed`,
  );
  const patchStatus = (kind: string, name: string, phase: string) => k.run(['-n', ns, 'patch', kind, name, '--subresource=status', '--type', 'merge', '-p', JSON.stringify({ status: { phase } })]);
  expect((await patchStatus('sandbox', 'sb', 'Ready')).exitCode).toBe(0);
  expect((await patchStatus('sandbox', 'sb', 'Broken')).stderr.trim()).toBe(
    `The sandboxes "sb" is invalid: : ValidatingAdmissionPolicy 'sandbox-rules' with binding 'sandbox-rules' denied request: sandboxes/status may not become Broken`,
  );
  await k.apply(ns, podManifest('p'));
  expect((await patchStatus('pod', 'p', 'Broken')).stderr.trim()).toContain('denied request: pods/status may not become Broken');
  // The main resource is not pods/status: a label change passes.
  expect(await k.ok(['-n', ns, 'label', 'pod', 'p', 'x=y'])).toBe('pod/p labeled');
  await removePolicy('sandbox-rules');
  await k.ok(['delete', 'crd', 'sandboxes.policy.example.com']);
});

test('failurePolicy: an expression that errors denies under Fail and admits under Ignore', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const policy = (failurePolicy: string) =>
    scopedPolicy(
      'needs-owner',
      ns,
      `  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.metadata.labels.owner != ''"`,
    );
  await k.ok(['apply', '-f', '-'], { input: policy('Fail') });
  expect(await k.fails(['-n', ns, 'apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' })).toBe(
    `The configmaps "a" is invalid: : ValidatingAdmissionPolicy 'needs-owner' with binding 'needs-owner' denied request: expression 'object.metadata.labels.owner != ''' resulted in error: no such key: labels`,
  );
  await k.ok(['apply', '-f', '-'], { input: policy('Ignore') });
  expect(await k.apply(ns, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n')).toBe('configmap/a created');
  await removePolicy('needs-owner');
});

test('a policy whose expression does not compile is refused when applied', async () => {
  const stderr = await k.fails(['apply', '-f', '-'], {
    input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [secrets]}
  validations:
  - expression: "oldObject.metadata.name == secretName"
`,
  });
  expect(stderr).toBe(
    `The ValidatingAdmissionPolicy "broken" is invalid: spec.validations[0].expression: Invalid value: "oldObject.metadata.name == secretName": compilation failed: ERROR: <input>:1:28: undeclared reference to 'secretName' (in container '')\n | oldObject.metadata.name == secretName\n | ...........................^`,
  );
  expect((await k.run(['get', 'validatingadmissionpolicy', 'broken'])).exitCode).toBe(1);
});
