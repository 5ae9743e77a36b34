/**
 * Bad input and bad clusters: each failure carries the driver's error code and a message an
 * operator can act on, and leaves nothing half-created (objects are listed after each one).
 */
import * as k8s from '@kubernetes/client-node';
import type { SandboxRequest } from '../gateway/gateway.ts';
import { MAIN, NAMESPACE, driverError, expect, leftovers, namespaceNames, pods, test } from './test-kit.ts';

const NO_API = 'no supported Agent Sandbox API version is available; tried v1beta1, v1alpha1';

test.describe('bad input', () => {
  test('invalid sandbox specs are refused with INVALID_ARGUMENT before any request', async ({ lab }) => {
    const cluster = await lab.cluster({ node: false });
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster);
    const namespaces = namespaceNames(cluster);
    const a = (n: number) => 'a'.repeat(n);
    const cases: [Partial<SandboxRequest>, string][] = [
      [{ name: 'Bad_Name' }, `name "Bad_Name" must be a DNS-1123 label`],
      [{ name: '-lead' }, `name "-lead" must be a DNS-1123 label`],
      [{ name: 'trail-' }, `name "trail-" must be a DNS-1123 label`],
      [{ name: 'dot.ted' }, `name "dot.ted" must be a DNS-1123 label`],
      [{ name: '' }, 'name is required'],
      [{ name: 'ok', workspace: 'Team' }, 'workspace "Team" must be a DNS-1123 label'],
      // Shared mode names the CR {workspace}--{name}: "default--" + 55 = 64 characters.
      [{ name: a(55) }, `sandbox name "default--${a(55)}" is 64 characters; the limit is 63 (shared mode names it {workspace}--{name})`],
      [{ name: a(64) }, `sandbox name "default--${a(64)}" is 73 characters; the limit is 63`],
      [{ name: 'ok', command: 'sh -c true' as unknown as string[] }, 'command must be a list of strings'],
      [{ name: 'ok', supervisorGraceSeconds: -1 }, 'driver_config.supervisorTerminationGracePeriodSeconds must be a non-negative integer, got -1'],
      [{ name: 'ok', workloadGraceSeconds: 1.5 }, 'driver_config.workloadTerminationGracePeriodSeconds must be a non-negative integer, got 1.5'],
    ];
    for (const [spec, message] of cases) {
      const full = { command: MAIN, ...spec } as SandboxRequest;
      for (const call of [d.validate(full), d.create(full)]) {
        const error = await driverError(call);
        expect(error.code, JSON.stringify(spec)).toBe('INVALID_ARGUMENT');
        expect(error.message).toContain(message);
        expect(error.message).toMatch(/^invalid sandbox: /);
      }
    }
    // At the limit: "default--" + 54 = 63 characters is fine.
    await d.validate({ name: a(54), command: MAIN });
    // Problems are reported together.
    const both = await driverError(d.validate({ name: 'Bad', workspace: 'Worse', command: MAIN }));
    expect(both.message).toBe(`invalid sandbox: name "Bad" must be a DNS-1123 label: lower case alphanumeric characters or '-', starting and ending with an alphanumeric character; workspace "Worse" must be a DNS-1123 label`);

    expect(spy.requests).toEqual([]);
    expect(namespaceNames(cluster)).toEqual(namespaces);
  });

  test('unknown ids are NOT_FOUND (delete answers false); an empty id is INVALID_ARGUMENT', async ({ lab }) => {
    const cluster = await lab.cluster({ node: false });
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster);
    for (const call of [d.get('0123456789abcdef'), d.stop('0123456789abcdef'), d.start('0123456789abcdef')]) {
      const error = await driverError(call);
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe('sandbox not found: no Sandbox resource carries openshell.ai/sandbox-id=0123456789abcdef');
    }
    expect(await d.delete('0123456789abcdef')).toBe(false);
    for (const call of [d.get(''), d.stop(''), d.start(''), d.delete('')]) {
      const error = await driverError(call);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toBe('sandbox_id is required');
    }
    expect(spy.requests.filter((r) => r.verb !== 'list')).toEqual([]);
  });

  test('a duplicate name is ALREADY_EXISTS and leaves the existing sandbox untouched', async ({ lab }) => {
    const cluster = await lab.cluster();
    const d = lab.driver(cluster);
    const first = await d.create({ name: 'demo', command: MAIN });
    const before = leftovers(cluster, NAMESPACE);
    const supervisorUid = cluster.api.get(pods(cluster), first.objects.supervisorPod).metadata.uid;

    const error = await driverError(d.create({ name: 'demo', command: MAIN }));
    expect(error.code).toBe('ALREADY_EXISTS');
    expect(error.message).toBe('sandbox already exists: openshell/default--demo');
    expect(leftovers(cluster, NAMESPACE)).toEqual(before);
    expect(cluster.api.get(pods(cluster), first.objects.supervisorPod).metadata.uid).toBe(supervisorUid);
    expect((await d.list()).map((s) => [s.id, s.phase])).toEqual([[first.id, 'Ready']]);
  });

  test('a cluster without the Agent Sandbox CRDs is FAILED_PRECONDITION and nothing is created', async ({ lab }) => {
    const cluster = await lab.cluster({ agentSandbox: null, node: false });
    const spy = lab.spy(cluster);
    const d = lab.driver(cluster);
    const namespaces = namespaceNames(cluster);
    // GetCapabilities answers without the cluster (a gateway asks it first, at start-up).
    expect((await d.capabilities()).driverName).toBe('kubernetes');
    for (const call of [d.create({ name: 'demo', command: MAIN }), d.list(), d.get('0123456789abcdef'), d.stop('0123456789abcdef')]) {
      const error = await driverError(call);
      expect(error.code).toBe('FAILED_PRECONDITION');
      expect(error.message).toBe(NO_API);
    }
    expect(namespaceNames(cluster)).toEqual(namespaces);
    expect(spy.requests.filter((r) => !['get', 'list'].includes(r.verb))).toEqual([]);
    expect(leftovers(cluster, 'default')).toEqual({ pods: [], services: [], secrets: [], persistentvolumeclaims: [] });
  });

  test('an unreachable API server is UNAVAILABLE for every call', async ({ lab }) => {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'nowhere', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'nobody', token: 'unused' }],
      contexts: [{ name: 'nowhere', cluster: 'nowhere', user: 'nobody' }],
      currentContext: 'nowhere',
    });
    const d = lab.driver(kc);
    const id = '0123456789abcdef';
    for (const [label, call] of [
      ['create', d.create({ name: 'demo', command: MAIN })],
      ['list', d.list()],
      ['get', d.get(id)],
      ['stop', d.stop(id)],
      ['start', d.start(id)],
      ['delete', d.delete(id)],
    ] as const) {
      const error = await driverError(call);
      expect(error.code, label).toBe('UNAVAILABLE');
      expect(error.message, label).toContain('the Kubernetes API server is unreachable');
      expect(error.message, label).toContain('ECONNREFUSED 127.0.0.1:1');
    }
    await d.reconcile(); // logs, never throws
    expect(lab.logs.some((line) => line.startsWith('reconciliation: ') && line.includes('unreachable'))).toBe(true);
  });
});
