/**
 * The gRPC transport, checked against an in-memory fake driver (the real KubernetesDriver has
 * its own tests): every rpc round-trips, every DriverError comes back as itself, the socket path
 * is vetted before binding, and the CLI serves, refuses bad input and cleans up on SIGTERM.
 */
import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { execa, type ResultPromise } from 'execa';
import {
  DriverError,
  type ComputeDriver,
  type DriverCapabilities,
  type DriverErrorCode,
  type DriverEvent,
  type DriverSandbox,
  type PublicPhase,
  type SandboxSpec,
} from '../compute-driver.ts';
import { GrpcDriverClient } from './client.ts';
import { serveDriver, type DriverServer } from './server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const DRIVER_SCRIPT = join(ROOT, 'scripts/driver.ts');

// ---- a fake in-memory driver ------------------------------------------------------------------

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function sandbox(id: string, overrides: Partial<DriverSandbox> = {}): DriverSandbox {
  return {
    id,
    name: `sb-${id}`,
    workspace: 'team-a',
    namespace: 'openshell',
    phase: 'Ready',
    conditions: [
      { type: 'Ready', status: 'True', reason: 'DependenciesReady', message: 'Pod is Ready; Service Exists', lastTransitionTime: '2026-01-02T03:04:05Z' },
      { type: 'Suspended', status: 'Unknown' },
    ],
    deleting: false,
    runtimeIdentity: `kubernetes://openshell/cr-uid-${id}/pod-uid-${id}`,
    objects: {
      sandbox: `team-a--sb-${id}`,
      workloadPod: `team-a--sb-${id}`,
      supervisorPod: `sup-${id}-g1`,
      boundaryService: `boundary-${id}`,
      generation: 'g1',
      secrets: [`sandbox-${id}`, `supervisor-${id}-g1`],
    },
    ...overrides,
  };
}

/** Records what arrived, answers from a map, and fails with `failure` when one is set. */
class FakeDriver implements ComputeDriver {
  readonly sandboxes = new Map<string, DriverSandbox>();
  readonly calls: { method: string; arg?: unknown }[] = [];
  failure?: unknown;
  caps: DriverCapabilities = {
    driverName: 'fake',
    driverVersion: '9.9.9',
    agentSandboxApiVersion: 'v1beta1',
    workspaceMode: 'managed',
    variant: 'suspend-first',
    gatewayManagesLifecycle: true,
  };
  /** Resolved with the listener once a watch is running; reset per watch. */
  watchStarted = deferred<(event: DriverEvent) => void>();
  watchEnded = deferred<'aborted'>();
  watchFailure?: unknown;
  private nextId = 1;

  private enter(method: string, arg?: unknown): void {
    this.calls.push({ method, arg });
    if (this.failure !== undefined) throw this.failure;
  }

  private find(id: string): DriverSandbox {
    const found = this.sandboxes.get(id);
    if (!found) throw new DriverError('NOT_FOUND', `sandbox ${id} not found`);
    return found;
  }

  async capabilities() {
    this.enter('capabilities');
    return this.caps;
  }
  async validate(spec: SandboxSpec) {
    this.enter('validate', spec);
  }
  async create(spec: SandboxSpec) {
    this.enter('create', spec);
    for (const s of this.sandboxes.values()) if (s.name === spec.name) throw new DriverError('ALREADY_EXISTS', 'sandbox already exists');
    const id = String(this.nextId++).padStart(16, '0');
    const created = sandbox(id, { name: spec.name, workspace: spec.workspace ?? 'default', phase: 'Ready' });
    this.sandboxes.set(id, created);
    return created;
  }
  async get(id: string) {
    this.enter('get', id);
    return this.find(id);
  }
  async list() {
    this.enter('list');
    return [...this.sandboxes.values()];
  }
  async stop(id: string) {
    this.enter('stop', id);
    const stopped = { ...this.find(id), phase: 'Stopped' as const, runtimeIdentity: undefined, objects: { ...this.find(id).objects, generation: undefined, secrets: [`sandbox-${id}`] } };
    this.sandboxes.set(id, stopped);
    return stopped;
  }
  async start(id: string) {
    this.enter('start', id);
    const started = { ...this.find(id), phase: 'Ready' as const, objects: { ...this.find(id).objects, generation: 'g2' } };
    this.sandboxes.set(id, started);
    return started;
  }
  async delete(id: string) {
    this.enter('delete', id);
    return this.sandboxes.delete(id);
  }
  async watch(listener: (event: DriverEvent) => void, signal: AbortSignal) {
    this.enter('watch');
    if (this.watchFailure !== undefined) throw this.watchFailure;
    this.watchStarted.resolve(listener);
    await new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener('abort', () => done(), { once: true })));
    this.watchEnded.resolve('aborted');
  }
  async close() {}
}

