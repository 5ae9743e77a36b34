/**
 * The socket and the command line around the gRPC transport: the socket path vetted before
 * binding and made the owner's only, the client failing fast against nobody, and the driver
 * CLI serving (`--bind-socket`, `--socket`, OPENSHELL_COMPUTE_DRIVER_SOCKET), refusing bad input
 * and cleaning up on SIGTERM, its client commands working through the gateway.
 */
import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, expect } from '@playwright/test';
import { execa, type ResultPromise } from 'execa';
import { DriverError, type ComputeDriver } from '../compute-driver.ts';
import { GrpcDriverClient } from './client.ts';
import { serveDriver, type DriverServer } from './server.ts';
import { FakeDriver, READY } from './test-kit.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * `npm run driver --` as npm runs it (package.json: `node --import tsx scripts/driver.ts`), with no
 * tsx CLI in between: its signal relay SIGKILLs its child when the child has not confirmed a
 * signal within 30 ms, so on a loaded machine a SIGTERM orphaned the driver (once seen in CI).
 */
const NODE_TSX = ['--import', 'tsx'];
const DRIVER_SCRIPT = join(ROOT, 'scripts/driver.ts');

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
  expect(await client.listSandboxes()).toEqual([]);

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
  driver.sandboxes.set('s1', { id: 's1', name: 'one', namespace: 'ns', workspace: 'w' });
  await serve(driver, socket);
  expect(await connect(socket).getSandbox({ sandboxId: 's1' })).toStrictEqual(driver.sandboxes.get('s1'));
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
  const result = await execa(process.execPath, [...NODE_TSX, DRIVER_SCRIPT, 'serve', '--socket', socket, '--kubeconfig', kubeconfig, '--reconcile-interval', '0'], {
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
  const noFile = await driverError(connect(missing, options).listSandboxes());
  expect([noFile.code, noFile.message]).toEqual(['UNAVAILABLE', `no compute driver is listening on ${missing}: the socket file does not exist`]);

  const stale = join(dir, 'stale.sock');
  await staleSocketAt(stale);
  const client = connect(stale, options);
  const refused = await driverError(client.getSandbox({ sandboxId: 'abc' }));
  expect([refused.code, refused.message]).toEqual(['UNAVAILABLE', `no compute driver is listening on ${stale}: connection refused (the socket file is stale)`]);
  const watch = await driverError(client.watchSandboxes(() => undefined, new AbortController().signal));
  expect(watch.code).toBe('UNAVAILABLE');
  expect(watch.message).toMatch(`no compute driver is listening on ${stale}: `);
});

test("a driver's own UNAVAILABLE is not mistaken for a dead socket", async () => {
  const { driver, client } = await setUp();
  driver.failure = new DriverError('UNAVAILABLE', 'the Kubernetes API server is unreachable');
  const error = await driverError(client.listSandboxes());
  expect([error.code, error.message]).toEqual(['UNAVAILABLE', 'the Kubernetes API server is unreachable']);
});

