/**
 * The gRPC transport between the grpc-js client and server, against the in-memory test double:
 * every RPC round-trips every field; every status code comes back as itself; the watch streams
 * in order and is cleaned up when the peer goes (a cancel, or a connection that just drops);
 * bad input: a malformed message, an unknown id, an invalid name, a second create with the same
 * id. (The reference driver over the same wire: driver/kubernetes/deadline.test.ts and the lanes.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { DriverError, type DriverErrorCode, type DriverEvent, type DriverSandbox } from '../compute-driver.ts';
import { GrpcDriverClient } from './client.ts';
import { serveDriver, type DriverServer } from './server.ts';
import { FakeDriver, READY } from './test-kit.ts';

let dir: string;
const cleanups: (() => Promise<unknown> | unknown)[] = [];

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grpc-rpc-'));
});

test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function setUp(): Promise<{ driver: FakeDriver; server: DriverServer; client: GrpcDriverClient }> {
  const driver = new FakeDriver();
  const server = await serveDriver(driver, join(dir, 'driver.sock'));
  cleanups.push(() => server.close());
  const client = new GrpcDriverClient(server.socketPath);
  cleanups.push(() => client.close());
  return { driver, server, client };
}

async function driverError(promise: Promise<unknown>): Promise<DriverError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to fail').toBeInstanceOf(DriverError);
  return error as DriverError;
}

/** A sandbox with every field of the contract set. */
const FULL: DriverSandbox = {
  id: 'sb-1',
  name: 'demo',
  namespace: 'team-ns',
  workspace: 'team-a',
  spec: {
    logLevel: 'debug',
    environment: { GREETING: 'hello world', EMPTY: '', 'WITH=EQUALS': 'x=y' },
    template: {
      image: 'example/agent:1',
      agentSocketPath: '/run/agent.sock',
      labels: { team: 'a' },
      environment: { FROM_TEMPLATE: '1' },
      resources: { gpu: { count: 2 } },
      platformConfig: { runtimeClassName: 'gvisor', annotations: { a: 'b' }, list: [1, 'two', true, null] },
      driverConfig: { supervisorTerminationGracePeriodSeconds: 7, nested: { deep: [{ x: 1.5 }] } },
      userNamespaces: false,
    },
    policy: new Uint8Array([0x0a, 0x02, 0x68, 0x69]),
    resourceRequirements: { cpuRequest: '500m', cpuLimit: '2', memoryRequest: '256Mi', memoryLimit: '1Gi' },
    sandboxToken: 'jwt',
    command: ['sh', '-c', 'echo "a b" && sleep infinity', ''],
    tty: true,
    awaitMainProcessAttachment: true,
    workloadIdentity: { user: 'agent', group: 'agents' },
    launchAuthentication: new Uint8Array([1, 2, 3]),
  },
  status: {
    name: 'team-a--demo',
    instanceId: 'pod-1',
    agentFd: 'fd:3',
    sandboxFd: 'fd:4',
    conditions: [
      { type: 'Ready', status: 'True', reason: 'DependenciesReady', message: 'Pod is Ready; Service Exists', transitionTime: '2026-01-02T03:04:05.678Z' },
      { type: 'Suspended', status: 'Unknown', reason: '', message: '' },
    ],
    deleting: true,
  },
};

test('GetCapabilities, AuthenticateSandbox and GetGatewayListenerRequirements round-trip every field', async () => {
  const { driver, client } = await setUp();
  expect(await client.getCapabilities()).toEqual(driver.caps);
  expect(await client.authenticateSandbox('secret-credential')).toBe('sandbox-for-secret-credential');
  expect(await client.getGatewayListenerRequirements()).toEqual(driver.requirements);
  driver.caps = { driverName: 'bare', driverVersion: '', defaultImage: '', gatewayManagesLifecycle: false, supportsSandboxAuthentication: false, driverReportsRuntimeReadiness: false };
  expect(await client.getCapabilities()).toStrictEqual(driver.caps);
});

test('ValidateSandboxCreate and CreateSandbox carry every field of the sandbox; absent ones stay absent', async () => {
  const { driver, client } = await setUp();
  await client.validateSandboxCreate(FULL);
  await client.createSandbox(FULL);
  const minimal: DriverSandbox = { id: 'sb-2', name: 'bare', namespace: '', workspace: '' };
  await client.createSandbox(minimal);
  expect(driver.calls.map((c) => c.method)).toEqual(['validateSandboxCreate', 'createSandbox', 'createSandbox']);
  expect(driver.calls[0].arg).toStrictEqual(FULL);
  expect(driver.calls[1].arg).toStrictEqual(FULL);
  expect(driver.calls[2].arg).toStrictEqual(minimal);
});