// ---- fixtures ---------------------------------------------------------------------------------

let dir: string;
const cleanups: (() => Promise<unknown> | unknown)[] = [];

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grpc-driver-'));
});

test.afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

async function serve(driver: ComputeDriver, socket = join(dir, 'driver.sock')): Promise<DriverServer> {
  const server = await serveDriver(driver, socket);
  cleanups.push(() => server.close());
  return server;
}

function connect(socket: string, options?: ConstructorParameters<typeof GrpcDriverClient>[1]): GrpcDriverClient {
  const client = new GrpcDriverClient(socket, options);
  cleanups.push(() => client.close());
  return client;
}

async function setUp() {
  const driver = new FakeDriver();
  const server = await serve(driver);
  return { driver, server, client: connect(server.socketPath) };
}

async function driverError(promise: Promise<unknown>): Promise<DriverError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to fail').toBeInstanceOf(DriverError);
  return error as DriverError;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function listenOn(path: string): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => done(server));
  });
}

/** A socket file nobody listens on: bound elsewhere, moved into place, then the listener closed. */
async function staleSocketAt(path: string): Promise<void> {
  const elsewhere = join(dir, 'bound-elsewhere.sock');
  const server = await listenOn(elsewhere);
  await rename(elsewhere, path);
  await new Promise((done) => server.close(done));
  expect((await stat(path)).isSocket()).toBe(true);
}

// ---- rpcs -------------------------------------------------------------------------------------

test('GetCapabilities round-trips every field, for every mode and variant', async () => {
  const { driver, client } = await setUp();
  expect(await client.capabilities()).toEqual(driver.caps);
  for (const workspaceMode of ['shared', 'managed', 'operator'] as const) {
    for (const variant of ['reference', 'suspend-first'] as const) {
      driver.caps = { ...driver.caps, workspaceMode, variant, gatewayManagesLifecycle: false };
      expect(await client.capabilities()).toEqual(driver.caps);
    }
  }
});

test('ValidateSandboxCreate and CreateSandbox carry every spec field', async () => {
  const { driver, client } = await setUp();
  const full: SandboxSpec = {
    name: 'demo',
    workspace: 'team-a',
    command: ['sh', '-c', 'echo "a b" && sleep infinity', ''],
    environment: { GREETING: 'hello world', EMPTY: '', 'WITH=EQUALS': 'x=y' },
    supervisorGraceSeconds: 0,
    workloadGraceSeconds: 45,
  };
  await client.validate(full);
  const created = await client.create(full);
  const minimal: SandboxSpec = { name: 'bare', command: [] };
  await client.create(minimal);

  expect(driver.calls.map((c) => c.method)).toEqual(['validate', 'create', 'create']);
  expect(driver.calls[0].arg).toStrictEqual(full);
  expect(driver.calls[1].arg).toStrictEqual(full);
  // Absent optional fields stay absent (not '', 0 or {}).
  expect(driver.calls[2].arg).toStrictEqual(minimal);
  expect(created).toEqual(driver.sandboxes.get(created.id));
  expect(created).toMatchObject({ name: 'demo', workspace: 'team-a' });
});

