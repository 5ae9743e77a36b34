import { expect, test } from '@playwright/test';
import { prune } from './prune.ts';
import type { JSONSchemaProps } from './structural-schema.ts';

const resource: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        image: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        containers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        env: { type: 'object', additionalProperties: { type: 'object', properties: { value: { type: 'string' } } } },
        config: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { typed: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
        },
      },
    },
  },
};

test('drops undeclared members and reports their paths in document order', () => {
  const obj = { spec: { foo: 1, image: 'x', containers: [{ name: 'a', bogus: true }, { name: 'b' }], bar: { deep: 1 } } };
  expect(prune(obj, resource)).toEqual(['spec.foo', 'spec.containers[0].bogus', 'spec.bar']);
  expect(obj).toEqual({ spec: { image: 'x', containers: [{ name: 'a' }, { name: 'b' }] } });
});

test('additionalProperties keeps every key and prunes inside the values', () => {
  const obj = { spec: { labels: { app: 'web' }, env: { A: { value: '1', from: 'x' } } } };
  expect(prune(obj, resource)).toEqual(['spec.env.A.from']);
  expect(obj).toEqual({ spec: { labels: { app: 'web' }, env: { A: { value: '1' } } } });
});

test('preserve-unknown-fields keeps unknown members but still prunes declared ones', () => {
  const obj = { spec: { config: { anything: { goes: [1, { x: 2 }] }, typed: { a: 'ok', b: 'dropped' } } } };
  expect(prune(obj, resource)).toEqual(['spec.config.typed.b']);
  expect(obj).toEqual({ spec: { config: { anything: { goes: [1, { x: 2 }] }, typed: { a: 'ok' } } } });
});

test('the resource root keeps apiVersion, kind and all of metadata', () => {
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'a', labels: { x: 'y' }, custom: 'kept' },
    status: { phase: 'x' },
  };
  expect(prune(obj, resource, { isRoot: true })).toEqual(['status']);
  expect(obj).toEqual({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a', labels: { x: 'y' }, custom: 'kept' } });
});

test('without isRoot, an undeclared apiVersion is just another unknown field', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object' } } };
  const obj = { apiVersion: 'v1', spec: {} };
  expect(prune(obj, schema)).toEqual(['apiVersion']);
});

test('an embedded resource keeps apiVersion and kind, and its metadata only as ObjectMeta', () => {
  const obj = {
    spec: {
      template: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', labels: { a: 'b' }, annotations: {}, bogus: 1 },
        spec: { replicas: 1, extra: true },
        other: 'x',
      },
    },
  };
  expect(prune(obj, resource)).toEqual(['spec.template.metadata.bogus', 'spec.template.spec.extra', 'spec.template.other']);
  expect(obj.spec.template).toEqual({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'b' }, annotations: {} },
    spec: { replicas: 1 },
  });
});

test('an object schema with no properties keeps nothing', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { opaque: { type: 'object' } } };
  const obj = { opaque: { a: 1, b: 2 } };
  expect(prune(obj, schema)).toEqual(['opaque.a', 'opaque.b']);
  expect(obj).toEqual({ opaque: {} });
});

test('drops nulls the schema neither allows nor defaults, without reporting them', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      plain: { type: 'string' },
      nullable: { type: 'string', nullable: true },
      defaulted: { type: 'string', default: 'x' },
      map: { type: 'object', additionalProperties: { type: 'string' } },
      list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
    },
  };
  const obj = { plain: null, nullable: null, defaulted: null, map: { k: null }, list: [{ a: null }, null] };
  expect(prune(obj, schema)).toEqual([]);
  expect(obj).toEqual({ nullable: null, defaulted: null, map: {}, list: [{}, null] });
});

test('values of the wrong shape are left for validation to report', () => {
  const obj = { spec: { containers: 'not-a-list', labels: [1] } };
  expect(prune(obj, resource)).toEqual([]);
  expect(obj).toEqual({ spec: { containers: 'not-a-list', labels: [1] } });
});
