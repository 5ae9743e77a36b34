/**
 * Invalid objects over the wire: names, a Pod without containers, the real Sandbox CRD's schema
 * and fieldValidation get kube-apiserver's 422 (or 400) Status with its causes, nothing is stored,
 * and the server keeps serving. Raw HTTPS, as in the other http-bad-input tests.
 */

import { expect } from '@playwright/test';
import { configMap, CONFIGMAPS, create, installSandboxCrd, PODS, refused, sandbox, SANDBOXES, settle, test } from './test-kit.ts';

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
