/**
 * ValidatingAdmissionPolicy through the in-process object API: matching, evaluation, bindings,
 * params, actions and the real server's words. Real kubectl against the same code is in
 * kubectl-admission-policy.test.ts.
 */

import { expect, test } from '@playwright/test';
import type { ObjectApi } from '../registry/object-api.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { bareObjectApi, refusal } from '../test-kit.ts';
import { ValidatingAdmissionPolicyPlugin } from './policy-plugin.ts';
import type { BindingSpec, NamedRuleWithOperations, PolicySpec } from './policy-types.ts';

const GV = 'admissionregistration.k8s.io/v1';

function setup(): ObjectApi {
  const api = bareObjectApi('team');
  api.create(api.target('v1', 'namespaces'), { metadata: { name: 'other', labels: { tier: 'free' } } });
  api.validatingAdmission = new ValidatingAdmissionPolicyPlugin(api);
  return api;
}

function rule(resources: string[], operations: string[], extra: Partial<NamedRuleWithOperations> = {}): NamedRuleWithOperations {
  return { apiGroups: ['*'], apiVersions: ['*'], resources, operations, ...extra };
}

function policy(api: ObjectApi, name: string, spec: PolicySpec): void {
  api.create(api.target(GV, 'validatingadmissionpolicies'), { metadata: { name }, spec });
}

function bind(api: ObjectApi, name: string, spec: Partial<BindingSpec> = {}): void {
  api.create(api.target(GV, 'validatingadmissionpolicybindings'), { metadata: { name }, spec: { policyName: name, validationActions: ['Deny'], ...spec } });
}

/** A policy and a binding of the same name. */
function bound(api: ObjectApi, name: string, spec: PolicySpec, binding: Partial<BindingSpec> = {}): void {
  policy(api, name, spec);
  bind(api, name, binding);
}

const secrets = (api: ObjectApi, ns = 'team') => api.target('v1', 'secrets', ns);
const configMaps = (api: ObjectApi, ns = 'team') => api.target('v1', 'configmaps', ns);
const secret = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, stringData: { k: 'v' } });

test('a DELETE of the named Secret is refused in the real words, with reason Invalid by default', () => {
  const api = setup();
  for (const name of ['that-one', 'another']) api.create(secrets(api), secret(name));
  bound(api, 'keep-that-one', { matchConstraints: { resourceRules: [rule(['secrets'], ['DELETE'], { apiGroups: [''], apiVersions: ['v1'], resourceNames: ['that-one'] })] }, validations: [{ expression: 'false', message: 'keep it' }] });
  const error = refusal(() => api.delete(secrets(api), 'that-one'));
  expect(error.toStatus()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `secrets "that-one" is forbidden: ValidatingAdmissionPolicy 'keep-that-one' with binding 'keep-that-one' denied request: keep it`,
    reason: 'Invalid',
    details: { name: 'that-one', kind: 'secrets', causes: [{ message: `ValidatingAdmissionPolicy 'keep-that-one' with binding 'keep-that-one' denied request: keep it` }] },
    code: 422,
  });
  expect(refusal(() => api.delete(secrets(api), 'that-one', { dryRun: true })).code).toBe(422);
  expect(api.delete(secrets(api), 'another').removed).toBe(true);
  api.delete(api.target(GV, 'validatingadmissionpolicybindings'), 'keep-that-one');
  expect(api.delete(secrets(api), 'that-one').removed).toBe(true);
});

test('the validation reason picks the code; without message or messageExpression the expression is quoted', () => {
  const api = setup();
  bound(api, 'no-secrets', { matchConstraints: { resourceRules: [rule(['secrets'], ['CREATE'])] }, validations: [{ expression: 'object.metadata.name != "x"', reason: 'Forbidden' }] });
  const error = refusal(() => api.create(secrets(api), secret('x')));
  expect([error.code, error.reason]).toEqual([403, 'Forbidden']);
  expect(error.message).toBe(`secrets "x" is forbidden: ValidatingAdmissionPolicy 'no-secrets' with binding 'no-secrets' denied request: failed expression: object.metadata.name != "x"`);
  api.create(secrets(api), secret('y'));
});