test('a closed client refuses further calls', async () => {
  const { client } = await setUp();
  await client.close();
  const error = await driverError(client.listSandboxes());
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
  return execa(process.execPath, [...NODE_TSX, DRIVER_SCRIPT, ...args], { cwd: ROOT, reject: false });
}

test('driver serve exits non-zero with a clear message for a bad flag, a missing kubeconfig and a bad socket path', async () => {
  const socket = join(dir, 'driver.sock');
  const kubeconfig = await writeKubeconfig();

  const badFlag = await runDriverScript(['serve', '--bind-socket', socket, '--frobnicate']);
  expect(badFlag.exitCode).toBe(2);
  expect(badFlag.stderr).toContain("error: Unknown option '--frobnicate'");

  const badMode = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--mode', 'solo']);
  expect(badMode.exitCode).toBe(2);
  expect(badMode.stderr).toContain('error: --mode must be shared, managed or operator, got "solo"');

  const badGrace = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--supervisor-grace=-3']);
  expect(badGrace.exitCode).toBe(2);
  expect(badGrace.stderr).toContain('error: --supervisor-grace must be a non-negative integer, got "-3"');

  const badGateway = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--gateway-id', 'Team_A']);
  expect(badGateway.exitCode).toBe(2);
  expect(badGateway.stderr).toContain(`error: --gateway-id must be 1-20 lower-case letters, digits or '-', starting and ending with a letter or digit; got "Team_A"`);

  const noReadiness = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', kubeconfig, '--supervisor-ready', '0']);
  expect(noReadiness.exitCode).toBe(2);
  expect(noReadiness.stderr).toContain('error: --supervisor-ready must be at least 1 second, got "0"');

  const noSocket = await runDriverScript(['serve', '--kubeconfig', kubeconfig]);
  expect(noSocket.exitCode).toBe(2);
  expect(noSocket.stderr).toContain('error: --bind-socket PATH (or OPENSHELL_COMPUTE_DRIVER_SOCKET) is required');

  const missingKubeconfig = join(dir, 'no-such-kubeconfig');
  const noKubeconfig = await runDriverScript(['serve', '--socket', socket, '--kubeconfig', missingKubeconfig]);
  expect(noKubeconfig.exitCode).toBe(1);
  expect(noKubeconfig.stderr).toContain(`error: kubeconfig ${missingKubeconfig} does not exist`);

  const badSocket = join(dir, 'no-such-dir', 'driver.sock');
  const noDir = await runDriverScript(['serve', '--socket', badSocket, '--kubeconfig', kubeconfig, '--reconcile-interval', '0']);
  expect(noDir.exitCode).toBe(1);
  expect(noDir.stderr).toContain(`error: cannot create socket ${badSocket}: directory ${join(dir, 'no-such-dir')} does not exist`);

  for (const result of [badFlag, badMode, badGrace, badGateway, noSocket, noKubeconfig, noDir]) expect(result.stdout).toBe('');
  expect(await exists(socket)).toBe(false);
});

test('driver client commands go through the gateway, print JSON, and errors as "error: <CODE>: <message>"', async () => {
  const driver = new FakeDriver();
  driver.sandboxes.set('s1', { id: 's1', name: 'one', namespace: 'ns', workspace: 'w' });
  driver.report('s1', READY);
  const server = await serve(driver);

  const got = await runDriverScript(['--socket', server.socketPath, 'get', 's1', '--output', 'json']);
  expect(got.exitCode).toBe(0);
  expect(JSON.parse(got.stdout)).toMatchObject({ id: 's1', name: 'one', phase: 'Ready', snapshot: driver.sandboxes.get('s1') });

  // The socket may come from OpenShell's variable instead of --socket.
  const created = await execa(process.execPath, [...NODE_TSX, DRIVER_SCRIPT, '--output', 'json', 'create', 'demo', '--workspace', 'team-b', '--env', 'A=1=2', '--supervisor-grace', '7', '--', 'sh', '-c', 'sleep 1'], { cwd: ROOT, reject: false, env: { OPENSHELL_COMPUTE_DRIVER_SOCKET: server.socketPath } });
  expect(created.exitCode, created.stderr).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ name: 'demo', workspace: 'team-b', phase: 'Ready' });
  // The gateway minted the id, validated, ensured the workspace, then created.
  const creates = driver.calls.filter((c) => ['ensureWorkspace', 'validateSandboxCreate', 'createSandbox'].includes(c.method));
  expect(creates.map((c) => c.method)).toEqual(['validateSandboxCreate', 'ensureWorkspace', 'createSandbox']);
  expect(creates[2].arg).toStrictEqual({
    id: JSON.parse(created.stdout).id,
    name: 'demo',
    namespace: '',
    workspace: 'team-b',
    spec: { command: ['sh', '-c', 'sleep 1'], environment: { A: '1=2' }, template: { driverConfig: { supervisorTerminationGracePeriodSeconds: 7 } } },
  });

  const listed = await runDriverScript(['--socket', server.socketPath, 'list', '--output', 'json']);
  expect(JSON.parse(listed.stdout)).toHaveLength(2);

  const deleted = await runDriverScript(['--socket', server.socketPath, 'delete', 's1', '--output', 'json']);
  expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true });

  const missing = await runDriverScript(['--socket', server.socketPath, 'stop', 's1']);
  // (deleted above: the gateway finds it by neither id nor name now)
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr.trim()).toBe('error: NOT_FOUND: no sandbox has the id or name "s1"');

  const dead = join(dir, 'dead.sock');
  const nobody = await runDriverScript(['--socket', dead, 'list']);
  expect(nobody.exitCode).toBe(1);
  expect(nobody.stderr.trim()).toBe(`error: UNAVAILABLE: no compute driver is listening on ${dead}: the socket file does not exist`);

  const help = await runDriverScript(['--help']);
  expect(help.exitCode).toBe(0);
  for (const word of ['serve', '--kubeconfig', '--mode', '--gateway-id', '--variant', '--supervisor-grace', '--workload-grace', '--api-headroom', '--supervisor-ready', '--reconcile-interval', '--output json', 'create NAME', 'stop NAME', 'start NAME', 'delete NAME', 'get NAME', 'list']) {
    expect(help.stdout).toContain(word);
  }
});

