import { expect, test } from '@playwright/test';
import { applyDefaults } from './defaults.ts';
import type { JSONSchemaProps } from './structural-schema.ts';

function defaulted(obj: unknown, schema: JSONSchemaProps): unknown {
  applyDefaults(obj, schema);
  return obj;
}

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        policy: { type: 'string', default: 'Retain' },
        note: { type: 'string', nullable: true, default: 'n/a' },
        service: { type: 'boolean' },
      },
    },
  },
};

test('fills absent members and leaves present ones, falsy values included', () => {
  expect(defaulted({ spec: {} }, spec)).toEqual({ spec: { replicas: 1, policy: 'Retain', note: 'n/a' } });
  expect(defaulted({ spec: { replicas: 0, policy: '' } }, spec)).toEqual({ spec: { replicas: 0, policy: '', note: 'n/a' } });
});

test('null is replaced only where the schema does not allow null', () => {
  expect(defaulted({ spec: { replicas: null, note: null, service: null } }, spec)).toEqual({
    spec: { replicas: 1, policy: 'Retain', note: null, service: null },
  });
});

test('nothing is created around a default: no spec, no spec defaults', () => {
  expect(defaulted({}, spec)).toEqual({});
});

test('a default object is itself defaulted, and is a copy of the schema value', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      limits: {
        type: 'object',
        default: { cpu: '1' },
        properties: { cpu: { type: 'string' }, memory: { type: 'string', default: '1Gi' } },
      },
    },
  };
  const a = defaulted({}, schema) as { limits: Record<string, string> };
  expect(a).toEqual({ limits: { cpu: '1', memory: '1Gi' } });
  expect(schema.properties!.limits.default).toEqual({ cpu: '1' });
  const b = defaulted({}, schema) as { limits: Record<string, string> };
  expect(b.limits).not.toBe(a.limits);
});

test('applies inside array items, including null items', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        items: { type: 'object', default: {}, properties: { protocol: { type: 'string', default: 'TCP' } } },
      },
    },
  };
  expect(defaulted({ ports: [{ port: 80 }, { protocol: 'UDP' }, null] }, schema)).toEqual({
    ports: [{ port: 80, protocol: 'TCP' }, { protocol: 'UDP' }, { protocol: 'TCP' }],
  });
});

test('applies inside additionalProperties values, including null values', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      volumes: {
        type: 'object',
        additionalProperties: { type: 'object', default: {}, properties: { readOnly: { type: 'boolean', default: false } } },
      },
    },
  };
  expect(defaulted({ volumes: { data: {}, logs: { readOnly: true }, tmp: null } }, schema)).toEqual({
    volumes: { data: { readOnly: false }, logs: { readOnly: true }, tmp: { readOnly: false } },
  });
});

test('default: null counts as no default', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { a: { type: 'string', nullable: true, default: null } } };
  expect(defaulted({}, schema)).toEqual({});
});

test('scalars and values of the wrong shape are left alone', () => {
  expect(defaulted('text', spec)).toBe('text');
  expect(defaulted({ spec: 'oops' }, spec)).toEqual({ spec: 'oops' });
});
