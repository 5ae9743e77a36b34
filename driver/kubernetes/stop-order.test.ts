/**
 * Stop ordering (OpenShell#3421/#3424), read from watched events ordered by resourceVersion:
 * the supervisor goes while the workload's boundary is reachable, then the workload is
 * suspended, then the generation Secrets go. Also the guards around it: 409 retries, the
 * supervisor's UID precondition, the grace + headroom deadline, Secret failures as warnings,
 * and the `suspend-first` variant that reproduces the defect.
 */
import type { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { activateTimes } from '../../faults/proxy/test-kit.ts';
import { statusOf, Kube } from './kube.ts';
import {
  HOLD,
  MAIN,
  NAMESPACE,
  driverError,
  exitCode,
  expect,
  phaseOf,
  pods,
  sandboxes,
  setFinalizer,
  stopOrderViolations,
  suspendedSpec,
  terminating,
  test,
  bootstrapping,
  type Seen,
} from './test-kit.ts';

/** The driver's guarded Sandbox patches, met by a genuine conflict (faults/proxy/). */
const SANDBOX_PATCH_CONFLICT = { kind: 'conflict', match: { verb: 'patch', resource: 'sandboxes.agents.x-k8s.io' } } as const;

const DENY_SECRET_DELETION = 'test-deny-secret-deletion';

/**
 * Every Secret deletion refused with 403, as a real cluster refuses it: a ValidatingAdmissionPolicy
 * and its binding (the embedded cluster enforces them at once). `remove()` lifts it.
 */
function denySecretDeletion(cluster: EmbeddedCluster): { remove: () => void } {
  const policies = cluster.api.target('admissionregistration.k8s.io/v1', 'validatingadmissionpolicies');
  const bindings = cluster.api.target('admissionregistration.k8s.io/v1', 'validatingadmissionpolicybindings');
  cluster.api.create(policies, {
    metadata: { name: DENY_SECRET_DELETION },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['secrets'] }] },
      validations: [{ expression: 'false', reason: 'Forbidden', message: 'no Secret may be deleted' }],
    },
  });
  cluster.api.create(bindings, { metadata: { name: DENY_SECRET_DELETION }, spec: { policyName: DENY_SECRET_DELETION, validationActions: ['Deny'] } });
  return {
    remove: () => {
      cluster.api.delete(bindings, DENY_SECRET_DELETION);
      cluster.api.delete(policies, DENY_SECRET_DELETION);
    },
  };
}

/** Fails with the labels in watched order unless they already are in that order (strictly). */
function expectInOrder(entries: [string, Seen | undefined][]): void {
  for (const [label, seen] of entries) expect(seen, `no watched event for "${label}"`).toBeDefined();
  const actual = [...entries].sort((a, b) => a[1]!.rv - b[1]!.rv).map(([label]) => label);
  expect(actual).toEqual(entries.map(([label]) => label));
  const rvs = entries.map(([, seen]) => seen!.rv);
  expect(new Set(rvs).size, 'two steps share one revision').toBe(rvs.length);
}