test('resource rules: subresources, resourceNames, scope, excluded rules', () => {
  const api = setup();
  const pods = api.target('v1', 'pods', 'team');
  api.create(pods, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
  bound(api, 'status-only', { matchConstraints: { resourceRules: [rule(['pods/status'], ['UPDATE'])] }, validations: [{ expression: 'false', message: 'no status writes' }] });
  const pod = api.get(pods, 'p');
  expect(refusal(() => api.update(pods, 'p', { ...pod, status: { phase: 'Failed' } }, { subresource: 'status' })).message).toContain('no status writes');
  api.update(pods, 'p', { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } } });

  bound(api, 'cluster-scoped', { matchConstraints: { resourceRules: [rule(['*'], ['CREATE'], { scope: 'Cluster' })], excludeResourceRules: [rule(['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], ['*'])] }, validations: [{ expression: 'false', message: 'cluster-scoped create' }] });
  api.create(configMaps(api), { metadata: { name: 'namespaced-is-fine' } });
  expect(refusal(() => api.create(api.target('v1', 'namespaces'), { metadata: { name: 'new-ns' } })).message).toContain('cluster-scoped create');
});

test('namespaceSelector and objectSelector, on the policy and narrowed by the binding', () => {
  const api = setup();
  bound(
    api,
    'labelled',
    { matchConstraints: { resourceRules: [rule(['secrets'], ['CREATE'])], objectSelector: { matchLabels: { guarded: 'yes' } } }, validations: [{ expression: 'false', message: 'guarded' }] },
    { matchResources: { namespaceSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['free'] }] } } },
  );
  api.create(secrets(api, 'team'), secret('a', { guarded: 'yes' }));
  api.create(secrets(api, 'other'), secret('b', { guarded: 'no' }));
  expect(refusal(() => api.create(secrets(api, 'other'), secret('c', { guarded: 'yes' }))).message).toContain('guarded');
});

test('matchConditions gate the validations; an error in them follows the failure policy', () => {
  const api = setup();
  const spec = (failurePolicy: 'Fail' | 'Ignore', expression: string): PolicySpec => ({
    failurePolicy,
    matchConstraints: { resourceRules: [rule(['configmaps'], ['CREATE'])] },
    matchConditions: [{ name: 'gate', expression }],
    validations: [{ expression: 'false', message: `denied by ${failurePolicy}` }],
  });
  bound(api, 'gated', spec('Fail', 'object.metadata.name.startsWith("gated-")'));
  api.create(configMaps(api), { metadata: { name: 'free' } });
  expect(refusal(() => api.create(configMaps(api), { metadata: { name: 'gated-1' } })).message).toContain('denied by Fail');
  bound(api, 'broken-fail', spec('Fail', 'object.data.missing == "x"'));
  expect(refusal(() => api.create(configMaps(api), { metadata: { name: 'any' }, data: {} })).message).toBe(
    `configmaps "any" is forbidden: ValidatingAdmissionPolicy 'broken-fail' with binding 'broken-fail' denied request: expression 'object.data.missing == "x"' resulted in error: no such key: missing`,
  );
  api.delete(api.target(GV, 'validatingadmissionpolicybindings'), 'broken-fail');
  bound(api, 'broken-ignore', spec('Ignore', 'object.data.missing == "x"'));
  api.create(configMaps(api), { metadata: { name: 'any' }, data: {} });
});

test('variables, messageExpression, request and namespaceObject', () => {
  const api = setup();
  bound(api, 'described', {
    matchConstraints: { resourceRules: [rule(['secrets'], ['CREATE', 'UPDATE'])] },
    variables: [
      { name: 'who', expression: 'request.userInfo.username' },
      { name: 'what', expression: 'request.operation + " " + request.resource.resource + "/" + request.name' },
    ],
    validations: [
      {
        expression: 'namespaceObject.metadata.name != "other" || !has(object.metadata.labels.block)',
        messageExpression: 'variables.what + " by " + variables.who + " in " + namespaceObject.metadata.labels["kubernetes.io/metadata.name"]',
      },
    ],
  });
  api.create(secrets(api, 'team'), secret('s', { block: 'x' }));
  api.create(secrets(api, 'other'), secret('s'));
  expect(refusal(() => api.create(secrets(api, 'other'), secret('t', { block: 'x' }))).message).toContain('denied request: CREATE secrets/t by system:admin in other');
});

test('Warn returns a warning instead of refusing; Audit alone does nothing here', () => {
  const api = setup();
  policy(api, 'warned', { matchConstraints: { resourceRules: [rule(['configmaps'], ['CREATE', 'DELETE'])] }, validations: [{ expression: 'false', message: 'careful' }] });
  bind(api, 'warned', { validationActions: ['Warn'] });
  bind(api, 'audited', { policyName: 'warned', validationActions: ['Audit'] });
  expect(api.create(configMaps(api), { metadata: { name: 'c' } }).warnings).toEqual([`Validation failed for ValidatingAdmissionPolicy 'warned' with binding 'warned': careful`]);
  expect(api.delete(configMaps(api), 'c').warnings).toHaveLength(1);
});

test('params from a ConfigMap: by name, by selector, missing with Allow or Deny, and an unknown paramKind', () => {
  const api = setup();
  api.create(configMaps(api), { metadata: { name: 'limits', labels: { role: 'limits' } }, data: { max: '2' } });
  policy(api, 'limited', {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [rule(['secrets'], ['CREATE'])] },
    validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: '"at most " + params.data.max + " keys"' }],
  });
  bind(api, 'limited', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } });
  api.create(secrets(api), { metadata: { name: 'two' }, stringData: { a: '1', b: '2' } });
  expect(refusal(() => api.create(secrets(api), { metadata: { name: 'three' }, stringData: { a: '1', b: '2', c: '3' } })).message).toContain('denied request: at most 2 keys');
  // In a namespace without the ConfigMap the binding cannot be configured.
  expect(refusal(() => api.create(secrets(api, 'other'), secret('x'))).message).toBe(
    "secrets \"x\" is forbidden: ValidatingAdmissionPolicy 'limited' with binding 'limited' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
  );
  api.delete(api.target(GV, 'validatingadmissionpolicybindings'), 'limited');
  bind(api, 'limited', { paramRef: { selector: { matchLabels: { role: 'limits' } }, parameterNotFoundAction: 'Allow' } });
  api.create(secrets(api, 'other'), secret('allowed-without-params'));
  expect(refusal(() => api.create(secrets(api), { metadata: { name: 'four' }, stringData: { a: '1', b: '2', c: '3', d: '4' } })).message).toContain('at most 2 keys');

  bound(api, 'unknown-kind', { paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' }, matchConstraints: { resourceRules: [rule(['configmaps'], ['CREATE'])] }, validations: [{ expression: 'true' }] });
  expect(refusal(() => api.create(configMaps(api), { metadata: { name: 'x' } })).message).toBe(
    "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'unknown-kind' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'",
  );
});

