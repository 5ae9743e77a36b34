/**
 * parseRequest over the URLs kubectl and @kubernetes/client-node really send (kubectl get, -w,
 * create, apply, delete, exec; client-node's typed APIs, Watch and ListWatch), and the bodies
 * that carry preconditions.
 */
import { expect, test } from '@playwright/test';
import { parseRequest } from './parse-request.ts';

const json = { 'content-type': 'application/json' };
const body = (value: unknown) => Buffer.from(JSON.stringify(value));

test('verb, group, version, resource, subresource, namespace and name from method and path', () => {
  const table: [string, string, Record<string, unknown>][] = [
    // kubectl get pods / get pod x / get -A
    ['GET', '/api/v1/namespaces/default/pods?limit=500', { verb: 'list', group: '', version: 'v1', resource: 'pods', namespace: 'default', limit: 500 }],
    ['GET', '/api/v1/namespaces/default/pods/x', { verb: 'get', resource: 'pods', namespace: 'default', name: 'x' }],
    ['GET', '/api/v1/pods?limit=500', { verb: 'list', resource: 'pods', namespace: undefined }],
    // kubectl get pods -w, and get pod x -w (the name comes from the field selector)
    ['GET', '/api/v1/namespaces/default/pods?resourceVersion=42&watch=true', { verb: 'watch', resourceVersion: '42' }],
    ['GET', '/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dx&resourceVersion=0&watch=true', { verb: 'watch', name: 'x', fieldSelector: 'metadata.name=x', resourceVersion: '0' }],
    // the legacy watch prefix; client-go's WatchList
    ['GET', '/api/v1/watch/namespaces/ns/secrets', { verb: 'watch', resource: 'secrets', namespace: 'ns' }],
    ['GET', '/apis/agents.x-k8s.io/v1beta1/namespaces/openshell/sandboxes?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=1', { verb: 'watch', group: 'agents.x-k8s.io', version: 'v1beta1', resource: 'sandboxes', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }],
    // writes
    ['POST', '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict', { verb: 'create', resource: 'configmaps', fieldManager: 'kubectl-create', name: undefined }],
    ['PUT', '/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes/sb/status', { verb: 'update', resource: 'sandboxes', name: 'sb', subresource: 'status' }],
    ['PATCH', '/api/v1/namespaces/ns/pods/p', { verb: 'patch', name: 'p' }],
    ['DELETE', '/api/v1/namespaces/ns/secrets/s', { verb: 'delete', name: 's' }],
    ['DELETE', '/api/v1/namespaces/ns/secrets?labelSelector=a%3Db', { verb: 'deletecollection', labelSelector: 'a=b' }],
    // namespaces: the namespace is its own name; status and finalize are its subresources
    ['GET', '/api/v1/namespaces/ns', { verb: 'get', resource: 'namespaces', name: 'ns', namespace: 'ns' }],
    ['PUT', '/api/v1/namespaces/ns/finalize', { verb: 'update', resource: 'namespaces', name: 'ns', subresource: 'finalize' }],
    ['GET', '/api/v1/namespaces/ns/status', { verb: 'get', resource: 'namespaces', name: 'ns', subresource: 'status' }],
    ['POST', '/api/v1/namespaces', { verb: 'create', resource: 'namespaces' }],
    // cluster-scoped and grouped
    ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', { verb: 'get', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'admin', namespace: undefined }],
    // connect: exec, attach, port-forward, proxy; a log is a get
    ['GET', '/api/v1/namespaces/ns/pods/p/exec?command=echo&command=hi&container=main&stdout=true', { verb: 'connect', subresource: 'exec', name: 'p' }],
    ['POST', '/api/v1/namespaces/ns/pods/p/portforward', { verb: 'connect', subresource: 'portforward' }],
    ['GET', '/api/v1/namespaces/ns/services/s/proxy/healthz', { verb: 'connect', resource: 'services', subresource: 'proxy', name: 's' }],
    ['GET', '/api/v1/namespaces/ns/pods/p/log?follow=true', { verb: 'get', subresource: 'log' }],
    // client-node's ListWatch: a list, then a watch from its resourceVersion
    ['GET', '/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx', { verb: 'list', labelSelector: 'app=x', resourceVersion: undefined }],
    ['GET', '/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx&resourceVersion=17&watch=true', { verb: 'watch', resourceVersion: '17' }],
    ['GET', '/api/v1/namespaces/ns/pods?continue=abc&limit=2', { verb: 'list', continue: 'abc', limit: 2 }],
  ];
  for (const [method, url, expected] of table) {
    const request = parseRequest({ method, url });
    const present = Object.fromEntries(Object.entries(expected).filter(([, value]) => value !== undefined));
    expect({ method, url, ...request }, `${method} ${url}`).toMatchObject({ method, url, path: url, ...present });
    for (const [key, value] of Object.entries(expected)) if (value === undefined) expect(key in request, `${method} ${url}: ${key}`).toBe(false);
  }
});