test.describe('stop order', () => {
  for (const release of ['v0.5.0', 'v0.4.6'] as const) {
    test(`${release}: supervisor gone, then workload suspended and gone, then generation Secrets`, async ({ lab }) => {
      const cluster = await lab.cluster({ agentSandbox: release });
      const d = lab.driver(cluster);
      const sb = await d.create({ name: 'demo', command: MAIN });
      const { sandbox, supervisorPod, workloadPod, secrets } = sb.objects;
      const supervisorUid = cluster.api.get(pods(cluster), supervisorPod).metadata.uid;
      const timeline = lab.timeline(cluster);
      const spy = lab.spy(cluster);

      const stopped = await d.stop(sb.id);
      expect(stopped.phase).toBe('Stopped');
      expect(stopped.conditions.filter((c) => c.type === 'CleanupFailed')).toEqual([]);
      expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);

      const suspending = timeline.first('Sandbox', sandbox, (o) => phaseOf(o) === 'suspending');
      const workloadGone = timeline.deleted('Pod', workloadPod);
      const supervisorGone = timeline.deleted('Pod', supervisorPod);
      expectInOrder([
        ['stop-begin patch (releasing)', timeline.first('Sandbox', sandbox, (o) => phaseOf(o) === 'releasing')],
        ['supervisor Pod deletionTimestamp', timeline.first('Pod', supervisorPod, terminating)],
        ['supervisor Pod DELETED', supervisorGone],
        ['suspension patch (suspending + suspended spec)', suspending],
        ['workload Pod deletionTimestamp', timeline.first('Pod', workloadPod, terminating)],
        ['workload Pod DELETED', workloadGone],
        ['completion patch (annotations cleared)', timeline.first('Sandbox', sandbox, (o) => !phaseOf(o), suspending?.rv)],
      ]);
      // Phase and suspended spec arrive in one write.
      expect(suspendedSpec(suspending!.object)).toBe(true);
      expect(timeline.first('Sandbox', sandbox, suspendedSpec)!.rv).toBe(suspending!.rv);
      // The supervisor cleaned up through the boundary and exited 0; the workload stopped cleanly too.
      expect(exitCode(supervisorGone!.object, 'supervisor')).toBe(0);
      expect(exitCode(workloadGone!.object, 'agent')).toBe(0);

      // The supervisor DELETE carried the uid of the Pod the driver had observed.
      const supervisorDeletes = spy.deletes.filter((x) => x.resource === 'pods' && x.name === supervisorPod && x.preconditionUid);
      expect(supervisorDeletes.map((x) => [x.preconditionUid, x.outcome])).toEqual([[supervisorUid, 'accepted']]);

      // Generation Secrets: deleted by exact name (no list), only once the workload Pod is gone.
      const secretRequests = spy.requests.filter((r) => r.resource === 'secrets');
      expect(secretRequests.map((r) => r.verb)).toEqual(['delete', 'delete']);
      expect(secretRequests.map((r) => r.name).sort()).toEqual([...secrets].sort());
      for (const request of secretRequests) expect(request.revision).toBeGreaterThanOrEqual(workloadGone!.rv);
      const workloadSecret = secrets.find((s) => s.startsWith('os-sandbox-'))!;
      expect(timeline.deleted('Secret', workloadSecret)!.rv).toBeGreaterThan(workloadGone!.rv);
      for (const secret of secrets) expect(timeline.deleted('Secret', secret), secret).toBeDefined();
    });
  }

  test('suspend-first (the #3421 defect): supervisor SIGKILLed with 137, stop times out, the order check fails', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster, { variant: 'suspend-first', supervisorGraceSeconds: 3, apiHeadroomSeconds: 2 });
    expect((await d.capabilities()).driverVersion).toBe('0.2.0+suspend-first');
    const sb = await d.create({ name: 'demo', command: MAIN });
    const { supervisorPod, workloadPod } = sb.objects;
    const timeline = lab.timeline(cluster);

    const error = await driverError(d.stop(sb.id));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toBe('timed out waiting for supervisor Pod deletion');

    await expect.poll(() => timeline.deleted('Pod', supervisorPod), { timeout: 30_000 }).toBeDefined();
    const supervisorGone = timeline.deleted('Pod', supervisorPod)!;
    expect(exitCode(supervisorGone.object, 'supervisor')).toBe(137);
    expect((supervisorGone.object.spec as { terminationGracePeriodSeconds: number }).terminationGracePeriodSeconds).toBe(3);
    expectInOrder([
      ['suspension patch', timeline.first('Sandbox', sb.objects.sandbox, suspendedSpec)],
      ['workload Pod deletionTimestamp', timeline.first('Pod', workloadPod, terminating)],
      ['workload Pod DELETED', timeline.deleted('Pod', workloadPod)],
      ['supervisor Pod deletionTimestamp', timeline.first('Pod', supervisorPod, terminating)],
      ['supervisor Pod DELETED', supervisorGone],
    ]);
    // Named by the harness's stop/ rules (each message starts with its rule's id).
    const broken = new Set(stopOrderViolations(timeline, sb.objects).map((v) => /^(?:FAIL|INCONCLUSIVE) ([\w/-]+):/.exec(v)?.[1] ?? v));
    for (const expected of ['no durable `releasing` phase was recorded', 'stop/suspend-after-supervisor-gone', 'stop/supervisor-gone-before-workload-delete', 'stop/supervisor-exit-clean']) expect([...broken]).toContain(expected);
  });
});