test('a grace period the wire cannot carry is refused by the client, a negative one reaches the driver', async () => {
  const { driver, client } = await setUp();
  const fractional = await driverError(client.create({ name: 'x', command: [], supervisorGraceSeconds: 1.5 }));
  expect(fractional.code).toBe('INVALID_ARGUMENT');
  expect(fractional.message).toBe('invalid sandbox: supervisorGraceSeconds must be a non-negative integer');
  expect(driver.calls).toEqual([]);
  await client.validate({ name: 'x', command: [], workloadGraceSeconds: -1 });
  expect(driver.calls[0].arg).toStrictEqual({ name: 'x', command: [], workloadGraceSeconds: -1 });
});

test('GetSandbox, ListSandboxes, StopSandbox, StartSandbox and DeleteSandbox round-trip sandboxes', async () => {
  const { driver, client } = await setUp();
  const phases: PublicPhase[] = ['Provisioning', 'Ready', 'Stopping', 'Stopped', 'Starting', 'Deleting', 'Error'];
  phases.forEach((phase, i) => driver.sandboxes.set(`id-${i}`, sandbox(`id-${i}`, { phase, deleting: phase === 'Deleting' })));
  // Everything optional left out: no conditions, no runtime identity, no generation, no secrets.
  const sparse: DriverSandbox = {
    id: 'sparse',
    name: 'sparse',
    workspace: 'default',
    namespace: 'ns',
    phase: 'Provisioning',
    conditions: [{ type: 'Ready', status: 'False' }],
    deleting: false,
    objects: { sandbox: 's', workloadPod: 'w', supervisorPod: 'p', boundaryService: 'b', secrets: [] },
  };
  driver.sandboxes.set('sparse', sparse);

  // toEqual: a key holding undefined and an absent key are the same sandbox.
  expect(await client.list()).toEqual([...driver.sandboxes.values()]);
  expect(await client.get('id-1')).toEqual(driver.sandboxes.get('id-1'));
  expect(await client.get('sparse')).toStrictEqual(sparse);

  const stopped = await client.stop('id-1');
  expect(stopped).toEqual(driver.sandboxes.get('id-1'));
  expect(stopped).toMatchObject({ phase: 'Stopped', objects: { secrets: ['sandbox-id-1'] } });
  expect(stopped.runtimeIdentity).toBeUndefined();
  expect(stopped.objects.generation).toBeUndefined();

  const started = await client.start('id-1');
  expect(started).toEqual(driver.sandboxes.get('id-1'));
  expect(started.objects.generation).toBe('g2');

  expect(await client.delete('id-1')).toBe(true);
  expect(await client.delete('id-1')).toBe(false);
  expect(driver.calls.filter((c) => c.arg === 'id-1').map((c) => c.method)).toEqual(['get', 'stop', 'start', 'delete', 'delete']);
});

test('every DriverError code comes back with its code and message', async () => {
  const { driver, client } = await setUp();
  const codes: DriverErrorCode[] = ['INVALID_ARGUMENT', 'NOT_FOUND', 'ALREADY_EXISTS', 'FAILED_PRECONDITION', 'UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED', 'INTERNAL'];
  const calls: [string, () => Promise<unknown>][] = [
    ['capabilities', () => client.capabilities()],
    ['validate', () => client.validate({ name: 'x', command: [] })],
    ['create', () => client.create({ name: 'x', command: [] })],
    ['get', () => client.get('abc')],
    ['list', () => client.list()],
    ['stop', () => client.stop('abc')],
    ['start', () => client.start('abc')],
    ['delete', () => client.delete('abc')],
  ];
  for (const code of codes) {
    for (const [method, call] of calls) {
      const message = `${method} failed: ${code.toLowerCase()} — "quoted", ünïcode, and a\nsecond line`;
      driver.failure = new DriverError(code, message);
      const error = await driverError(call());
      expect({ method, code: error.code, message: error.message }).toEqual({ method, code, message });
    }
  }
});

