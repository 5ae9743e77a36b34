/**
 * The gateway against the in-memory driver double (a test double where a driver is needed; the
 * reference driver meets the gateway in driver/kubernetes/*.test.ts and the lanes): ids minted,
 * Validate before Create, waits that end on the watch (and on GetSandbox when the watch says
 * nothing), the phase derived from conditions, deadlines that name the stage and what was last
 * seen, and seeded routing over several driver replicas.
 */
import { test, expect } from '@playwright/test';
import { DriverError, type DriverSandbox } from '../compute-driver.ts';
import { FakeDriver } from '../grpc/test-kit.ts';
import { Gateway } from './gateway.ts';
import { GatewayError } from './gateway-call.ts';
import { derivePhase, observedPhase } from './phase.ts';
import { derivedSeed, seededPicker } from './replica-picker.ts';
import type { Route } from './gateway.ts';

const gateways: Gateway[] = [];
test.afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close();
});

function gateway(...clients: FakeDriver[]): Gateway {
  const g = new Gateway({ clients, seed: 7, pollIntervalMs: 50 });
  gateways.push(g);
  return g;
}

const snapshot = (conditions: [string, string, string?][], deleting = false): DriverSandbox => ({
  id: 'x',
  name: 'x',
  namespace: '',
  workspace: '',
  status: { name: '', instanceId: '', agentFd: '', sandboxFd: '', conditions: conditions.map(([type, status, reason = '']) => ({ type, status, reason, message: '' })), deleting },
});

test('the phase is derived from conditions and deleting, with the transition the gateway carries out laid over it', () => {
  const cases: [DriverSandbox, string][] = [
    [snapshot([['Ready', 'True']], true), 'Deleting'],
    [snapshot([['Ready', 'True']]), 'Ready'],
    [snapshot([['Ready', 'False'], ['Bootstrapping', 'True']]), 'Provisioning'],
    [snapshot([['Ready', 'False'], ['Suspended', 'True']]), 'Stopped'],
    [snapshot([['Ready', 'False'], ['Finished', 'True']]), 'Error'],
    [snapshot([]), 'Provisioning'],
  ];
  for (const [s, phase] of cases) expect(observedPhase(s), JSON.stringify(s.status)).toBe(phase);
  expect(derivePhase(snapshot([['Ready', 'True']]), 'stop')).toBe('Stopping');
  expect(derivePhase(snapshot([['Suspended', 'True']]), 'stop')).toBe('Stopped');
  expect(derivePhase(snapshot([['Bootstrapping', 'True']]), 'start')).toBe('Starting');
  expect(derivePhase(snapshot([['Ready', 'True']]), 'start')).toBe('Ready');
  expect(derivePhase(snapshot([['Ready', 'True']]), 'delete')).toBe('Deleting');
});

test('create mints the id, validates, ensures the workspace, creates, and resolves once the watch shows Ready', async () => {
  const driver = new FakeDriver();
  const g = gateway(driver);
  const created = await g.create({ name: 'demo', workspace: 'team', command: ['sleep', '1'], workloadGraceSeconds: 3 });
  expect(created).toMatchObject({ name: 'demo', workspace: 'team', phase: 'Ready' });
  expect(created.id).toMatch(/^[0-9a-f]{16}$/);
  expect(driver.calls.filter((c) => c.method !== 'getSandbox' && c.method !== 'watchSandboxes').map((c) => c.method)).toEqual(['validateSandboxCreate', 'ensureWorkspace', 'createSandbox']);
  expect(driver.calls.find((c) => c.method === 'createSandbox')?.arg).toStrictEqual({
    id: created.id,
    name: 'demo',
    namespace: '',
    workspace: 'team',
    spec: { command: ['sleep', '1'], template: { driverConfig: { workloadTerminationGracePeriodSeconds: 3 } } },
  });
  // Two creates, two ids.
  expect((await g.create({ name: 'other', command: [] })).id).not.toBe(created.id);
});

