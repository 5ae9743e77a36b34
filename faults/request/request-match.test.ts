/** matchesRequest over requests parsed from real URLs: each field alone, omitted ones matching anything. */
import { expect, test } from '@playwright/test';
import { parseRequest } from './parse-request.ts';
import { matchesRequest } from './request-match.ts';

const body = (value: unknown) => Buffer.from(JSON.stringify(value));

test('matchesRequest: every field, omitted ones match anything', () => {
  const patch = parseRequest({ method: 'PATCH', url: '/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes/sb?fieldManager=driver', headers: { 'content-type': 'application/merge-patch+json' }, body: body({}) });
  const status = parseRequest({ method: 'PUT', url: '/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes/sb/status' });
  const get = parseRequest({ method: 'GET', url: '/api/v1/namespaces/ns/secrets/s' });
  expect(matchesRequest({}, get, 0)).toBe(true);
  expect(matchesRequest({ verb: ['update', 'patch'] }, patch, 0)).toBe(true);
  expect(matchesRequest({ verb: 'get' }, patch, 0)).toBe(false);
  expect(matchesRequest({ resource: 'sandboxes' }, patch, 0)).toBe(true);
  expect(matchesRequest({ resource: 'sandboxes.agents.x-k8s.io' }, patch, 0)).toBe(true);
  expect(matchesRequest({ resource: 'sandboxes.other.io' }, patch, 0)).toBe(false);
  expect(matchesRequest({ resource: 'secrets' }, get, 0)).toBe(true);
  expect(matchesRequest({ subresource: '' }, patch, 0)).toBe(true);
  expect(matchesRequest({ subresource: '' }, status, 0)).toBe(false);
  expect(matchesRequest({ subresource: 'status' }, status, 0)).toBe(true);
  expect(matchesRequest({ namespace: 'ns', name: 'sb' }, patch, 0)).toBe(true);
  expect(matchesRequest({ name: 'other' }, patch, 0)).toBe(false);
  expect(matchesRequest({ writes: true }, patch, 0)).toBe(true);
  expect(matchesRequest({ writes: true }, get, 0)).toBe(false);
  expect(matchesRequest({ client: 1 }, get, 0)).toBe(false);
  expect(matchesRequest({ client: 1 }, get, 1)).toBe(true);
  expect(matchesRequest({ fieldManager: 'driver' }, patch, 0)).toBe(true);
  expect(matchesRequest({ fieldManager: 'driver' }, get, 0)).toBe(false);
  expect(matchesRequest({ target: (r) => r.name === 'sb' }, patch, 0)).toBe(true);
  expect(matchesRequest({ target: (r) => r.name === 'sb' }, get, 0)).toBe(false);
});