test("the reference service's messages map back as themselves", async () => {
  const { driver, client } = await setUp();
  await client.create({ name: 'twice', command: ['true'] });
  const exists = await driverError(client.create({ name: 'twice', command: ['true'] }));
  expect([exists.code, exists.message]).toEqual(['ALREADY_EXISTS', 'sandbox already exists']);
  const missing = await driverError(client.get('nope'));
  expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'sandbox nope not found']);
  driver.failure = new DriverError('FAILED_PRECONDITION', 'sandbox is deleting');
  const precondition = await driverError(client.stop('nope'));
  expect([precondition.code, precondition.message]).toEqual(['FAILED_PRECONDITION', 'sandbox is deleting']);
});

test('an error that is not a DriverError arrives as INTERNAL with its message', async () => {
  const { driver, client } = await setUp();
  driver.failure = new TypeError('cannot read properties of undefined');
  const error = await driverError(client.list());
  expect([error.code, error.message]).toEqual(['INTERNAL', 'cannot read properties of undefined']);
});

test('an empty sandbox_id is INVALID_ARGUMENT "sandbox_id is required" and never reaches the driver', async () => {
  const { driver, client } = await setUp();
  for (const call of [() => client.get(''), () => client.stop(''), () => client.start(''), () => client.delete('')]) {
    const error = await driverError(call());
    expect([error.code, error.message]).toEqual(['INVALID_ARGUMENT', 'sandbox_id is required']);
  }
  expect(driver.calls).toEqual([]);
});

// ---- watch ------------------------------------------------------------------------------------

test('WatchSandboxes delivers events in order and ends on abort, aborting the driver watch', async () => {
  const { driver, client } = await setUp();
  const received: DriverEvent[] = [];
  const gotThree = deferred();
  const controller = new AbortController();
  const watching = client.watch((event) => {
    received.push(event);
    if (received.length === 3) gotThree.resolve();
  }, controller.signal);

  const emit = await driver.watchStarted.promise;
  const events: DriverEvent[] = [
    { type: 'sandbox', sandbox: sandbox('w1', { phase: 'Provisioning' }) },
    { type: 'sandbox', sandbox: sandbox('w1', { phase: 'Ready', conditions: [] }) },
    { type: 'deleted', sandboxId: 'w1' },
  ];
  for (const event of events) emit(event);
  await gotThree.promise;
  expect(received).toStrictEqual(events);

  controller.abort();
  await expect(watching).resolves.toBeUndefined();
  // The server cancelled the driver's watch through its AbortSignal.
  await expect(driver.watchEnded.promise).resolves.toBe('aborted');
  // The connection is still good for other calls.
  expect(await client.list()).toEqual([]);
});

test('a watch started with an aborted signal returns without calling the driver', async () => {
  const { driver, client } = await setUp();
  await client.watch(() => undefined, AbortSignal.abort());
  expect(driver.calls).toEqual([]);
});

test("a driver's watch error ends the client's watch with the same DriverError", async () => {
  const { driver, client } = await setUp();
  driver.watchFailure = new DriverError('UNAVAILABLE', 'detecting the Agent Sandbox API: the Kubernetes API server is unreachable');
  const error = await driverError(client.watch(() => undefined, new AbortController().signal));
  expect([error.code, error.message]).toEqual(['UNAVAILABLE', 'detecting the Agent Sandbox API: the Kubernetes API server is unreachable']);
});

test('closing the server ends open watches with UNAVAILABLE and aborts the driver watch', async () => {
  const { driver, server, client } = await setUp();
  const watching = client.watch(() => undefined, new AbortController().signal);
  const outcome = driverError(watching);
  await driver.watchStarted.promise;
  await server.close();
  const error = await outcome;
  expect([error.code, error.message]).toEqual(['UNAVAILABLE', 'the compute driver is shutting down']);
  await expect(driver.watchEnded.promise).resolves.toBe('aborted');
});

// ---- the socket path --------------------------------------------------------------------------

test('close removes the socket file', async () => {
  const { server } = await setUp();
  expect((await stat(server.socketPath)).isSocket()).toBe(true);
  await server.close();
  expect(await exists(server.socketPath)).toBe(false);
  await server.close(); // idempotent
});

