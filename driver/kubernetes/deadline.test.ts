/**
 * No call outlives its caller (issue 9, item 4): a deadline or an aborted
 * signal ends a call at once with DEADLINE_EXCEEDED or CANCELLED naming the stage it was in; the
 * call sends nothing more; what it had written is durable state that a later stop, start or
 * reconciliation carries on from. Over gRPC the same, end to end, against the real driver.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../cluster/embedded/types.ts';
import { GrpcDriverClient } from '../grpc/client.ts';
import { serveDriver } from '../grpc/server.ts';
import { ANNOTATION } from './names.ts';
import { HOLD, MAIN, NAMESPACE, driverError, expect, phaseOf, pods, sandboxes, setFinalizer, stopOrderViolations, suspendedSpec, test } from './test-kit.ts';

const isReady = (o: KubeObject) => ((o.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
const writes = (verb: string) => !['get', 'list', 'watch'].includes(verb);

test.describe('call deadlines and cancellation', () => {
  test('a deadline or an aborted signal that has already ended fails every call before any request', async ({ lab }) => {
    const cluster = await lab.cluster({ node: false });
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster).driver;
    const past = { deadline: Date.now() - 1 };
    const aborted = { signal: AbortSignal.abort() };
    const ref = { sandboxId: '0123456789abcdef' };
    const sandbox = { id: ref.sandboxId, name: 'demo', namespace: '', workspace: '', spec: { command: MAIN } };
    for (const [options, code, what] of [
      [past, 'DEADLINE_EXCEEDED', 'deadline exceeded'],
      [aborted, 'CANCELLED', 'cancelled by the caller'],
    ] as const) {
      for (const [operation, call] of [
        ['capabilities', d.getCapabilities(options)],
        ['validate', d.validateSandboxCreate(sandbox, options)],
        ['create', d.createSandbox(sandbox, options)],
        ['get', d.getSandbox(ref, options)],
        ['list', d.listSandboxes(options)],
        ['stop', d.stopSandbox(ref, options)],
        ['start', d.startSandbox(ref, options)],
        ['delete', d.deleteSandbox(ref, options)],
        ['ensure workspace', d.ensureWorkspace('default', options)],
        ['delete workspace', d.deleteWorkspace('default', options)],
      ] as const) {
        const error = await driverError(call);
        expect([error.code, error.message]).toEqual([code, `${operation} did not finish: ${what} while waiting to begin`]);
      }
    }
    expect(spy.requests).toEqual([]);
  });

  test('a CreateSandbox whose caller gives up mid-install fails at once naming the stage and writes nothing more', async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster).driver;
    const caller = new AbortController();
    let endedAt: number | undefined;
    timeline.onChange((seen) => {
      // The running patch commits: the driver then waits for the controller's workload Pod, reading only.
      if (endedAt === undefined && seen.kind === 'Sandbox' && seen.type === 'MODIFIED' && !suspendedSpec(seen.object)) {
        endedAt = seen.rv;
        caller.abort(new DOMException('the test ran out of time', 'TimeoutError'));
      }
    });
    const id = '0123456789abcdef';
    const error = await driverError(d.createSandbox({ id, name: 'demo', namespace: '', workspace: '', spec: { command: MAIN } }, { signal: caller.signal }));
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(error.message).toMatch(/^create did not finish: deadline exceeded while (letting the workload run \(running patch\)|waiting for the gated workload Pod) \(sandbox 0123456789abcdef, Sandbox openshell\/default--demo\)$/);
    expect(spy.requests.filter((r) => writes(r.verb) && r.revision > endedAt!)).toEqual([]);
    expect(phaseOf(cluster.api.get(sandboxes(cluster, NAMESPACE), 'default--demo'))).toBe('preparing');
  });

  test("a gateway create whose caller's deadline passes while it waits for Ready fails naming the stage; the driver's background completion still makes it Ready", async ({ lab }) => {
    const cluster = await lab.cluster();
    const timeline = lab.timeline(cluster);
    const d = lab.driver(cluster);
    const caller = new AbortController();
    timeline.onChange((seen) => {
      // The workload Pod turns Ready once released: the gateway then waits for the Sandbox to follow.
      if (!caller.signal.aborted && seen.kind === 'Pod' && seen.name === 'default--demo' && isReady(seen.object)) caller.abort(new DOMException('the test ran out of time', 'TimeoutError'));
    });
    const error = await driverError(d.create({ name: 'demo', command: MAIN }, { signal: caller.signal }));
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(error.message).toMatch(/^create did not return within \d+(\.\d)? s: stopped while waiting for the sandbox to become Ready \(sandbox [0-9a-f]{16}; the driver has shown .*Bootstrapping=True \(SandboxRuntimeGenerationStarting\).*\)$/);
    const id = /sandbox ([0-9a-f]{16})/.exec(error.message)![1];
    await expect.poll(async () => (await d.get(id)).phase, { timeout: 30_000 }).toBe('Ready');
    expect(timeline.bootstrapPhases('default--demo')).toEqual(['create:preparing', 'create:released', '-:cleared']);
    expect(lab.logs).toEqual([]);
  });

  test('a stop past its deadline while the supervisor is held fails naming the stage; it never suspends, a call queued behind it never runs, and a later stop finishes in order', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster, { apiHeadroomSeconds: 30 });
    const sb = await d.create({ name: 'demo', command: MAIN });
    const timeline = lab.timeline(cluster);
    setFinalizer(cluster, pods(cluster), sb.objects.supervisorPod, HOLD, true);

    // The supervisor would be waited for 3 + 30 s; the caller gives it 4 s.
    const stopping = driverError(d.driver.stopSandbox({ sandboxId: sb.id }, { deadline: Date.now() + 4000 }));
    await expect.poll(() => timeline.first('Pod', sb.objects.supervisorPod, (o) => !!o.metadata.deletionTimestamp)).toBeDefined();
    // A start queued behind the stop, whose caller gives up first.
    const startError = await driverError(d.driver.startSandbox({ sandboxId: sb.id }, { deadline: Date.now() + 2000 }));
    expect([startError.code, startError.message]).toEqual(['DEADLINE_EXCEEDED', `start did not finish: deadline exceeded while waiting for another call on this sandbox in this driver to finish (sandbox ${sb.id})`]);
    const error = await stopping;
    expect([error.code, error.message]).toEqual(['DEADLINE_EXCEEDED', `stop did not finish: deadline exceeded while waiting for the supervisor Pod to be gone (sandbox ${sb.id})`]);
    const cr = cluster.api.get(sandboxes(cluster, NAMESPACE), sb.objects.sandbox);
    expect(phaseOf(cr)).toBe('releasing');
    expect(suspendedSpec(cr)).toBe(false);

    setFinalizer(cluster, pods(cluster), sb.objects.supervisorPod, HOLD, false);
    expect((await d.stop(sb.id)).phase).toBe('Stopped');
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['stop:releasing', 'stop:suspending', '-:cleared']); // no restart ever began
  });

  test("over gRPC: the client deadline ends the real driver's stop with its stage, and cancelling a call cancels the driver's work", async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster, { apiHeadroomSeconds: 30 });
    const sb = await d.create({ name: 'demo', command: MAIN });
    const dir = await mkdtemp(join(tmpdir(), 'deadline-'));
    const server = await serveDriver(d.driver, join(dir, 'driver.sock'));
    const client = new GrpcDriverClient(server.socketPath);
    try {
      const spy = lab.spy(cluster);
      setFinalizer(cluster, pods(cluster), sb.objects.supervisorPod, HOLD, true);
      const error = await driverError(client.stopSandbox({ sandboxId: sb.id }, { deadline: Date.now() + 4000 }));
      expect([error.code, error.message]).toEqual(['DEADLINE_EXCEEDED', `stop did not finish: deadline exceeded while waiting for the supervisor Pod to be gone (sandbox ${sb.id})`]);

      // A second stop, cancelled by its caller while it waits: the driver stops polling too.
      const caller = new AbortController();
      const cancelled = driverError(client.stopSandbox({ sandboxId: sb.id }, { signal: caller.signal }));
      await expect.poll(() => spy.requests.filter((r) => r.verb === 'get' && r.name === sb.objects.supervisorPod).length).toBeGreaterThan(2);
      caller.abort();
      const cancel = await cancelled;
      expect([cancel.code, cancel.message]).toEqual(['CANCELLED', `StopSandbox did not finish: cancelled by the caller while waiting for the compute driver on ${server.socketPath}`]);
      const polls = () => spy.requests.filter((r) => r.name === sb.objects.supervisorPod).length;
      // Once the server has seen the cancel, the driver sends nothing more for that stop.
      await expect.poll(async () => {
        const before = polls();
        await new Promise((r) => setTimeout(r, 500));
        return polls() - before;
      }).toBe(0);
      expect(cluster.api.get(sandboxes(cluster, NAMESPACE), sb.objects.sandbox).metadata.annotations?.[ANNOTATION.phase]).toBe('releasing');

      setFinalizer(cluster, pods(cluster), sb.objects.supervisorPod, HOLD, false);
      await client.stopSandbox({ sandboxId: sb.id });
      expect((await d.get(sb.id)).phase).toBe('Stopped');
    } finally {
      await client.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
