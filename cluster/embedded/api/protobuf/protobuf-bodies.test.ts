/**
 * Protobuf bodies over raw HTTPS: the envelope is built here byte by byte with protobufjs' Writer
 * (independent of the server's message tables), so a wrong field number on either side shows.
 * Bad envelopes get the status kube-apiserver gives, and nothing is stored half-way.
 */
import { expect } from '@playwright/test';
import protobuf from 'protobufjs';
import { refused, test } from '../test-kit.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** runtime.Unknown{typeMeta{apiVersion=1, kind=2}=1, raw=2} behind the "k8s\0" magic. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const typeMeta = protobuf.Writer.create().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).finish();
  const unknown = protobuf.Writer.create().uint32(0x0a).bytes(typeMeta).uint32(0x12).bytes(raw).finish();
  return Buffer.concat([Buffer.from(MAGIC), unknown]);
}

/** A v1 ConfigMap: metadata=1 {name=1, labels=11 map}, data=2 map, immutable=4. */
function configMapMessage(name: string, data: Record<string, string>, immutable?: boolean): Uint8Array {
  const entry = (key: string, value: string) => protobuf.Writer.create().uint32(0x0a).string(key).uint32(0x12).string(value).finish();
  const meta = protobuf.Writer.create().uint32(0x0a).string(name).uint32(0x5a).bytes(entry('made-by', 'protobuf')).finish();
  const w = protobuf.Writer.create().uint32(0x0a).bytes(meta);
  for (const [key, value] of Object.entries(data)) w.uint32(0x12).bytes(entry(key, value));
  if (immutable !== undefined) w.uint32(0x20).bool(immutable);
  return w.finish();
}

test('a ConfigMap in protobuf is stored as JSON, with zero values the Go type keeps', async ({ cluster, call }) => {
  const reply = await call('POST', CONFIGMAPS, {
    contentType: PROTOBUF,
    accept: `${PROTOBUF}, application/json`,
    body: envelope('v1', 'ConfigMap', configMapMessage('pb', { a: '1', empty: '' }, false)),
  });
  expect(reply.status, reply.text).toBe(201);
  expect(reply.headers['content-type']).toBe('application/json');
  expect(reply.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'pb', labels: { 'made-by': 'protobuf' } }, data: { a: '1', empty: '' }, immutable: false });
  expect(reply.body.metadata.generation).toBeUndefined();
  expect(cluster.store.get('configmaps', 'default', 'pb')?.data).toEqual({ a: '1', empty: '' });
});

test('a client that accepts only protobuf: 406 NotAcceptable', async ({ cluster, call }) => {
  await refused(
    cluster,
    call,
    () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, accept: PROTOBUF, body: envelope('v1', 'ConfigMap', configMapMessage('pb', {})) }),
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json',
  );
});

test.describe('bad envelopes: 400, nothing stored', () => {
  const unrecognized = 'the object provided is unrecognized (must be of type ConfigMap): ';
  test('no "k8s\\0" magic', async ({ cluster, call }) => {
    await refused(
      cluster,
      call,
      () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, body: Buffer.from('{"kind":"ConfigMap"}') }),
      400,
      'BadRequest',
      `${unrecognized}provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap"})`,
    );
  });
  test('a truncated envelope', async ({ cluster, call }) => {
    const whole = envelope('v1', 'ConfigMap', configMapMessage('cut', { a: '1' }));
    await refused(cluster, call, () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, body: whole.subarray(0, whole.length - 5) }), 400, 'BadRequest', /unexpected EOF/);
  });
  test('a truncated object inside a whole envelope', async ({ cluster, call }) => {
    const message = configMapMessage('cut', { a: '1' });
    const reply = await refused(cluster, call, () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, body: envelope('v1', 'ConfigMap', message.subarray(0, 6)) }), 400, 'BadRequest', /a protobuf ConfigMap: unexpected EOF/);
    expect(reply.body.message).toContain(unrecognized);
  });
  test('an envelope without a kind', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, body: envelope('v1', '', configMapMessage('x', {})) }), 400, 'BadRequest', /Object 'Kind' is missing/);
  });
  test('an empty body', async ({ cluster, call }) => {
    await refused(cluster, call, () => call('POST', CONFIGMAPS, { contentType: PROTOBUF, body: Buffer.alloc(0) }), 400, 'BadRequest', /provided data does not appear to be a protobuf message/);
  });
});

test('a kind without a message table: 415 naming the kind and the manifest way', async ({ cluster, call }) => {
  const reply = await refused(
    cluster,
    call,
    () => call('POST', '/api/v1/namespaces/default/endpoints', { contentType: PROTOBUF, body: envelope('v1', 'Endpoints', new Uint8Array()) }),
    415,
    'UnsupportedMediaType',
    'the embedded cluster cannot decode a protobuf body of kind Endpoints (v1); send it as JSON or YAML instead, e.g. from a manifest with kubectl apply -f',
  );
  expect(reply.body.details.kind).toBe('Endpoints');
});

test('a covered kind sent to another resource: 400 as the decoder cannot convert it', async ({ cluster, call }) => {
  await refused(
    cluster,
    call,
    () => call('POST', '/api/v1/namespaces/default/secrets', { contentType: PROTOBUF, body: envelope('v1', 'ConfigMap', configMapMessage('x', {})) }),
    400,
    'BadRequest',
    /ConfigMap in version "v1" cannot be handled as a Secret/,
  );
});