test('a socket a live server answers on is refused, and that server keeps serving', async () => {
  const { server, client } = await setUp();
  await expect(serveDriver(new FakeDriver(), server.socketPath)).rejects.toThrow(`socket ${server.socketPath} is in use by another process`);
  expect(await client.list()).toEqual([]);

  // Any listener counts, not only a compute driver.
  const other = join(dir, 'other.sock');
  const plain = await listenOn(other);
  cleanups.push(() => new Promise((done) => plain.close(done)));
  await expect(serveDriver(new FakeDriver(), other)).rejects.toThrow(`socket ${other} is in use by another process`);
});

test('a stale socket file is removed and reused', async () => {
  const socket = join(dir, 'driver.sock');
  await staleSocketAt(socket);
  const driver = new FakeDriver();
  driver.sandboxes.set('s1', sandbox('s1'));
  await serve(driver, socket);
  expect(await connect(socket).get('s1')).toStrictEqual(driver.sandboxes.get('s1'));
});

test('a missing directory, a parent that is a file, or a file in the way are refused before binding', async () => {
  const missing = join(dir, 'no-such-dir', 'driver.sock');
  await expect(serveDriver(new FakeDriver(), missing)).rejects.toThrow(`cannot create socket ${missing}: directory ${join(dir, 'no-such-dir')} does not exist`);

  const file = join(dir, 'plain-file');
  await writeFile(file, 'keep me');
  await expect(serveDriver(new FakeDriver(), join(file, 'driver.sock'))).rejects.toThrow(`cannot create socket ${join(file, 'driver.sock')}: ${file} is not a directory`);
  await expect(serveDriver(new FakeDriver(), file)).rejects.toThrow(`cannot create socket ${file}: ${file} already exists and is not a socket; refusing to replace it`);
  expect(await readFile(file, 'utf8')).toBe('keep me');

  const long = join(dir, 'x'.repeat(120) + '.sock');
  await expect(serveDriver(new FakeDriver(), long)).rejects.toThrow(/^cannot create socket .*: the path .* bytes long; a Unix socket path may have at most \d+$/);
});

test('a directory that is not writable is refused before binding', async () => {
  // Root may write anywhere, so as root the check runs in a child process as `nobody`.
  const readOnly = join(dir, 'read-only');
  await mkdir(readOnly);
  await chmod(readOnly, 0o555);
  const socket = join(readOnly, 'driver.sock');
  const expected = `cannot create socket ${socket}: directory ${readOnly} is not writable`;
  if (process.getuid?.() !== 0) {
    await expect(serveDriver(new FakeDriver(), socket)).rejects.toThrow(expected);
    return;
  }
  await chmod(dir, 0o755);
  // The child runs this checkout as `nobody`; a checkout under a private directory (mktemp's 0700) is out of its reach.
  const readable = await execa('test', ['-r', DRIVER_SCRIPT], { reject: false, uid: 65534, gid: 65534 });
  test.skip(readable.exitCode !== 0, `this checkout is not readable by uid 65534, so the root-only variant of this check cannot run here`);
  const kubeconfig = await writeKubeconfig();
  const result = await execa(TSX, [DRIVER_SCRIPT, 'serve', '--socket', socket, '--kubeconfig', kubeconfig, '--reconcile-interval', '0'], {
    cwd: ROOT,
    reject: false,
    uid: 65534,
    gid: 65534,
    env: { HOME: dir },
  });
  expect(result.stderr).toContain(`error: ${expected}`);
  expect(result.exitCode).toBe(1);
  expect(await exists(socket)).toBe(false);
});

// ---- the client against nobody ----------------------------------------------------------------

test('a client against a socket nobody listens on fails with UNAVAILABLE instead of waiting', async () => {
  // A connect timeout far beyond the test timeout: only failing fast can pass.
  const options = { connectTimeoutMs: 600_000 };
  const missing = join(dir, 'missing.sock');
  const noFile = await driverError(connect(missing, options).list());
  expect([noFile.code, noFile.message]).toEqual(['UNAVAILABLE', `no compute driver is listening on ${missing}: the socket file does not exist`]);

  const stale = join(dir, 'stale.sock');
  await staleSocketAt(stale);
  const client = connect(stale, options);
  const refused = await driverError(client.get('abc'));
  expect([refused.code, refused.message]).toEqual(['UNAVAILABLE', `no compute driver is listening on ${stale}: connection refused (the socket file is stale)`]);
  const watch = await driverError(client.watch(() => undefined, new AbortController().signal));
  expect(watch.code).toBe('UNAVAILABLE');
  expect(watch.message).toMatch(`no compute driver is listening on ${stale}: `);
});