test('driver serve listens until SIGTERM, then removes its socket and exits 0', async () => {
  const socket = join(dir, 'served.sock');
  const kubeconfig = await writeKubeconfig();
  // Every serve flag, as the conformance fixtures pass them.
  const flags = ['--mode', 'managed', '--namespace', 'openshell', '--variant', 'suspend-first', '--supervisor-grace', '10', '--workload-grace', '10', '--api-headroom', '5', '--reconcile-interval', '0'];
  // Its own process group, so cleanup reaches the driver this command starts too if the test fails midway.
  const serving: ResultPromise = execa(process.execPath, [...NODE_TSX, DRIVER_SCRIPT, 'serve', '--bind-socket', socket, '--kubeconfig', kubeconfig, ...flags], {
    cwd: ROOT,
    reject: false,
    detached: true,
  });
  cleanups.push(async () => {
    // The whole group, even when the command itself has exited: a driver left in it would hold the output open (once seen: a run's
    // tsx and scripts/driver.ts gone, the driver they started orphaned, and this await waiting on it).
    try {
      process.kill(-serving.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await serving;
  });

  const ready = new Promise<string>((done, fail) => {
    let stdout = '';
    serving.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) done(stdout);
    });
    // On its exit, not on the result: the result waits for the output to close, which a child left behind would hold open.
    serving.once('exit', (code, signal) => fail(new Error(`driver serve exited early (${code ?? signal})`)));
  });
  expect(await ready).toBe(`compute driver listening on ${socket}\n`);
  expect((await stat(socket)).isSocket()).toBe(true);

  // A real KubernetesDriver is behind it: transport checks answer without a cluster, and the
  // cluster's absence comes back as the driver's UNAVAILABLE, not as a dead socket.
  const client = connect(socket);
  expect(await client.getCapabilities()).toEqual({ driverName: 'kubernetes', driverVersion: '0.2.0+suspend-first', defaultImage: 'sandbox-conformance/workload:dev', gatewayManagesLifecycle: false, supportsSandboxAuthentication: false, driverReportsRuntimeReadiness: false });
  expect((await stat(socket)).mode & 0o777).toBe(0o600);
  const empty = await driverError(client.getSandbox({ sandboxId: '' }));
  expect([empty.code, empty.message]).toEqual(['INVALID_ARGUMENT', 'sandbox_id is required']);
  const invalid = await driverError(client.validateSandboxCreate({ id: 'abc', name: 'Not_A_Label', namespace: '', workspace: '' }));
  expect(invalid.code).toBe('INVALID_ARGUMENT');
  const unauthenticated = await driverError(client.authenticateSandbox('token'));
  expect(unauthenticated.code).toBe('UNIMPLEMENTED');
  const unreachable = await driverError(client.listSandboxes());
  expect(unreachable.code).toBe('UNAVAILABLE');
  expect(unreachable.message).not.toContain('no compute driver is listening');
  await client.close();

  serving.kill('SIGTERM');
  const result = await serving;
  expect(result.exitCode, String(result.stderr)).toBe(0);
  expect(result.stderr).toContain('SIGTERM: stopping the compute driver');
  expect(await exists(socket)).toBe(false);
});
