/**
 * Bad requests over the wire: no or a wrong token, bodies that do not decode or are too large,
 * unknown paths and bodies of another kind each get the `kind: Status` error kube-apiserver gives
 * (code, reason, message wording), nothing is stored, and the server keeps serving. Raw HTTPS so
 * that nothing between the test and the server reshapes the request or the answer.
 */

import { expect } from '@playwright/test';
import { configMap, CONFIGMAPS, create, installSandboxCrd, refused, sandbox, SANDBOXES, settle, test } from './test-kit.ts';

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