test('non-resource paths and unknown methods are refused, naming the path', () => {
  for (const url of ['/version?timeout=32s', '/api', '/apis', '/apis/apps', '/openapi/v3', '/api/v1']) {
    expect(() => parseRequest({ method: 'GET', url })).toThrow(`not a resource request: ${new URL(url, 'https://x').pathname}`);
  }
  expect(() => parseRequest({ method: 'OPTIONS', url: '/api/v1/pods' })).toThrow('no Kubernetes verb for the HTTP method OPTIONS (/api/v1/pods)');
});

test('bodies: patch types, JSON and apply YAML, preconditions from bodies, JSON patch ops and DeleteOptions', () => {
  const put = parseRequest({ method: 'PUT', url: '/api/v1/namespaces/ns/configmaps/c', headers: json, body: body({ metadata: { name: 'c', resourceVersion: '7', uid: 'u1' } }) });
  expect(put).toMatchObject({ resourceVersionPrecondition: '7', uidPrecondition: 'u1' });

  const merge = parseRequest({ method: 'PATCH', url: '/api/v1/namespaces/ns/pods/p', headers: { 'content-type': 'application/merge-patch+json' }, body: body({ metadata: { resourceVersion: '9' } }) });
  expect(merge).toMatchObject({ patchType: 'merge', resourceVersionPrecondition: '9', body: { metadata: { resourceVersion: '9' } } });

  const strategic = parseRequest({ method: 'PATCH', url: '/api/v1/namespaces/ns/pods/p', headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: body({ metadata: { uid: 'u2' } }) });
  expect(strategic).toMatchObject({ patchType: 'strategic', uidPrecondition: 'u2' });
  expect(strategic.resourceVersionPrecondition).toBeUndefined();

  const apply = parseRequest({
    method: 'PATCH',
    url: '/api/v1/namespaces/ns/configmaps/c?fieldManager=me&force=true',
    headers: { 'content-type': 'application/apply-patch+yaml' },
    body: Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  resourceVersion: "12"\ndata:\n  a: b\n'),
  });
  expect(apply).toMatchObject({ patchType: 'apply', fieldManager: 'me', resourceVersionPrecondition: '12', body: { kind: 'ConfigMap', data: { a: 'b' } } });

  const jsonPatch = parseRequest({
    method: 'PATCH',
    url: '/api/v1/namespaces/ns/pods/p',
    headers: { 'content-type': 'application/json-patch+json' },
    body: body([{ op: 'test', path: '/metadata/resourceVersion', value: '3' }, { op: 'replace', path: '/metadata/resourceVersion', value: '4' }, { op: 'remove', path: '/spec/schedulingGates' }]),
  });
  expect(jsonPatch).toMatchObject({ patchType: 'json', resourceVersionPrecondition: '4' });

  const deletion = parseRequest({ method: 'DELETE', url: '/api/v1/namespaces/ns/pods/p', headers: json, body: body({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'u3', resourceVersion: '5' } }) });
  expect(deletion).toMatchObject({ verb: 'delete', resourceVersionPrecondition: '5', uidPrecondition: 'u3' });

  // A create carries no precondition; protobuf and unparsable bodies are undefined.
  const create = parseRequest({ method: 'POST', url: '/api/v1/namespaces/ns/pods', headers: json, body: body({ metadata: { name: 'p', resourceVersion: '1' } }) });
  expect(create.resourceVersionPrecondition).toBeUndefined();
  const protobuf = parseRequest({ method: 'POST', url: '/api/v1/namespaces', headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: Buffer.from([0x6b, 0x38, 0x73, 0x00]) });
  expect('body' in protobuf).toBe(false);
  const broken = parseRequest({ method: 'PUT', url: '/api/v1/namespaces/ns/pods/p', headers: json, body: Buffer.from('{"metadata":') });
  expect('body' in broken).toBe(false);
  expect(broken.resourceVersionPrecondition).toBeUndefined();
});
