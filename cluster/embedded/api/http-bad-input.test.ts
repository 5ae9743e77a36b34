/**
 * Bad input over the wire: every malformed, unauthorised, oversized or invalid request gets the
 * `kind: Status` error kube-apiserver gives (code, reason, message wording), nothing is stored,
 * and the server keeps serving. Raw HTTPS so that nothing between the test and the server
 * reshapes the request or the answer.
 */

import { expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { parseAllDocuments } from 'yaml';
import { upstreamManifests } from '../../manifests/test-kit.ts';
import type { ApiServer } from './http-server.ts';
import type { EmbeddedCluster } from '../cluster.ts';
import { expectStatus, refused, test, type Reply, type RequestFn } from './test-kit.ts';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';
const SANDBOXES = '/apis/agents.x-k8s.io/v1beta1/namespaces/default/sandboxes';

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
  ...extra,
});

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
});

const sandbox = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name },
  spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'busybox:1.36' }] } }, ...spec },
});

async function create(call: RequestFn, path: string, body: unknown): Promise<Reply> {
  const reply = await call('POST', path, { body });
  expect(reply.status, reply.text).toBe(201);
  return reply;
}

let sandboxCrd: unknown;

/** Installs the real Agent Sandbox v0.5.0 Sandbox CRD and waits until it is Established. */
async function installSandboxCrd(call: RequestFn): Promise<void> {
  if (!sandboxCrd) {
    const upstream = upstreamManifests('v0.5.0');
    test.skip(!!upstream.missing, upstream.missing);
    sandboxCrd = parseAllDocuments(readFileSync(upstream.paths['v0.5.0'], 'utf8'))
      .map((doc) => doc.toJS() as { kind?: string; metadata?: { name?: string } } | null)
      .find((doc) => doc?.kind === 'CustomResourceDefinition' && doc.metadata?.name === 'sandboxes.agents.x-k8s.io');
  }
  expect(sandboxCrd).toBeTruthy();
  await create(call, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', sandboxCrd);
  await expect
    .poll(async () => {
      const reply = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sandboxes.agents.x-k8s.io');
      const conditions = (reply.body?.status?.conditions ?? []) as { type: string; status: string }[];
      return conditions.find((c) => c.type === 'Established')?.status;
    }, { intervals: [10] })
    .toBe('True');
}

/** Waits until asynchronous controller work (default ServiceAccounts, CRD status) has stopped writing. */
async function settle(cluster: EmbeddedCluster): Promise<void> {
  let last = -1;
  await expect
    .poll(async () => {
      await new Promise((r) => setImmediate(r));
      const now = cluster.store.currentRevision();
      const stable = now === last;
      last = now;
      return stable;
    }, { intervals: [10] })
    .toBe(true);
}

test.describe('authentication', () => {
  test('no token: 401 Unauthorized', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('GET', CONFIGMAPS, { token: null }), 401, 'Unauthorized', 'Unauthorized');
  });

  test('a wrong token: 401 Unauthorized, also for writes', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('GET', CONFIGMAPS, { token: 'not-the-token' }), 401, 'Unauthorized', 'Unauthorized');
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { token: `${cluster.token}x`, body: configMap('sneaky') }),
      401,
      'Unauthorized',
      'Unauthorized',
    );
    expect(cluster.store.get('configmaps', 'default', 'sneaky')).toBeUndefined();
  });
});

