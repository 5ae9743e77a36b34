/**
 * Deadlines and cancellation over the gRPC transport, against a driver that holds each call
 * until its options end it: the client's deadline reaches the driver as the call's deadline (a
 * little earlier, so the driver's own DEADLINE_EXCEEDED with its stage arrives first); a
 * cancelled call aborts the driver's signal; a driver that ignores both still cannot keep the
 * client past its deadline. (The real driver, end to end: driver/kubernetes/deadline.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { DriverError, type CallOptions, type ComputeDriver, type SandboxRef } from '../compute-driver.ts';
import { GrpcDriverClient } from './client.ts';
import { serveDriver, type DriverServer } from './server.ts';

/** A driver whose stop holds until its call ends (or forever, when it `ignoresDeadlines`); the rest is unused. */
class HoldingDriver implements ComputeDriver {
  readonly received: CallOptions[] = [];
  ignoresDeadlines = false;

  async stopSandbox(_ref: SandboxRef, options: CallOptions = {}): Promise<never> {
    this.received.push(options);
    if (this.ignoresDeadlines) return new Promise<never>(() => undefined);
    return new Promise<never>((_resolve, fail) => {
      const end = (code: 'DEADLINE_EXCEEDED' | 'CANCELLED') => fail(new DriverError(code, `stop did not finish: ${code === 'CANCELLED' ? 'cancelled by the caller' : 'deadline exceeded'} while holding`));
      options.signal?.addEventListener('abort', () => end('CANCELLED'), { once: true });
      if (options.deadline !== undefined) setTimeout(() => end('DEADLINE_EXCEEDED'), options.deadline - Date.now());
    });
  }

  private unused(): never {
    throw new DriverError('INTERNAL', 'not used by these tests');
  }
  getCapabilities = async () => this.unused();
  authenticateSandbox = async () => this.unused();
  getGatewayListenerRequirements = async () => this.unused();
  validateSandboxCreate = async () => this.unused();
  createSandbox = async () => this.unused();
  getSandbox = async () => this.unused();
  listSandboxes = async () => this.unused();
  startSandbox = async () => this.unused();
  deleteSandbox = async () => this.unused();
  watchSandboxes = async () => this.unused();
  ensureWorkspace = async () => this.unused();
  deleteWorkspace = async () => this.unused();
  async close() {}
}

let dir: string;
let server: DriverServer;
let client: GrpcDriverClient;
let driver: HoldingDriver;

test.beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grpc-deadline-'));
  driver = new HoldingDriver();
  server = await serveDriver(driver, join(dir, 'driver.sock'));
  client = new GrpcDriverClient(server.socketPath);
});

test.afterEach(async () => {
  await client.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function failure(call: Promise<unknown>): Promise<DriverError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the call to fail with a DriverError').toBeInstanceOf(DriverError);
  return error as DriverError;
}

test("the client's deadline becomes the driver call's deadline, a little earlier, and the driver's own error comes back", async () => {
  const deadline = Date.now() + 1500;
  const error = await failure(client.stopSandbox({ sandboxId: 'abc' }, { deadline }));
  expect([error.code, error.message]).toEqual(['DEADLINE_EXCEEDED', 'stop did not finish: deadline exceeded while holding']);
  const [received] = driver.received;
  expect(received.deadline).toBeLessThan(deadline);
  expect(received.deadline).toBeGreaterThanOrEqual(deadline - 250);
  expect(received.signal?.aborted).toBe(false);
});

test("cancelling the caller's signal fails the call with CANCELLED and aborts the driver's signal", async () => {
  const caller = new AbortController();
  const stopping = failure(client.stopSandbox({ sandboxId: 'abc' }, { signal: caller.signal }));
  await expect.poll(() => driver.received.length).toBe(1);
  caller.abort();
  const error = await stopping;
  expect([error.code, error.message]).toEqual(['CANCELLED', `StopSandbox did not finish: cancelled by the caller while waiting for the compute driver on ${server.socketPath}`]);
  await expect.poll(() => driver.received[0].signal?.aborted).toBe(true);
  expect(driver.received[0].deadline).toBeUndefined();
});

test('a signal aborted by AbortSignal.timeout() ends the call with DEADLINE_EXCEEDED', async () => {
  const error = await failure(client.stopSandbox({ sandboxId: 'abc' }, { signal: AbortSignal.timeout(500) }));
  expect([error.code, error.message]).toEqual(['DEADLINE_EXCEEDED', `StopSandbox did not finish: deadline exceeded while waiting for the compute driver on ${server.socketPath}`]);
  await expect.poll(() => driver.received[0]?.signal?.aborted).toBe(true);
});

test('a driver that ignores its deadline cannot keep the client past it', async () => {
  driver.ignoresDeadlines = true;
  const error = await failure(client.stopSandbox({ sandboxId: 'abc' }, { deadline: Date.now() + 1000 }));
  expect(error.code).toBe('DEADLINE_EXCEEDED');
  expect(error.message).toMatch(new RegExp(`^StopSandbox did not finish: the compute driver on ${server.socketPath} did not answer within the call's deadline \\(`));
});

test('a deadline already past fails before anything is sent', async () => {
  const error = await failure(client.stopSandbox({ sandboxId: 'abc' }, { deadline: Date.now() - 1 }));
  expect([error.code, error.message]).toEqual(['DEADLINE_EXCEEDED', 'StopSandbox did not finish: deadline exceeded before it was sent']);
  const cancelled = await failure(client.stopSandbox({ sandboxId: 'abc' }, { signal: AbortSignal.abort() }));
  expect([cancelled.code, cancelled.message]).toEqual(['CANCELLED', 'StopSandbox did not finish: cancelled by the caller before it was sent']);
  expect(driver.received).toEqual([]);
});