test('GetSandbox, ListSandboxes, StopSandbox, StartSandbox, DeleteSandbox, EnsureWorkspace and DeleteWorkspace round-trip', async () => {
  const { driver, client } = await setUp();
  driver.sandboxes.set(FULL.id, FULL);
  expect(await client.getSandbox({ sandboxId: FULL.id, name: 'demo' })).toStrictEqual(FULL);
  expect(await client.listSandboxes()).toStrictEqual([FULL]);
  await client.stopSandbox({ sandboxId: FULL.id });
  await client.startSandbox({ sandboxId: FULL.id, name: 'demo', generationId: 'g2', launchAuthentication: new Uint8Array([9]) });
  expect(await client.deleteSandbox({ sandboxId: FULL.id })).toBe(true);
  expect(await client.deleteSandbox({ sandboxId: FULL.id })).toBe(false);
  await client.ensureWorkspace('team-a');
  await client.deleteWorkspace('team-a');
  expect(driver.calls.slice(2).map((c) => [c.method, c.arg])).toStrictEqual([
    ['stopSandbox', { sandboxId: FULL.id }],
    ['startSandbox', { sandboxId: FULL.id, name: 'demo', launchAuthentication: new Uint8Array([9]), generationId: 'g2' }],
    ['deleteSandbox', { sandboxId: FULL.id }],
    ['deleteSandbox', { sandboxId: FULL.id }],
    ['ensureWorkspace', 'team-a'],
    ['deleteWorkspace', 'team-a'],
  ]);
  expect(driver.calls[0].arg).toStrictEqual({ sandboxId: FULL.id, name: 'demo' });
});

test('every status code comes back with its code and message, as a plain gRPC status', async () => {
  const { driver, client } = await setUp();
  const codes: DriverErrorCode[] = ['INVALID_ARGUMENT', 'NOT_FOUND', 'ALREADY_EXISTS', 'FAILED_PRECONDITION', 'UNAVAILABLE', 'UNIMPLEMENTED', 'DEADLINE_EXCEEDED', 'CANCELLED', 'INTERNAL'];
  const ref = { sandboxId: 'abc' };
  const calls: [string, () => Promise<unknown>][] = [
    ['getCapabilities', () => client.getCapabilities()],
    ['createSandbox', () => client.createSandbox({ id: 'x', name: 'x', namespace: '', workspace: '' })],
    ['getSandbox', () => client.getSandbox(ref)],
    ['stopSandbox', () => client.stopSandbox(ref)],
    ['deleteSandbox', () => client.deleteSandbox(ref)],
  ];
  for (const code of codes) {
    for (const [method, call] of calls) {
      const message = `${method} failed: ${code.toLowerCase()} — "quoted", ünïcode`;
      driver.failure = new DriverError(code, message);
      const error = await driverError(call());
      expect({ method, code: error.code, message: error.message }).toEqual({ method, code, message });
    }
  }
  driver.failure = new TypeError('cannot read properties of undefined');
  const internal = await driverError(client.listSandboxes());
  expect([internal.code, internal.message]).toEqual(['INTERNAL', 'cannot read properties of undefined']);
});

test('bad input: an unknown id is NOT_FOUND, an empty id INVALID_ARGUMENT before the driver, a second create of one id ALREADY_EXISTS', async () => {
  const { driver, client } = await setUp();
  const missing = await driverError(client.getSandbox({ sandboxId: 'nope' }));
  expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'sandbox nope not found']);
  const before = driver.calls.length;
  for (const call of [() => client.getSandbox({ sandboxId: '' }), () => client.stopSandbox({ sandboxId: '' }), () => client.startSandbox({ sandboxId: '' }), () => client.deleteSandbox({ sandboxId: '' })]) {
    const error = await driverError(call());
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', 'sandbox_id is required']);
  }
  expect(driver.calls.length).toBe(before);
  await client.createSandbox({ id: 'twice', name: 'a', namespace: '', workspace: '' });
  const again = await driverError(client.createSandbox({ id: 'twice', name: 'b', namespace: '', workspace: '' }));
  expect([again.code, again.message]).toEqual(['ALREADY_EXISTS', 'sandbox already exists']);
});

