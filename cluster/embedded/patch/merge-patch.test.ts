import { expect, test } from '@playwright/test';
import { jsonMergePatch } from './merge-patch.ts';

/** The cases of RFC 7386 Appendix A, same shapes, restated with ConfigMap-flavoured data. */
const appendixCases: Array<{ name: string; original: unknown; patch: unknown; result: unknown }> = [
  { name: 'replaces a member', original: { tier: 'web' }, patch: { tier: 'db' }, result: { tier: 'db' } },
  { name: 'adds a member', original: { tier: 'web' }, patch: { zone: 'a' }, result: { tier: 'web', zone: 'a' } },
  { name: 'null removes the only member', original: { tier: 'web' }, patch: { tier: null }, result: {} },
  {
    name: 'null removes one member of two',
    original: { tier: 'web', zone: 'a' },
    patch: { tier: null },
    result: { zone: 'a' },
  },
  { name: 'a string replaces a list', original: { args: ['-v'] }, patch: { args: 'run' }, result: { args: 'run' } },
  { name: 'a list replaces a string', original: { args: 'run' }, patch: { args: ['-v'] }, result: { args: ['-v'] } },
  {
    name: 'nested objects merge and nested nulls delete',
    original: { data: { mode: 'fast' } },
    patch: { data: { mode: 'safe', debug: null } },
    result: { data: { mode: 'safe' } },
  },
  {
    name: 'a list of objects is replaced, not merged',
    original: { items: [{ key: 'a' }] },
    patch: { items: [1] },
    result: { items: [1] },
  },
  { name: 'a list replaces a list', original: ['x', 'y'], patch: ['p', 'q'], result: ['p', 'q'] },
  { name: 'a list patch replaces an object', original: { tier: 'web' }, patch: ['db'], result: ['db'] },
  { name: 'a null patch replaces everything', original: { tier: 'web' }, patch: null, result: null },
  { name: 'a string patch replaces everything', original: { tier: 'web' }, patch: 'db', result: 'db' },
  {
    name: 'nulls already in the target are left alone',
    original: { note: null },
    patch: { replicas: 1 },
    result: { note: null, replicas: 1 },
  },
  {
    name: 'an object patch on a non-object drops its own nulls',
    original: [1, 2],
    patch: { tier: 'web', zone: null },
    result: { tier: 'web' },
  },
  {
    name: 'new nested members drop their nulls',
    original: {},
    patch: { spec: { template: { paused: null } } },
    result: { spec: { template: {} } },
  },
];

for (const c of appendixCases) {
  test(`RFC 7386: ${c.name}`, () => {
    expect(jsonMergePatch(c.original, c.patch)).toEqual(c.result);
  });
}

test('RFC 7386 section 3 style document patch on a Pod', () => {
  const pod = {
    metadata: { name: 'web', labels: { app: 'web', tier: 'frontend' }, annotations: { note: 'x' } },
    spec: { containers: [{ name: 'web', image: 'nginx:1.25' }], nodeName: 'n1' },
  };
  const patch = {
    metadata: { labels: { tier: null, track: 'canary' }, annotations: null },
    spec: { containers: [{ name: 'web', image: 'nginx:1.26' }] },
  };
  expect(jsonMergePatch(pod, patch)).toEqual({
    metadata: { name: 'web', labels: { app: 'web', track: 'canary' } },
    spec: { containers: [{ name: 'web', image: 'nginx:1.26' }], nodeName: 'n1' },
  });
});

test('keeps the original member order', () => {
  const result = jsonMergePatch({ a: 1, b: 2, c: 3 }, { d: 4, b: 20 }) as object;
  expect(Object.keys(result)).toEqual(['a', 'b', 'c', 'd']);
});

test('never mutates or aliases its inputs', () => {
  const original = deepFreeze({ metadata: { labels: { app: 'web' } }, spec: { args: ['a'] } });
  const patch = deepFreeze({ metadata: { labels: { tier: 'x' } }, spec: { list: [{ k: 1 }] } });
  const result = jsonMergePatch(original, patch) as { metadata: { labels: object }; spec: { args: unknown[]; list: unknown[] } };
  expect(result.metadata.labels).toEqual({ app: 'web', tier: 'x' });
  expect(result.spec.args).not.toBe(original.spec.args);
  expect(result.spec.list).not.toBe(patch.spec.list);
  expect(result.spec.list[0]).not.toBe(patch.spec.list[0]);
});

test('a member named __proto__ is data, not a prototype', () => {
  const result = jsonMergePatch({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
  expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  expect(Object.hasOwn(result, '__proto__')).toBe(true);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