test("a driver's own UNAVAILABLE is not mistaken for a dead socket", async () => {
  const { driver, client } = await setUp();
  driver.failure = new DriverError('UNAVAILABLE', 'the Kubernetes API server is unreachable');
  const error = await driverError(client.list());
  expect([error.code, error.message]).toEqual(['UNAVAILABLE', 'the Kubernetes API server is unreachable']);
});

test('a closed client refuses further calls', async () => {
  const { client } = await setUp();
  await client.close();
  const error = await driverError(client.list());
  expect(error.code).toBe('UNAVAILABLE');
  expect(error.message).toContain('was closed');
});

// ---- the CLI ----------------------------------------------------------------------------------

async function writeKubeconfig(): Promise<string> {
  const path = join(dir, 'kubeconfig');
  await writeFile(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: unreachable, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
      'users: [{name: nobody, user: {token: not-a-token}}]',
      'contexts: [{name: unreachable, context: {cluster: unreachable, user: nobody}}]',
      'current-context: unreachable',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  return path;
}

function runDriverScript(args: string[]) {
  return execa(TSX, [DRIVER_SCRIPT, ...args], { cwd: ROOT, reject: false });
}

test('driver serve exits non-zero with a clear message for a bad flag, a missing kubeconfig and a bad socket path', async () => {
  const socket = join(dir, 'driver.sock');
  const kubeconfig = await writeKubeconfig();

  const badFlag = await runDriverScript(['serve', '--socket', socket, '--frobnicate']);
  expect(badFlag.exitCode).toBe(2);
  expect(badFlag.stderr).toContain("error: Unknown option '--frobnicate'");

  const badMode = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--mode', 'solo']);
  expect(badMode.exitCode).toBe(2);
  expect(badMode.stderr).toContain('error: --mode must be shared, managed or operator, got "solo"');

  const badGrace = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--supervisor-grace=-3']);
  expect(badGrace.exitCode).toBe(2);
  expect(badGrace.stderr).toContain('error: --supervisor-grace must be a non-negative integer, got "-3"');

  const noSocket = await runDriverScript(['serve', '--kubeconfig', kubeconfig]);
  expect(noSocket.exitCode).toBe(2);
  expect(noSocket.stderr).toContain('error: --socket PATH is required');

  const missingKubeconfig = join(dir, 'no-such-kubeconfig');
  const noKubeconfig = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', missingKubeconfig]);
  expect(noKubeconfig.exitCode).toBe(1);
  expect(noKubeconfig.stderr).toContain(`error: kubeconfig ${missingKubeconfig} does not exist`);

  const badSocket = join(dir, 'no-such-dir', 'driver.sock');
  const noDir = await runDriverScript(['serve', '--socket', badSocket, '--kubeconfig', kubeconfig, '--reconcile-interval', '0']);
  expect(noDir.exitCode).toBe(1);
  expect(noDir.stderr).toContain(`error: cannot create socket ${badSocket}: directory ${join(dir, 'no-such-dir')} does not exist`);

  for (const result of [badFlag, badMode, badGrace, noSocket, noKubeconfig, noDir]) expect(result.stdout).toBe('');
  expect(await exists(socket)).toBe(false);
});

test('driver client commands print JSON, and errors as "error: <CODE>: <message>"', async () => {
  const driver = new FakeDriver();
  driver.sandboxes.set('s1', sandbox('s1'));
  const server = await serve(driver);

  const got = await runDriverScript(['--socket', server.socketPath, 'get', 's1', '--output', 'json']);
  expect(got.exitCode).toBe(0);
  expect(JSON.parse(got.stdout)).toEqual(driver.sandboxes.get('s1'));

  const created = await runDriverScript(['--socket', server.socketPath, '--output', 'json', 'create', 'demo', '--workspace', 'team-b', '--env', 'A=1=2', '--', 'sh', '-c', 'sleep 1']);
  expect(created.exitCode).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ name: 'demo', workspace: 'team-b', phase: 'Ready' });
  expect(driver.calls.at(-1)?.arg).toStrictEqual({ name: 'demo', workspace: 'team-b', command: ['sh', '-c', 'sleep 1'], environment: { A: '1=2' } });

  const listed = await runDriverScript(['--socket', server.socketPath, 'list', '--output', 'json']);
  expect(JSON.parse(listed.stdout)).toHaveLength(2);

  const deleted = await runDriverScript(['--socket', server.socketPath, 'delete', 's1', '--output', 'json']);
  expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true });

  const missing = await runDriverScript(['--socket', server.socketPath, 'stop', 's1']);
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr.trim()).toBe('error: NOT_FOUND: no sandbox has the id or name "s1"');

  const dead = join(dir, 'dead.sock');
  const nobody = await runDriverScript(['--socket', dead, 'list']);
  expect(nobody.exitCode).toBe(1);
  expect(nobody.stderr.trim()).toBe(`error: UNAVAILABLE: no compute driver is listening on ${dead}: the socket file does not exist`);

  const help = await runDriverScript(['--help']);
  expect(help.exitCode).toBe(0);
  for (const word of ['serve', '--kubeconfig', '--mode', '--variant', '--supervisor-grace', '--workload-grace', '--api-headroom', '--reconcile-interval', '--output json', 'create NAME', 'stop NAME', 'start NAME', 'delete NAME', 'get NAME', 'list']) {
    expect(help.stdout).toContain(word);
  }
});