test('stop resolves once Stopped, start once Ready again (with a generation id), delete once the watch says deleted', async () => {
  const driver = new FakeDriver();
  const g = gateway(driver);
  const { id } = await g.create({ name: 'demo', command: [] });
  expect((await g.stop(id)).phase).toBe('Stopped');
  expect((await g.start(id)).phase).toBe('Ready');
  expect((driver.calls.find((c) => c.method === 'startSandbox')?.arg as { generationId: string }).generationId).toMatch(/^[0-9a-f]{64}$/);
  expect(await g.delete(id)).toBe(true);
  expect(await g.delete(id)).toBe(false);
  await expect(g.get(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('a wait goes on through GetSandbox when the watch brings nothing', async () => {
  const driver = new FakeDriver();
  driver.watchFailure = new DriverError('UNAVAILABLE', 'no watch today');
  const g = gateway(driver);
  const created = await g.create({ name: 'demo', command: [] });
  expect(created.phase).toBe('Ready');
  expect(driver.calls.filter((c) => c.method === 'getSandbox').length).toBeGreaterThan(1);
});

test("a call that runs out of time fails at once, naming the stage and what the driver last showed; the driver's errors pass through", async () => {
  const driver = new FakeDriver();
  const g = gateway(driver);
  const { id } = await g.create({ name: 'demo', command: [] });
  // A start the driver accepts but that never becomes Ready.
  driver.startSandbox = async () => void driver.report(id, [{ type: 'Ready', status: 'False', reason: 'SandboxRuntimeGenerationStarting', message: '' }, { type: 'Bootstrapping', status: 'True', reason: 'SandboxRuntimeGenerationStarting', message: '' }]);
  const error = await g.start(id, { deadline: Date.now() + 500 }).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  const e = error as GatewayError;
  expect([e.code, e.operation, e.stage, e.sandboxId]).toEqual(['DEADLINE_EXCEEDED', 'start', 'waiting for the sandbox to become Ready', id]);
  expect(e.message).toMatch(new RegExp(`^start did not return within 0\\.\\d s: stopped while waiting for the sandbox to become Ready \\(sandbox ${id}; the driver has shown Ready=False \\(SandboxRuntimeGenerationStarting\\), Bootstrapping=True \\(SandboxRuntimeGenerationStarting\\) for \\d+\\.\\d s \\((WatchSandboxes|GetSandbox)\\)\\)$`));

  driver.failure = new DriverError('FAILED_PRECONDITION', 'cannot rotate a running workload Pod; stop the sandbox first');
  const passed = await g.stop(id).then(() => undefined, (x: unknown) => x);
  expect(passed).toBeInstanceOf(DriverError);
  expect(passed).not.toBeInstanceOf(GatewayError);
  expect((passed as DriverError).message).toBe('cannot rotate a running workload Pod; stop the sandbox first');
});

test('a sandbox that fails while the gateway waits ends the wait with what it shows', async () => {
  const driver = new FakeDriver();
  const g = gateway(driver);
  driver.createSandbox = async (s) => {
    driver.sandboxes.set(s.id, { id: s.id, name: s.name, namespace: '', workspace: '' });
    setTimeout(() => driver.report(s.id, [{ type: 'Finished', status: 'True', reason: 'PodFailed', message: 'exit 1' }]), 10);
  };
  await expect(g.create({ name: 'demo', command: [] })).rejects.toThrow(/became Error while the gateway waited for it to become Ready: Finished=True PodFailed exit 1/);
});

test('the seeded picker: the same seed gives the same routing, every replica gets calls, one replica always 0', () => {
  const draw = (seed: number) => Array.from({ length: 40 }, ((p) => () => p.next())(seededPicker(3, seed)));
  expect(draw(42)).toEqual(draw(42));
  expect(draw(42)).not.toEqual(draw(43));
  expect(new Set(draw(42))).toEqual(new Set([0, 1, 2]));
  expect(draw(42).every((i) => i >= 0 && i < 3)).toBe(true);
  expect(Array.from({ length: 5 }, ((p) => () => p.next())(seededPicker(1, 9)))).toEqual([0, 0, 0, 0, 0]);
  expect(() => seededPicker(0, 1)).toThrow('a gateway needs at least one driver client, got 0');
});

test('calls are routed over several driver replicas as the seed says, and a wait sees what any replica reported', async () => {
  const replicas = [new FakeDriver(), new FakeDriver()];
  // Both replicas front one "cluster": what one creates the other sees.
  replicas[1].sandboxes = replicas[0].sandboxes as never;
  const g = new Gateway({ clients: replicas, seed: 1234, pollIntervalMs: 50 });
  gateways.push(g);
  expect(g.seed).toBe(1234);
  const expected = Array.from({ length: 6 }, ((p) => () => p.next())(seededPicker(2, 1234)));
  for (let i = 0; i < 6; i++) await g.list();
  const served = replicas.map((r) => r.calls.filter((c) => c.method === 'listSandboxes').length);
  expect(served).toEqual([expected.filter((i) => i === 0).length, expected.filter((i) => i === 1).length]);
  expect(served.every((n) => n > 0)).toBe(true);
  const created = await g.create({ name: 'demo', command: [] });
  expect(created.phase).toBe('Ready');
  expect(replicas.flatMap((r) => r.calls).filter((c) => c.method === 'createSandbox')).toHaveLength(1);
});

test('the picker draws among the eligible replicas only; the same seed and the same replicas down give the same sequence', () => {
  const draw = (seed: number) => {
    const p = seededPicker(3, seed);
    return Array.from({ length: 30 }, (_, i) => p.next(i < 10 ? undefined : [0, 2]));
  };
  expect(draw(5)).toEqual(draw(5));
  expect(draw(5).slice(10).every((i) => i === 0 || i === 2)).toBe(true);
  expect(new Set(draw(5).slice(10))).toEqual(new Set([0, 2]));
  expect(seededPicker(3, 5).next([1])).toBe(1);
  expect(() => seededPicker(3, 5).next([])).toThrow('no driver replica is left to pick');
});

test('a seed derived from the run seed and an identity: stable, and different for another identity or run seed', () => {
  const seed = derivedSeed(20260915, 'a.spec.ts › test #0');
  expect(seed).toBe(derivedSeed(20260915, 'a.spec.ts › test #0'));
  expect(Number.isSafeInteger(seed) && seed >= 0 && seed < 2 ** 32).toBe(true);
  expect(derivedSeed(20260915, 'a.spec.ts › test #1')).not.toBe(seed);
  expect(derivedSeed(20260916, 'a.spec.ts › test #0')).not.toBe(seed);
  expect(() => derivedSeed(1.5, 'x')).toThrow('the run seed must be an integer, got 1.5');
});

/** Two replicas fronting one store, and a gateway over them that records its routes. */
function twoReplicas(seed: number) {
  const replicas = [new FakeDriver(), new FakeDriver()];
  replicas[1].sandboxes = replicas[0].sandboxes as never;
  const routes: Route[] = [];
  const g = new Gateway({ clients: replicas, seed, pollIntervalMs: 50, onRoute: (r) => routes.push(r) });
  gateways.push(g);
  return { replicas, routes, g };
}

test('the same seed routes the same calls to the same replicas; each route is reported as the call is sent', async () => {
  const sequence = async (seed: number) => {
    const { routes, g } = twoReplicas(seed);
    const created = await g.create({ name: 'demo', command: [] });
    await g.get(created.id);
    await g.stop(created.id);
    await g.start(created.id);
    for (let i = 0; i < 6; i++) await g.list();
    return routes.map((r) => `${r.operation}:${r.replica}`);
  };
  const first = await sequence(99);
  expect(first).toEqual(await sequence(99));
  expect(first.map((r) => r.split(':')[0])).toEqual(['create', 'get', 'stop', 'start', 'list', 'list', 'list', 'list', 'list', 'list']);
  expect(new Set(first.map((r) => r.split(':')[1]))).toEqual(new Set(['0', '1']));
  const { routes, g } = twoReplicas(99);
  void g.list();
  expect(routes, 'reported synchronously, before the call returns').toHaveLength(1);
});

test('a pinned call goes to its replica; a retired replica gets no more picked calls', async () => {
  const { replicas, routes, g } = twoReplicas(3);
  const created = await g.create({ name: 'demo', command: [] }, { replica: 1 });
  expect(routes[0]).toEqual({ operation: 'create', sandboxId: created.id, sandboxName: 'demo', replica: 1, pinned: true, answer: 'OK' });
  expect(replicas[1].calls.some((c) => c.method === 'createSandbox')).toBe(true);
  await g.retire(0);
  for (let i = 0; i < 8; i++) await g.list();
  expect(routes.slice(1).map((r) => r.replica)).toEqual(Array(8).fill(1));
  expect(replicas[0].calls.filter((c) => c.method === 'listSandboxes')).toHaveLength(0);
  await expect(g.list({ replica: 2 })).rejects.toThrow('no driver replica 2: the gateway has 2 (0-1)');
  await g.retire(1);
  await expect(g.list()).rejects.toThrow('every driver replica (2) is down');
});