test('Equivalent matching reaches a resource through its other served versions; Exact does not', () => {
  const api = setup();
  const widgets: ResourceType = {
    group: 'example.com', plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', namespaced: true, shortNames: [], categories: [],
    versions: [{ name: 'v1', served: true, storage: true, status: false }, { name: 'v2', served: true, storage: false, status: false }],
    builtin: false, extraSubresources: [], strategy: {}, generation: true,
  };
  api.registry.add(widgets);
  const v2Rule = rule(['widgets'], ['CREATE'], { apiGroups: ['example.com'], apiVersions: ['v2'] });
  bound(api, 'v2-only', { matchConstraints: { resourceRules: [v2Rule], matchPolicy: 'Exact' }, validations: [{ expression: 'false' }] });
  api.create(api.target('example.com/v1', 'widgets', 'team'), { metadata: { name: 'a' } });
  bound(api, 'v2-equivalent', {
    matchConstraints: { resourceRules: [v2Rule] },
    validations: [{ expression: 'false', messageExpression: 'object.apiVersion + " " + request.kind.version + " requested as " + request.requestKind.version' }],
  });
  expect(refusal(() => api.create(api.target('example.com/v1', 'widgets', 'team'), { metadata: { name: 'b' } })).message).toContain('denied request: example.com/v2 v2 requested as v1');
});

test('a policy is validated when written: expressions must compile against its variables', () => {
  const api = setup();
  const policies = api.target(GV, 'validatingadmissionpolicies');
  const spec = { matchConstraints: { resourceRules: [rule(['secrets'], ['DELETE'])] }, validations: [{ expression: 'params.x == 1' }] };
  expect(refusal(() => api.create(policies, { metadata: { name: 'p' }, spec })).message).toBe(
    `ValidatingAdmissionPolicy.admissionregistration.k8s.io "p" is invalid: spec.validations[0].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^`,
  );
  expect(refusal(() => api.create(policies, { metadata: { name: 'p' }, spec: { failurePolicy: 'Never', validations: [] } })).details?.causes).toEqual([
    { reason: 'FieldValueNotSupported', field: 'spec.failurePolicy', message: 'Unsupported value: "Never": supported values: "Fail", "Ignore"' },
    { reason: 'FieldValueRequired', field: 'spec.matchConstraints', message: 'Required value' },
    { reason: 'FieldValueRequired', field: 'spec.validations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
    { reason: 'FieldValueRequired', field: 'spec.auditAnnotations', message: 'Required value: validations or auditAnnotations must contain at least one item' },
  ]);
  const bindings = api.target(GV, 'validatingadmissionpolicybindings');
  expect(refusal(() => api.create(bindings, { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny', 'Warn'], paramRef: { name: 'x' } } })).details?.causes).toEqual([
    { reason: 'FieldValueRequired', field: 'spec.paramRef.parameterNotFoundAction', message: 'Required value' },
    { reason: 'FieldValueInvalid', field: 'spec.validationActions', message: 'Invalid value: []string{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' },
  ]);
  // With a paramKind, `params` is declared.
  api.create(policies, { metadata: { name: 'p' }, spec: { ...spec, paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } } });
});

test('the defaults a policy gets when written', () => {
  const api = setup();
  const created = api.create(api.target(GV, 'validatingadmissionpolicies'), {
    metadata: { name: 'p' },
    spec: { matchConstraints: { resourceRules: [rule(['secrets'], ['DELETE'])] }, validations: [{ expression: 'true' }] },
  }).object;
  expect(created.spec).toEqual({
    failurePolicy: 'Fail',
    matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rule(['secrets'], ['DELETE']), scope: '*' }] },
    validations: [{ expression: 'true' }],
  });
});