test.describe('bodies that do not decode', () => {
  test('malformed JSON: 400 BadRequest as transformDecodeError words it', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {' }),
      400,
      'BadRequest',
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .+ \(\{"apiVersion": "v1", "kind": " \.\.\.\)$/,
    );
    expect(reply.body.message).not.toContain('\n');
    // Not an object at all: the summary is the body's first bytes in hex.
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: 'nope' }),
      400,
      'BadRequest',
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .+ \(6e6f7065\)$/,
    );
  });

  test('malformed YAML on an apply patch: 400 error decoding YAML', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('applied'));
    await refused(
      cluster,
      call,
      () =>
        call('PATCH', `${CONFIGMAPS}/applied?fieldManager=test`, {
          contentType: 'application/apply-patch+yaml',
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata: [unclosed\n',
        }),
      400,
      'BadRequest',
      /^error decoding YAML: error converting YAML to JSON: /,
    );
  });

  test('an unknown Content-Type on POST: 415 UnsupportedMediaType', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { contentType: 'text/plain', body: JSON.stringify(configMap('plain')) }),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    expect(cluster.store.get('configmaps', 'default', 'plain')).toBeUndefined();
  });

  test('a non-patch Content-Type on PATCH: 415 listing the accepted patch types', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('patched'));
    await refused(
      cluster,
      call,
      () => call('PATCH', `${CONFIGMAPS}/patched`, { contentType: 'application/json', body: { data: { a: '2' } } }),
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
    expect(cluster.store.get('configmaps', 'default', 'patched')?.data).toEqual({ a: '1' });
  });

  test('bodies over 3 MiB: 413 RequestEntityTooLarge, with Content-Length and chunked', async ({ cluster, call }) => {
    const big = JSON.stringify(configMap('huge', { data: { blob: 'x'.repeat(3 * 1024 * 1024) } }));
    expect(Buffer.byteLength(big)).toBeGreaterThan(3 * 1024 * 1024);
    for (const chunked of [false, true]) {
      const reply = await refused(
        cluster,
        call,
        () => call('POST', CONFIGMAPS, { body: big, chunked }),
        413,
        'RequestEntityTooLarge',
        'Request entity too large: limit is 3145728',
      );
      expect(reply.status).toBe(413);
    }
    // Also on PUT and PATCH.
    await create(call, CONFIGMAPS, configMap('huge'));
    await refused(cluster, call, () => call('PUT', `${CONFIGMAPS}/huge`, { body: big }), 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    await refused(
      cluster,
      call,
      () => call('PATCH', `${CONFIGMAPS}/huge`, { body: big, contentType: 'application/merge-patch+json', chunked: true }),
      413,
      'RequestEntityTooLarge',
      'Request entity too large: limit is 3145728',
    );
    // Just under the limit is fine.
    const fits = JSON.stringify(configMap('fits', { data: { blob: 'x'.repeat(3 * 1024 * 1024 - 200) } }));
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect((await call('POST', CONFIGMAPS, { body: fits, chunked: true })).status).toBe(201);
  });
});

test.describe('paths and kinds', () => {
  test('an unknown group, version or resource: 404 NotFound', async ({ cluster, call }) => {
    const message = 'the server could not find the requested resource';
    for (const path of [
      '/apis/nosuch.example.com/v1/things',
      '/apis/nosuch.example.com/v1/namespaces/default/things/x',
      '/apis/apps/v9/deployments',
      '/api/v2/namespaces/default/pods',
      '/api/v1/namespaces/default/widgets',
      '/apis/nosuch.example.com/v1',
      '/api/v1/namespaces/default/configmaps/x/bogus',
    ]) {
      await refused(cluster, call, () => call('GET', path), 404, 'NotFound', message);
    }
    await refused(cluster, call, () => call('POST', '/api/v1/namespaces/default/widgets', { body: { kind: 'Widget', metadata: { name: 'w' } } }), 404, 'NotFound', message);
  });

  test('a body of another kind: 400 for a built-in, as its decoder cannot convert it', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong' }, data: {} } }),
      400,
      'BadRequest',
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
    expect(cluster.store.get('configmaps', 'default', 'wrong')).toBeUndefined();
    expect(cluster.store.get('secrets', 'default', 'wrong')).toBeUndefined();
  });

  test('a custom resource of another kind (422) or another version (400)', async ({ cluster, call }) => {
    await installSandboxCrd(call);
    await settle(cluster);
    const wrongKind = await refused(
      cluster,
      call,
      () => call('POST', SANDBOXES, { body: { ...sandbox('wrong'), kind: 'SomethingElse' } }),
      422,
      'Invalid',
      'SomethingElse.agents.x-k8s.io "wrong" is invalid: kind: Invalid value: "SomethingElse": must be Sandbox',
    );
    expect(wrongKind.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'kind', message: 'Invalid value: "SomethingElse": must be Sandbox' }]);
    await refused(
      cluster,
      call,
      () => call('POST', SANDBOXES, { body: { ...sandbox('wrong'), apiVersion: 'agents.x-k8s.io/v2' } }),
      400,
      'BadRequest',
      'the API version in the data (agents.x-k8s.io/v2) does not match the expected API version (agents.x-k8s.io/v1beta1)',
    );
  });
});

