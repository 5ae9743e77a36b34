import { expect, test } from '@playwright/test';
import type { KubeObject } from '../types.ts';
import type { JSONSchemaProps } from './structural-schema.ts';
import { validationRuleCauses, validationRuleCompileCauses } from './validation-rules.ts';

/** Agent Sandbox v0.5.3+: `spec.volumeClaimTemplates` may not change once set. */
const IMMUTABLE_CLAIMS = {
  rule: 'has(self.volumeClaimTemplates) == has(oldSelf.volumeClaimTemplates) && (!has(self.volumeClaimTemplates) || self.volumeClaimTemplates == oldSelf.volumeClaimTemplates)',
  message: 'volumeClaimTemplates is immutable',
};

function resource(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec } };
}

const sandboxSchema = resource({
  type: 'object',
  'x-kubernetes-validations': [IMMUTABLE_CLAIMS],
  properties: {
    replicas: { type: 'integer' },
    volumeClaimTemplates: { type: 'array', items: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } } } } },
  },
});

function sandbox(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'x/v1', kind: 'Sandbox', metadata: { name: 'sb', uid: 'u', labels: { a: 'b' } }, spec };
}

function check(object: KubeObject, old: KubeObject | undefined, schema: JSONSchemaProps) {
  const warnings: string[] = [];
  const causes = validationRuleCauses(object, old, schema, [], warnings);
  return { causes, warnings };
}

const claims = [{ metadata: { name: 'data' } }];

test('a transition rule: changing volumeClaimTemplates is refused, leaving it alone passes, create skips it', () => {
  const before = sandbox({ replicas: 1, volumeClaimTemplates: claims });
  expect(check(sandbox({ replicas: 0, volumeClaimTemplates: claims }), before, sandboxSchema)).toEqual({ causes: [], warnings: [] });
  expect(check(sandbox({ replicas: 1, volumeClaimTemplates: [{ metadata: { name: 'other' } }] }), before, sandboxSchema).causes).toEqual([
    { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": volumeClaimTemplates is immutable' },
  ]);
  expect(check(sandbox({ replicas: 1 }), before, sandboxSchema).causes).toHaveLength(1);
  expect(check(sandbox({ volumeClaimTemplates: claims }), undefined, sandboxSchema)).toEqual({ causes: [], warnings: [] });
});

test('message, messageExpression, reason and fieldPath shape the error', () => {
  const schema = resource({
    type: 'object',
    properties: { replicas: { type: 'integer' }, mode: { type: 'string' } },
    'x-kubernetes-validations': [
      { rule: 'self.replicas <= 3' },
      { rule: 'self.replicas >= 0', messageExpression: '"replicas is " + string(self.replicas)', fieldPath: '.replicas' },
      { rule: 'self.mode != "forbidden"', message: 'mode may not be forbidden', reason: 'FieldValueForbidden', fieldPath: ".mode" },
    ],
  });
  expect(check(sandbox({ replicas: 5, mode: 'ok' }), undefined, schema).causes).toEqual([
    { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": failed rule: self.replicas <= 3' },
  ]);
  expect(check(sandbox({ replicas: -1, mode: 'forbidden' }), undefined, schema).causes).toEqual([
    { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: "object": replicas is -1' },
    { reason: 'FieldValueForbidden', field: 'spec.mode', message: 'Forbidden: mode may not be forbidden' },
  ]);
});

test('rules on list items, map values and the root see their own node as self', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'self.metadata.name.startsWith("sb")', message: 'name must start with sb' }],
    properties: {
      metadata: { type: 'object' },
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 1024', message: 'unprivileged ports only' }] } },
          env: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', message: 'empty' }] } },
        },
      },
    },
  };
  const object = { apiVersion: 'x/v1', kind: 'S', metadata: { name: 'other' }, spec: { ports: [8080, 80], env: { A: 'x', B: '' } } };
  expect(check(object, undefined, schema).causes).toEqual([
    { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "object": name must start with sb' },
    { reason: 'FieldValueInvalid', field: 'spec.ports[1]', message: 'Invalid value: "integer": unprivileged ports only' },
    { reason: 'FieldValueInvalid', field: 'spec.env[B]', message: 'Invalid value: "string": empty' },
  ]);
});

test('oldSelf correlates list-type map items by key, and nothing else in lists', () => {
  const item = { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'may only grow' }] };
  const schema = resource({
    type: 'object',
    properties: {
      keyed: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: item },
      atomic: { type: 'array', items: item },
    },
  });
  const before = sandbox({ keyed: [{ name: 'a', size: 5 }, { name: 'b', size: 5 }], atomic: [{ name: 'a', size: 5 }] });
  const after = sandbox({ keyed: [{ name: 'b', size: 4 }, { name: 'a', size: 6 }], atomic: [{ name: 'a', size: 1 }] });
  expect(check(after, before, schema).causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.keyed[0]', message: 'Invalid value: "object": may only grow' }]);
});

test('ratcheting: a failing rule on a value the update left unchanged is a warning', () => {
  const schema = resource({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 3', message: 'too long' }] }, b: { type: 'string' } } });
  const before = sandbox({ a: 'long', b: 'x' });
  expect(check(sandbox({ a: 'long', b: 'y' }), before, schema)).toEqual({ causes: [], warnings: ['spec.a: Invalid value: "string": too long'] });
  expect(check(sandbox({ a: 'longer', b: 'y' }), before, schema).causes).toHaveLength(1);
});

test('an evaluation error and a blocking schema error', () => {
  const schema = resource({ type: 'object', properties: { a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'self.missing == 1' }] } } });
  expect(check(sandbox({ a: {} }), undefined, schema).causes).toEqual([
    { reason: 'FieldValueInvalid', field: 'spec.a', message: 'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1' },
  ]);
  const blocked = validationRuleCauses(sandbox({ a: {} }), undefined, schema, [{ reason: 'FieldValueTypeInvalid', field: 'spec.b', message: 'x' }], []);
  expect(blocked).toEqual([
    { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' },
  ]);
});

test('a CRD whose rule does not compile is refused with the rule path', () => {
  const schema = resource({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a == other' }, IMMUTABLE_CLAIMS] });
  const causes = validationRuleCompileCauses(schema, 'spec.versions[0].schema.openAPIV3Schema');
  expect(causes).toHaveLength(1);
  expect(causes[0].field).toBe('spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
  expect(causes[0].message).toContain(`Invalid value: apiextensions.ValidationRule{Rule:"self.a == other", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:11: undeclared reference to 'other'`);
});