/** One raw gRPC request over HTTP/2: the status and message the server answers with. */
async function rawCall(socket: string, path: string, frame: Buffer): Promise<{ status?: string; message?: string }> {
  const session = http2Connect('http://localhost', { createConnection: () => netConnect(socket) });
  try {
    return await new Promise((done, fail) => {
      const stream = session.request({ [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: path, 'content-type': 'application/grpc', te: 'trailers' });
      let headers: Record<string, unknown> = {};
      stream.on('response', (h) => (headers = h));
      stream.on('trailers', (t) => done({ status: String(t['grpc-status']), message: decodeURIComponent(String(t['grpc-message'] ?? '')) }));
      stream.on('end', () => done({ status: headers['grpc-status'] as string, message: headers['grpc-message'] as string }));
      stream.on('error', fail);
      stream.on('data', () => undefined);
      stream.end(frame);
    });
  } finally {
    session.destroy();
  }
}

test('a malformed message is refused with INTERNAL and never reaches the driver', async () => {
  const { driver, server } = await setUp();
  // A length-prefixed frame whose body starts with field 1 in wire type 7, which protobuf does not have.
  const body = Buffer.from([0x0f, 0x00, 0x00]);
  const frame = Buffer.concat([Buffer.from([0]), Buffer.from(new Uint8Array(new Uint32Array([body.length]).buffer).reverse()), body]);
  const answer = await rawCall(server.socketPath, '/openshell.compute.v1.ComputeDriver/GetSandbox', frame);
  expect(answer, JSON.stringify(answer)).toMatchObject({ status: '13' }); // INTERNAL
  expect(answer.message).toMatch(/deserializ|parse/i);
  expect(driver.calls).toEqual([]);
});

test('WatchSandboxes delivers snapshots, deletions and platform events in order, and ends on abort, aborting the driver watch', async () => {
  const { driver, server, client } = await setUp();
  const received: DriverEvent[] = [];
  const controller = new AbortController();
  const watching = client.watchSandboxes((event) => received.push(event), controller.signal);
  const emit = await driver.watchStarted.promise;
  const events: DriverEvent[] = [
    { type: 'sandbox', sandbox: FULL },
    { type: 'sandbox', sandbox: { id: 'sb-1', name: 'demo', namespace: 'ns', workspace: 'w', status: { name: 'n', instanceId: '', agentFd: '', sandboxFd: '', conditions: READY, deleting: false } } },
    { type: 'platformEvent', sandboxId: 'sb-1', event: { eventTime: '2026-01-02T03:04:05.000Z', source: 'kubernetes', type: 'Warning', reason: 'BackOff', message: 'restarting', metadata: { pod: 'p' } } },
    { type: 'deleted', sandboxId: 'sb-1' },
  ];
  for (const event of events) emit(event);
  await expect.poll(() => received.length).toBe(4);
  expect(received).toStrictEqual(events);
  expect(server.activeWatches()).toBe(1);
  controller.abort();
  await expect(watching).resolves.toBeUndefined();
  await expect(driver.watchEnded.promise).resolves.toBe('aborted');
  await expect.poll(() => server.activeWatches()).toBe(0);
  expect(await client.listSandboxes()).toEqual([]);
});

test('a peer that disconnects mid-stream: the server ends the driver watch and keeps none open', async () => {
  const { driver, server } = await setUp();
  // A raw HTTP/2 peer opens the watch, then its connection simply goes away (no cancel sent).
  const session = http2Connect('http://localhost', { createConnection: () => netConnect(server.socketPath) });
  const stream = session.request({ [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: '/openshell.compute.v1.ComputeDriver/WatchSandboxes', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  stream.end(Buffer.from([0, 0, 0, 0, 0]));
  const emit = await driver.watchStarted.promise;
  emit({ type: 'deleted', sandboxId: 'x' });
  expect(server.activeWatches()).toBe(1);
  session.destroy(); // the connection goes, mid-stream, with no RST_STREAM for the call
  await expect(driver.watchEnded.promise).resolves.toBe('aborted');
  await expect.poll(() => server.activeWatches()).toBe(0);
});

test("a driver's watch error ends the client's watch with the same code; closing the server ends open watches with UNAVAILABLE", async () => {
  const { driver, server, client } = await setUp();
  driver.watchFailure = new DriverError('UNAVAILABLE', 'the Kubernetes API server is unreachable');
  const failed = await driverError(client.watchSandboxes(() => undefined, new AbortController().signal));
  expect([failed.code, failed.message]).toEqual(['UNAVAILABLE', 'the Kubernetes API server is unreachable']);
  driver.watchFailure = undefined;
  const outcome = driverError(client.watchSandboxes(() => undefined, new AbortController().signal));
  await driver.watchStarted.promise;
  await server.close();
  const error = await outcome;
  expect([error.code, error.message]).toEqual(['UNAVAILABLE', 'the compute driver is shutting down']);
});