test.describe('validation', () => {
  const subdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const labelRule =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const dns1035Rule =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

  test('invalid names: 422 Invalid with a metadata.name cause per broken rule', async ({ cluster, call }) => {
    // DNS-1123 subdomain (most kinds).
    const bad = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('Bad_Name') }),
      422,
      'Invalid',
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainRule}`,
    );
    expect(bad.body.details).toEqual({
      name: 'Bad_Name',
      kind: 'ConfigMap',
      causes: [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Bad_Name": ${subdomainRule}` }],
    });
    // Dots are fine in a subdomain, not in a label (Namespaces).
    expect((await call('POST', CONFIGMAPS, { body: configMap('dotted.name') })).status).toBe(201);
    const ns = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dotted.name' } } }),
      422,
      'Invalid',
      `Namespace "dotted.name" is invalid: metadata.name: Invalid value: "dotted.name": ${labelRule}`,
    );
    expect(ns.body.details.causes[0].field).toBe('metadata.name');
    // Services are DNS-1035 labels: no leading digit.
    const svc = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: '1st' }, spec: { ports: [{ port: 80 }] } } }),
      422,
      'Invalid',
      `Service "1st" is invalid: metadata.name: Invalid value: "1st": ${dns1035Rule}`,
    );
    expect(svc.body.details.causes[0].field).toBe('metadata.name');
  });

  test('names that are too long; two broken rules are aggregated in brackets', async ({ cluster, call }) => {
    const long = 'a'.repeat(254);
    const tooLong = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap(long) }),
      422,
      'Invalid',
      `ConfigMap "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 253 characters`,
    );
    expect(tooLong.body.details.causes).toHaveLength(1);
    expect(tooLong.body.details.causes[0].field).toBe('metadata.name');
    expect((await call('POST', CONFIGMAPS, { body: configMap('a'.repeat(253)) })).status).toBe(201);

    const ns = 'n'.repeat(64);
    await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }),
      422,
      'Invalid',
      `Namespace "${ns}" is invalid: metadata.name: Invalid value: "${ns}": must be no more than 63 characters`,
    );

    const both = 'B'.repeat(254);
    const twice = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap(both) }),
      422,
      'Invalid',
      `ConfigMap "${both}" is invalid: [metadata.name: Invalid value: "${both}": must be no more than 253 characters, metadata.name: Invalid value: "${both}": ${subdomainRule}]`,
    );
    expect(twice.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['metadata.name', 'metadata.name']);
  });

  test('a Pod without containers: 422 with a spec.containers cause', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('POST', PODS, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'empty' }, spec: { containers: [] } } }),
      422,
      'Invalid',
      'Pod "empty" is invalid: spec.containers: Required value',
    );
    expect(reply.body.details).toEqual({
      name: 'empty',
      kind: 'Pod',
      causes: [{ reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' }],
    });
    expect(cluster.store.get('pods', 'default', 'empty')).toBeUndefined();
  });

  test('the real Sandbox CRD schema: an enum violation is 422 with causes', async ({ cluster, call }) => {
    await installSandboxCrd(call);
    await settle(cluster);
    const reply = await refused(
      cluster,
      call,
      () => call('POST', SANDBOXES, { body: sandbox('paused', { operatingMode: 'Paused' }) }),
      422,
      'Invalid',
      'Sandbox.agents.x-k8s.io "paused" is invalid: spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"',
    );
    expect(reply.body.details).toEqual({
      name: 'paused',
      group: 'agents.x-k8s.io',
      kind: 'Sandbox',
      causes: [{ reason: 'FieldValueNotSupported', field: 'spec.operatingMode', message: 'Unsupported value: "Paused": supported values: "Running", "Suspended"' }],
    });
    // A required field missing, and a wrong type.
    const missing = await refused(
      cluster,
      call,
      () => call('POST', SANDBOXES, { body: { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', metadata: { name: 'bare' }, spec: {} } }),
      422,
      'Invalid',
      /^Sandbox\.agents\.x-k8s\.io "bare" is invalid: spec\.podTemplate: Required value/,
    );
    expect(missing.body.details.causes[0]).toMatchObject({ reason: 'FieldValueRequired', field: 'spec.podTemplate' });
    // The same object with a valid mode is accepted, and defaulted.
    const ok = await create(call, SANDBOXES, sandbox('running'));
    expect(ok.body.spec.operatingMode).toBe('Running');
    // An update into the invalid state is refused just the same.
    await refused(
      cluster,
      call,
      () => call('PATCH', `${SANDBOXES}/running`, { contentType: 'application/merge-patch+json', body: { spec: { operatingMode: 'Paused' } } }),
      422,
      'Invalid',
      'Sandbox.agents.x-k8s.io "running" is invalid: spec.operatingMode: Unsupported value: "Paused": supported values: "Running", "Suspended"',
    );
  });

  test('fieldValidation: Strict refuses an unknown field, Warn and the default warn, Ignore drops it silently', async ({ cluster, call }) => {
    await installSandboxCrd(call);
    await settle(cluster);
    await refused(
      cluster,
      call,
      () => call('POST', `${SANDBOXES}?fieldValidation=Strict`, { body: sandbox('strict', { foo: 'bar' }) }),
      400,
      'BadRequest',
      'strict decoding error: unknown field "spec.foo"',
    );
    expect(cluster.store.get('sandboxes.agents.x-k8s.io', 'default', 'strict')).toBeUndefined();

    const warned = await create(call, `${SANDBOXES}?fieldValidation=Warn`, sandbox('warned', { foo: 'bar' }));
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.foo\\""');
    expect(warned.body.spec.foo).toBeUndefined();

    // No directive means Warn, as kube-apiserver resolves it: pruned, with a warning.
    const defaulted = await create(call, SANDBOXES, sandbox('defaulted', { foo: 'bar' }));
    expect(defaulted.headers.warning).toBe('299 - "unknown field \\"spec.foo\\""');
    expect(defaulted.body.spec.foo).toBeUndefined();

    const ignored = await create(call, `${SANDBOXES}?fieldValidation=Ignore`, sandbox('ignored', { foo: 'bar' }));
    expect(ignored.headers.warning).toBeUndefined();
    expect(ignored.body.spec.foo).toBeUndefined();
    expect(cluster.store.get('sandboxes.agents.x-k8s.io', 'default', 'ignored')?.spec).not.toHaveProperty('foo');

    // Strict on a patch too.
    await refused(
      cluster,
      call,
      () =>
        call('PATCH', `${SANDBOXES}/ignored?fieldValidation=Strict`, {
          contentType: 'application/merge-patch+json',
          body: { spec: { foo: 'bar' } },
        }),
      400,
      'BadRequest',
      'strict decoding error: unknown field "spec.foo"',
    );
  });
});

test.describe('write preconditions', () => {
  test('create with metadata.resourceVersion set: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('versioned', { metadata: { name: 'versioned', resourceVersion: '5' } }) }),
      400,
      'BadRequest',
      'resourceVersion should not be set on objects to be created',
    );
  });

  test('the namespace in the body differs from the URL: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('elsewhere', { metadata: { name: 'elsewhere', namespace: 'kube-system' } }) }),
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    expect(cluster.store.get('configmaps', 'kube-system', 'elsewhere')).toBeUndefined();
  });

  test('create in a namespace that does not exist: 404 namespaces "x" not found', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces/x/configmaps', { body: configMap('orphan') }),
      404,
      'NotFound',
      'namespaces "x" not found',
    );
    expect(reply.body.details).toEqual({ name: 'x', kind: 'namespaces' });
  });

  test('create in a Terminating namespace: 403 Forbidden', async ({ cluster, call }) => {
    await create(call, '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    // A finalizer on an object inside keeps the namespace Terminating.
    await create(call, '/api/v1/namespaces/doomed/configmaps', configMap('held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    const deleted = await call('DELETE', '/api/v1/namespaces/doomed');
    expect(deleted.status).toBe(200);
    expect(deleted.body.status.phase).toBe('Terminating');
    await expect.poll(() => cluster.store.get('configmaps', 'doomed', 'held')?.metadata.deletionTimestamp).toBeTruthy();
    await settle(cluster);
    const reply = await refused(
      cluster,
      call,
      () => call('POST', '/api/v1/namespaces/doomed/configmaps', { body: configMap('late') }),
      403,
      'Forbidden',
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    expect(reply.body.details).toEqual({
      name: 'late',
      kind: 'configmaps',
      causes: [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }],
    });
  });

  test('a duplicate create: 409 AlreadyExists', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('dup'));
    const reply = await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { body: configMap('dup', { data: { a: 'other' } }) }),
      409,
      'AlreadyExists',
      'configmaps "dup" already exists',
    );
    expect(reply.body.details).toEqual({ name: 'dup', kind: 'configmaps' });
    expect(cluster.store.get('configmaps', 'default', 'dup')?.data).toEqual({ a: '1' });
  });

  test('an update with a stale resourceVersion: 409 Conflict', async ({ cluster, call }) => {
    const first = await create(call, CONFIGMAPS, configMap('raced'));
    const stale = first.body;
    const moved = await call('PUT', `${CONFIGMAPS}/raced`, { body: { ...stale, data: { a: '2' } } });
    expect(moved.status).toBe(200);
    const reply = await refused(
      cluster,
      call,
      () => call('PUT', `${CONFIGMAPS}/raced`, { body: { ...stale, data: { a: '3' } } }),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "raced": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(reply.body.details).toEqual({ name: 'raced', kind: 'configmaps' });
    expect(cluster.store.get('configmaps', 'default', 'raced')?.data).toEqual({ a: '2' });
  });

  test('delete preconditions that do not hold: 409 Conflict', async ({ cluster, call }) => {
    const created = await create(call, CONFIGMAPS, configMap('guarded'));
    const { uid, resourceVersion } = created.body.metadata;
    await refused(
      cluster,
      call,
      () => call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "guarded": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${uid}`,
    );
    await refused(
      cluster,
      call,
      () => call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1' } } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on configmaps "guarded": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${resourceVersion}`,
    );
    expect(cluster.store.get('configmaps', 'default', 'guarded')).toBeDefined();
    const ok = await call('DELETE', `${CONFIGMAPS}/guarded`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid, resourceVersion } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'guarded', kind: 'configmaps', uid } });
  });

  test('a JSON patch whose test operation fails: 422', async ({ cluster, call }) => {
    await create(call, CONFIGMAPS, configMap('tested'));
    await refused(
      cluster,
      call,
      () =>
        call('PATCH', `${CONFIGMAPS}/tested`, {
          contentType: 'application/json-patch+json',
          body: [
            { op: 'test', path: '/data/a', value: 'not-1' },
            { op: 'replace', path: '/data/a', value: '2' },
          ],
        }),
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    );
    expect(cluster.store.get('configmaps', 'default', 'tested')?.data).toEqual({ a: '1' });
  });

  test('strategic merge patch on a custom resource: 415', async ({ cluster, call }) => {
    await installSandboxCrd(call);
    await create(call, SANDBOXES, sandbox('smp'));
    await settle(cluster);
    const accepted = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
    await refused(
      cluster,
      call,
      () => call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/strategic-merge-patch+json', body: { spec: { operatingMode: 'Suspended' } } }),
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    );
    await refused(
      cluster,
      call,
      () => call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/json', body: { spec: { operatingMode: 'Suspended' } } }),
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    );
    // A merge patch does it.
    const merged = await call('PATCH', `${SANDBOXES}/smp`, { contentType: 'application/merge-patch+json', body: { spec: { operatingMode: 'Suspended' } } });
    expect(merged.status).toBe(200);
    expect(merged.body.spec.operatingMode).toBe('Suspended');
  });

  test('server-side apply without fieldManager: 422 on PatchOptions', async ({ cluster, call }) => {
    const reply = await refused(
      cluster,
      call,
      () => call('PATCH', `${CONFIGMAPS}/applied`, { contentType: 'application/apply-patch+yaml', body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n' }),
      422,
      'Invalid',
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    expect(reply.body.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      name: '',
      causes: [{ reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' }],
    });
    expect(cluster.store.get('configmaps', 'default', 'applied')).toBeUndefined();
    const applied = await call('PATCH', `${CONFIGMAPS}/applied?fieldManager=test`, {
      contentType: 'application/apply-patch+yaml',
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n',
    });
    expect(applied.status).toBe(201);
  });
});

test.describe('list parameters', () => {
  test('an invalid labelSelector: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('=x')}`),
      400,
      'BadRequest',
      "found '=', expected: !, identifier, or 'end of string'",
    );
    await refused(
      cluster,
      call,
      () => call('GET', `${CONFIGMAPS}?labelSelector=${encodeURIComponent('app in (a')}`),
      400,
      'BadRequest',
      /^unable to parse requirement: found '', expected: ',' or '\)'$/,
    );
  });

  test('an invalid fieldSelector: 400', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?fieldSelector=${encodeURIComponent('spec.bogus=x')}`),
      400,
      'BadRequest',
      'field label not supported: spec.bogus',
    );
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?fieldSelector=nonsense`),
      400,
      'BadRequest',
      "invalid selector: 'nonsense'; can't understand 'nonsense'",
    );
    // The same on a watch.
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}?watch=true&fieldSelector=${encodeURIComponent('spec.bogus=x')}`),
      400,
      'BadRequest',
      'field label not supported: spec.bogus',
    );
  });

  test('a garbage continue token: 400', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('GET', `${CONFIGMAPS}?limit=1&continue=garbage!!`), 400, 'BadRequest', /^invalid continue token/);
    const notJson = Buffer.from('{"rv": "x"').toString('base64url');
    await refused(cluster, call, () => call('GET', `${CONFIGMAPS}?limit=1&continue=${notJson}`), 400, 'BadRequest', /^invalid continue token/);
  });
});

test.describe('exec', () => {
  test('exec by plain GET, without an upgrade: 400', async ({ cluster, call }) => {
    await create(call, PODS, pod('shell'));
    await settle(cluster);
    await refused(
      cluster,
      call,
      () => call('GET', `${PODS}/shell/exec?command=ls&stdout=true`),
      400,
      'BadRequest',
      /needs a WebSocket upgrade/,
    );
  });

  test('an SPDY upgrade: 400 Status that names WebSocket', async ({ cluster, call }) => {
    await create(call, PODS, pod('shell'));
    // The SPDY refusal comes after the Pod and node-agent checks; the agent is never asked to run anything.
    // (The cluster plugs its own node agent in only when started with one; a stub is enough here.)
    (cluster as unknown as { server: ApiServer }).server.setNodeBackend({
      logs: () => {
        throw new Error('not used');
      },
      exec: async () => {
        throw new Error('not used');
      },
    });
    await settle(cluster);
    const before = cluster.store.currentRevision();
    const { port } = new URL(cluster.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: cluster.certificateAuthority, ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(
          [
            'POST /api/v1/namespaces/default/pods/shell/exec?command=ls&stdout=true&stderr=true HTTP/1.1',
            `Host: 127.0.0.1:${port}`,
            `Authorization: Bearer ${cluster.token}`,
            'Connection: Upgrade',
            'Upgrade: SPDY/3.1',
            'X-Stream-Protocol-Version: v4.channel.k8s.io',
            'X-Stream-Protocol-Version: v3.channel.k8s.io',
            'Content-Length: 0',
            '',
            '',
          ].join('\r\n'),
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(head).not.toMatch(/\r\nUpgrade:/i);
    const status = JSON.parse(body);
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, reason: 'BadRequest' });
    expect(status.message).toMatch(/WebSocket/);
    expect(status.message).toMatch(/SPDY is not supported/);
    expect(cluster.store.currentRevision()).toBe(before);
    expect((await call('GET', `${PODS}/shell`)).status).toBe(200);
  });
});