test('driver serve listens until SIGTERM, then removes its socket and exits 0', async () => {
  const socket = join(dir, 'served.sock');
  const kubeconfig = await writeKubeconfig();
  // Every serve flag, as the conformance fixtures pass them.
  const flags = ['--mode', 'managed', '--namespace', 'openshell', '--variant', 'suspend-first', '--supervisor-grace', '10', '--workload-grace', '10', '--api-headroom', '5', '--reconcile-interval', '0'];
  // Its own process group, so cleanup reaches tsx's child too if the test fails midway.
  const serving: ResultPromise = execa(TSX, [DRIVER_SCRIPT, 'serve', '--socket', socket, '--kubeconfig', kubeconfig, ...flags], {
    cwd: ROOT,
    reject: false,
    detached: true,
  });
  cleanups.push(async () => {
    if (serving.exitCode === null && serving.pid) {
      try {
        process.kill(-serving.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await serving;
  });

  const ready = new Promise<string>((done, fail) => {
    let stdout = '';
    serving.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) done(stdout);
    });
    serving.then((result) => fail(new Error(`driver serve exited early (${result.exitCode}): ${result.stderr}`)));
  });
  expect(await ready).toBe(`compute driver listening on ${socket}\n`);
  expect((await stat(socket)).isSocket()).toBe(true);

  // A real KubernetesDriver is behind it: transport checks answer without a cluster, and the
  // cluster's absence comes back as the driver's UNAVAILABLE, not as a dead socket.
  const client = connect(socket);
  const empty = await driverError(client.get(''));
  expect([empty.code, empty.message]).toEqual(['INVALID_ARGUMENT', 'sandbox_id is required']);
  const invalid = await driverError(client.validate({ name: 'Not_A_Label', command: [] }));
  expect(invalid.code).toBe('INVALID_ARGUMENT');
  const unreachable = await driverError(client.list());
  expect(unreachable.code).toBe('UNAVAILABLE');
  expect(unreachable.message).not.toContain('no compute driver is listening');
  await client.close();

  serving.kill('SIGTERM');
  const result = await serving;
  expect(result.exitCode, String(result.stderr)).toBe(0);
  expect(result.stderr).toContain('SIGTERM: stopping the compute driver');
  expect(await exists(socket)).toBe(false);
});