test.describe('stop guards', () => {
  test('one 409 Conflict on patching the Sandbox is retried and the stop succeeds', async ({ lab }) => {
    const cluster = await lab.cluster();
    const proxy = await lab.proxy(cluster);
    const d = lab.driver(cluster, {}, undefined, proxy);
    const sb = await d.create({ name: 'demo', command: MAIN });
    const timeline = lab.timeline(cluster);
    // A genuine 409: a third party writes the Sandbox just before the driver's guarded patch.
    const conflict = activateTimes(proxy, SANDBOX_PATCH_CONFLICT, 1);
    const stopped = await d.stop(sb.id);
    expect(conflict.applied).toBe(1);
    expect(stopped.phase).toBe('Stopped');
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
  });

  test('a 409 Conflict on each of the three stop patches is retried and the stop succeeds', async ({ lab }) => {
    const cluster = await lab.cluster();
    const proxy = await lab.proxy(cluster);
    const d = lab.driver(cluster, {}, undefined, proxy);
    const sb = await d.create({ name: 'demo', command: MAIN });
    const timeline = lab.timeline(cluster);
    const conflict = () => activateTimes(proxy, SANDBOX_PATCH_CONFLICT, 1);
    const faults = [conflict()]; // the stop-begin patch
    const armed = new Set<string>();
    timeline.onChange((seen) => {
      const phase = seen.kind === 'Sandbox' ? phaseOf(seen.object) : undefined;
      // As each stop phase commits, the next patch (suspension, then completion) meets a conflict.
      if ((phase === 'releasing' || phase === 'suspending') && !armed.has(phase)) {
        armed.add(phase);
        faults.push(conflict());
      }
    });
    const stopped = await d.stop(sb.id);
    expect(faults.map((f) => f.applied)).toEqual([1, 1, 1]);
    expect(stopped.phase).toBe('Stopped');
    // The first concurrent write lands before any stop phase: a change of the settled Sandbox.
    expect(timeline.bootstrapPhases(sb.objects.sandbox)).toEqual(['-:cleared', 'stop:releasing', 'stop:suspending', '-:cleared']);
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
  });

  test('a DELETE with a stale uid precondition is refused with 409 Conflict and the new Pod survives', async ({ lab }) => {
    const cluster = await lab.cluster({ node: false });
    const target = pods(cluster, 'default');
    const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'supervisor', image: 'sandbox-conformance/supervisor:dev' }] } });
    const old = cluster.api.create(target, pod('os-supervisor-x')).object;
    cluster.api.delete(target, 'os-supervisor-x', { gracePeriodSeconds: 0 });
    const replacement = cluster.api.create(target, pod('os-supervisor-x')).object;
    expect(replacement.metadata.uid).not.toBe(old.metadata.uid);

    const kube = new Kube(lab.kubeconfig(cluster));
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'os-supervisor-x' };
    const refused = await kube.delete(ref, { preconditions: { uid: old.metadata.uid }, propagationPolicy: 'Foreground' }).then(
      () => undefined,
      (error) => error,
    );
    expect(statusOf(refused)).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(statusOf(refused)?.message).toContain(`Precondition failed: UID in precondition: ${old.metadata.uid}`);
    const survivor = cluster.api.get(target, 'os-supervisor-x');
    expect(survivor.metadata.uid).toBe(replacement.metadata.uid);
    expect(survivor.metadata.deletionTimestamp).toBeUndefined();
    expect(await kube.delete(ref, { preconditions: { uid: replacement.metadata.uid } })).toBe(true);
  });

  test('stop never deletes a supervisor Pod replaced under the same name: the stale uid precondition refuses, and the re-read Pod is not the recorded one', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster);
    const sb = await d.create({ name: 'demo', command: MAIN });
    const { supervisorPod, sandbox } = sb.objects;
    const target = pods(cluster);
    const original = cluster.api.get(target, supervisorPod);
    const timeline = lab.timeline(cluster);
    const spy = lab.spy(cluster);

    // Between the driver's GET and its DELETE, the Pod is replaced: same name, new uid.
    let replacementUid: string | undefined;
    spy.onRequest((request) => {
      if (replacementUid || request.verb !== 'delete' || request.resource !== 'pods' || request.name !== supervisorPod) return;
      cluster.api.delete(target, supervisorPod, { gracePeriodSeconds: 0 });
      const spec = structuredClone(original.spec) as { nodeName?: string; volumes?: unknown; containers: { volumeMounts?: unknown }[] };
      delete spec.nodeName;
      delete spec.volumes; // its generation Secret went with the old Pod
      for (const container of spec.containers) delete container.volumeMounts;
      const { labels, annotations, ownerReferences } = original.metadata;
      replacementUid = cluster.api.create(target, { metadata: { name: supervisorPod, labels, annotations, ownerReferences }, spec }).object.metadata.uid;
    });

    const stopped = await d.stop(sb.id);
    expect(stopped.phase).toBe('Stopped');
    expect(replacementUid).toBeDefined();
    // One DELETE, with the recorded Pod's uid: refused. The Pod re-read carries another uid than the
    // Sandbox recorded (sandbox-runtime-supervisor-uid), so the driver's supervisor is gone and the
    // replacement is left alone, at the first deletion and at the clean-up after the suspension.
    const driverDeletes = spy.deletes.filter((x) => x.resource === 'pods' && x.name === supervisorPod && x.preconditionUid);
    expect(driverDeletes.map((x) => [x.preconditionUid, x.currentUid, x.outcome])).toEqual([[original.metadata.uid, replacementUid, 'conflict']]);
    const survivor = cluster.api.get(target, supervisorPod);
    expect(survivor.metadata.uid).toBe(replacementUid);
    expect(survivor.metadata.deletionTimestamp).toBeUndefined();
    expect(timeline.first('Pod', supervisorPod, (o) => o.metadata.uid === replacementUid && terminating(o))).toBeUndefined();
    expect(timeline.first('Sandbox', sandbox, suspendedSpec)).toBeDefined();
  });

  for (const c of [
    { label: 'grace from the sandbox spec (2 s, driver default 5 s)', driver: { supervisorGraceSeconds: 5, apiHeadroomSeconds: 1 }, spec: { supervisorGraceSeconds: 2 }, grace: 2, seconds: 3 },
    { label: 'the default grace (30 s)', driver: { supervisorGraceSeconds: undefined, apiHeadroomSeconds: 1 }, spec: {}, grace: 30, seconds: 31 },
  ]) {
    test(`the supervisor deletion deadline is its grace + API headroom: ${c.label}`, async ({ lab }) => {
      test.setTimeout(120_000);
      const cluster = await lab.cluster();
      const d = lab.driver(cluster, c.driver);
      const sb = await d.create({ name: 'demo', command: MAIN, ...c.spec });
      const { supervisorPod, workloadPod, sandbox } = sb.objects;
      expect((cluster.api.get(pods(cluster), supervisorPod).spec as { terminationGracePeriodSeconds: number }).terminationGracePeriodSeconds).toBe(c.grace);
      const timeline = lab.timeline(cluster);

      // A supervisor Pod that cannot go away: a finalizer nobody removes keeps it after its container ends.
      setFinalizer(cluster, pods(cluster), supervisorPod, HOLD, true);
      const error = await driverError(d.stop(sb.id));
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).toBe(`timed out after ${c.seconds}s waiting for supervisor Pod deletion`);

      // A release that did not finish never suspends: the CR stays `releasing`, the workload runs on.
      const cr = cluster.api.get(sandboxes(cluster, NAMESPACE), sandbox);
      expect(phaseOf(cr)).toBe('releasing');
      expect(suspendedSpec(cr)).toBe(false);
      expect(cluster.api.get(pods(cluster), workloadPod).metadata.deletionTimestamp).toBeUndefined();
      // No phase from the driver: a stop in flight reports Bootstrapping, which a gateway not running the stop shows as Provisioning.
      expect(bootstrapping(await d.get(sb.id))).toEqual({ phase: 'Provisioning', Bootstrapping: 'True', Ready: 'False' });

      // Released, a fresh driver finishes the stop from `releasing`, in order.
      setFinalizer(cluster, pods(cluster), supervisorPod, HOLD, false);
      await d.close();
      const fresh = lab.driver(cluster, c.driver);
      expect((await fresh.stop(sb.id)).phase).toBe('Stopped');
      expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    });
  }

  test('a 403 on generation Secret deletion still suspends the workload; the error comes back as CleanupFailed', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster);
    const sb = await d.create({ name: 'demo', command: MAIN });
    const { sandbox, workloadPod, secrets } = sb.objects;
    const timeline = lab.timeline(cluster);
    const forbidden = denySecretDeletion(cluster);

    const stopped = await d.stop(sb.id);
    expect(stopped.phase).toBe('Stopped');
    const failed = stopped.conditions.filter((c) => c.type === 'CleanupFailed');
    // One condition, recorded on the Sandbox, naming each failure.
    expect(failed.map((c) => [c.status, c.reason])).toEqual([['True', 'GenerationSecretCleanupFailed']]);
    for (const secret of secrets) {
      expect(failed[0].message).toContain(`deleting generation Secret ${secret} failed: secrets "${secret}" is forbidden: ValidatingAdmissionPolicy '${DENY_SECRET_DELETION}' with binding '${DENY_SECRET_DELETION}' denied request: no Secret may be deleted`);
      expect(lab.logs.some((line) => line.includes(`deleting generation Secret ${secret} failed`))).toBe(true);
    }
    // The workload was suspended and the stop completed all the same.
    expect(stopOrderViolations(timeline, sb.objects)).toEqual([]);
    expect(timeline.deleted('Pod', workloadPod)).toBeDefined();
    const cr = cluster.api.get(sandboxes(cluster, NAMESPACE), sandbox);
    expect(suspendedSpec(cr)).toBe(true);
    expect(phaseOf(cr)).toBeUndefined();
    // StopSandbox answers nothing: the failure stays on the sandbox's status, read by anyone, until it starts again.
    expect((await d.get(sb.id)).conditions.filter((c) => c.type === 'CleanupFailed')).toEqual(failed);
    expect((await d.get(sb.id)).phase).toBe('Stopped');

    forbidden.remove();
    const started = await d.start(sb.id);
    expect(started.phase).toBe('Ready');
    expect(started.conditions.filter((c) => c.type === 'CleanupFailed')).toEqual([]);
  });
});
