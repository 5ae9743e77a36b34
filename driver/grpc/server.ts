/**
 * Serves any `ComputeDriver` as the `openshell.compute.v1.ComputeDriver` gRPC service on a Unix
 * socket (insecure credentials: the socket's file permissions are the access control). The
 * socket file is made 0600 as soon as it is bound: only its owner may connect, which stands in
 * for OpenShell's same-UID peer check (Node cannot read a Unix peer's credentials); put it in a
 * private (0700) directory so nobody else can reach it between bind and chmod either.
 *
 * The socket path is checked before binding so an operator gets a sentence, not an EADDRINUSE:
 * a path a live server answers on is refused, a stale socket file nobody listens on is removed
 * and reused, and a missing or unwritable directory is reported as such.
 */
import { constants } from 'node:fs';
import { access, chmod, lstat, stat, unlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { dirname, resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { ComputeDriver } from '../compute-driver.ts';
import { serviceHandlers } from './service-handlers.ts';
import { computeDriverService } from './wire.ts';

export interface DriverServer {
  /** The socket path as given to `serveDriver`. */
  readonly socketPath: string;
  /** Watch streams still open (each holds a driver watch); 0 once every peer has gone. */
  activeWatches(): number;
  /**
   * Ends open watch streams (UNAVAILABLE `the compute driver is shutting down`), lets in-flight
   * calls finish for up to `shutdownGraceMs`, cancels the rest and removes the socket file. The
   * driver itself is left open: whoever made it closes it.
   */
  close(): Promise<void>;
}

export interface ServeOptions {
  /** How long `close()` waits for in-flight calls before cancelling them (default 5000). */
  shutdownGraceMs?: number;
}

/** sun_path holds 108 bytes on Linux (104 on the BSDs and macOS), including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export async function serveDriver(driver: ComputeDriver, socketPath: string, options: ServeOptions = {}): Promise<DriverServer> {
  if (!socketPath) throw new Error('a socket path is required');
  const path = resolve(socketPath);
  await prepareSocketPath(socketPath, path);

  const server = new grpc.Server();
  const watches = new Set<AbortController>();
  const state = { closing: false };
  server.addService(computeDriverService().service, serviceHandlers(driver, watches, state));
  try {
    await new Promise<void>((done, fail) =>
      server.bindAsync(`unix://${path}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? fail(error) : done())),
    );
  } catch (error) {
    server.forceShutdown();
    throw new Error(`cannot create socket ${socketPath}: ${(error as Error).message}`);
  }
  await chmod(path, 0o600);
  // Remember which file is ours, so close() never removes a socket someone else made since.
  const bound = await lstat(path);

  let closed: Promise<void> | undefined;
  return {
    socketPath,
    activeWatches: () => watches.size,
    close: () =>
      (closed ??= (async () => {
        state.closing = true;
        for (const watch of watches) watch.abort();
        await new Promise<void>((done) => {
          const force = setTimeout(() => {
            server.forceShutdown();
            done();
          }, options.shutdownGraceMs ?? 5000);
          server.tryShutdown(() => {
            clearTimeout(force);
            done();
          });
        });
        const now = await lstat(path).catch(() => undefined);
        if (now && now.ino === bound.ino && now.dev === bound.dev) await unlink(path).catch(() => undefined);
      })()),
  };
}

/** Throws a readable error unless a socket can be bound at `path` (removing a stale one). */
async function prepareSocketPath(given: string, path: string): Promise<void> {
  const cannot = (reason: string) => new Error(`cannot create socket ${given}: ${reason}`);
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) throw cannot(`the path ${path} is ${bytes} bytes long; a Unix socket path may have at most ${MAX_SOCKET_PATH_BYTES}`);

  const existing = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw cannot(error.message);
  });
  if (existing?.isSocket()) {
    const probe = await probeSocket(path);
    if (probe === 'live') throw new Error(`socket ${given} is in use by another process`);
    if (probe !== 'stale') throw cannot(`a socket file exists there and could not be probed (${probe})`);
  }

  const dir = dirname(path);
  const dirStat = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw cannot(`directory ${dir} does not exist`);
    if (error.code === 'ENOTDIR') throw cannot(`${dir} is not a directory`);
    throw cannot(`cannot access directory ${dir}: ${error.message}`);
  });
  if (!dirStat.isDirectory()) throw cannot(`${dir} is not a directory`);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw cannot(`directory ${dir} is not writable`);
  }

  if (!existing) return;
  if (!existing.isSocket()) throw cannot(`${path} already exists and is not a socket; refusing to replace it`);
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw cannot(`cannot remove the stale socket file: ${(error as Error).message}`);
  }
}

/** `live` when something accepts a connection, `stale` when nobody listens, else the error code. */
function probeSocket(path: string): Promise<'live' | 'stale' | string> {
  return new Promise((done) => {
    const socket = createConnection({ path });
    const finish = (result: string) => {
      clearTimeout(timer);
      socket.destroy();
      done(result);
    };
    // A listener that neither accepts nor refuses is still a listener.
    const timer = setTimeout(() => finish('live'), 2000);
    socket.once('connect', () => finish('live'));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'stale' : (error.code ?? error.message)));
  });
}

