import { expect, test } from '@playwright/test';
import type { KubeObject } from '../types.ts';
import { desiredPod, desiredPvc, desiredService, desiredServicePorts, mayAdopt, podMetadata, samePorts } from './children.ts';
import { expectGolden, goldenCases, readGoldenInput } from './test-kit.ts';
import { nameHash } from './agent-sandbox-names.ts';
import { AGENT_SANDBOX_PROFILES, AGENT_SANDBOX_VERSIONS } from './profiles.ts';

const v046 = AGENT_SANDBOX_PROFILES['v0.4.6'];
const v050 = AGENT_SANDBOX_PROFILES['v0.5.0'];
const v054 = AGENT_SANDBOX_PROFILES['v0.5.4'];

function sandbox(spec: Record<string, unknown>, name = 'my-sandbox'): KubeObject {
  return { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', metadata: { name, namespace: 'team', uid: 'uid-1' }, spec };
}

test('name hash: FNV-1a 32-bit as %08x', () => {
  expect(nameHash('sandbox-name')).toBe('ab179450');
  expect(nameHash('my-sandbox')).toBe('374de8f5');
  expect(nameHash('')).toBe('811c9dc5');
});

test('the Pod copies podTemplate.spec verbatim; a claim template volume replaces a template volume of its name', () => {
  const podSpec = {
    containers: [{ name: 'agent', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'scratch', emptyDir: {} }],
  };
  const pod = desiredPod(v050, sandbox({ podTemplate: { spec: podSpec }, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] }));
  expect(pod.metadata).toMatchObject({ name: 'my-sandbox', namespace: 'team' });
  expect(pod.metadata.ownerReferences).toEqual([
    { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', name: 'my-sandbox', uid: 'uid-1', controller: true, blockOwnerDeletion: true },
  ]);
  expect(pod.spec).toEqual({
    containers: podSpec.containers,
    volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'data', persistentVolumeClaim: { claimName: 'data-my-sandbox' } }],
  });
  expect(desiredPod(v046, sandbox({ podTemplate: { spec: podSpec } })).metadata.ownerReferences?.[0].apiVersion).toBe('agents.x-k8s.io/v1alpha1');
});

test('template metadata: v0.5.x drops reserved keys and keeps the hash; v0.4.6 copies everything and lets the template win', () => {
  const metadata = {
    labels: { app: 'agent', 'agents.x-k8s.io/sandbox-name-hash': 'forged', 'extensions.agents.x-k8s.io/x': '1' },
    annotations: { note: 'hi', 'opentelemetry.io/trace-context': '{}' },
  };
  const s = sandbox({ podTemplate: { metadata, spec: { containers: [] } } });
  expect(podMetadata(v050, s)).toEqual({
    labels: { app: 'agent', 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' },
    annotations: { note: 'hi', 'agents.x-k8s.io/propagated-labels': 'app', 'agents.x-k8s.io/propagated-annotations': 'note' },
  });
  expect(podMetadata(v046, s).labels['agents.x-k8s.io/sandbox-name-hash']).toBe('forged');
  expect(podMetadata(v046, s).annotations['opentelemetry.io/trace-context']).toBe('{}');
});

test('template keys removed from the template are removed from the Pod; other keys stay', () => {
  const before = sandbox({ podTemplate: { metadata: { labels: { app: 'agent', tier: 'a' } }, spec: {} } });
  const pod = { metadata: { name: 'my-sandbox', ...podMetadata(v054, before) } } as KubeObject;
  pod.metadata.labels!.external = 'kept';
  const after = sandbox({ podTemplate: { metadata: { labels: { app: 'agent2' } }, spec: {} } });
  expect(podMetadata(v054, after, pod)).toEqual({
    labels: { app: 'agent2', external: 'kept', 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' },
    annotations: { 'agents.x-k8s.io/propagated-labels': 'app' },
  });
});

test('PVC per claim template: <vct>-<sandbox>, template labels plus the hash, owned by the Sandbox', () => {
  const vct = { metadata: { name: 'data', labels: { disk: 'fast' }, annotations: { a: 'b' } }, spec: { accessModes: ['ReadWriteOnce'] } };
  expect(desiredPvc(v054, sandbox({}), vct)).toEqual({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'data-my-sandbox',
      namespace: 'team',
      labels: { disk: 'fast', 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' },
      annotations: { a: 'b' },
      ownerReferences: [{ apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', name: 'my-sandbox', uid: 'uid-1', controller: true, blockOwnerDeletion: true }],
    },
    spec: { accessModes: ['ReadWriteOnce'] },
  });
});

test('headless Service: no ports up to v0.5.0; v0.5.4 derives them from container ports', () => {
  const spec = { containers: [{ name: 'a', ports: [{ containerPort: 8080 }] }] };
  const s = sandbox({ podTemplate: { spec } });
  expect(desiredService(v050, s).spec).toEqual({ clusterIP: 'None', selector: { 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' } });
  expect((desiredService(v054, s).spec as { ports: unknown[] }).ports).toEqual([{ name: 'p-8080-tcp', protocol: 'TCP', port: 8080, targetPort: 8080 }]);
});

for (const name of goldenCases('service-ports')) {
  test(`service ports golden: ${name}`, () => {
    const { podSpec } = readGoldenInput<{ podSpec: Record<string, unknown> }>('service-ports', name);
    const s = sandbox({ podTemplate: { spec: podSpec } });
    expectGolden('service-ports', name, Object.fromEntries(AGENT_SANDBOX_VERSIONS.map((v) => [v, desiredServicePorts(AGENT_SANDBOX_PROFILES[v], s)])));
  });
}

test('port drift is judged on name, protocol, port and targetPort, in order', () => {
  const ports = [{ name: 'a', protocol: 'TCP', port: 1, targetPort: 1 }];
  expect(samePorts([{ ...ports[0], appProtocol: 'http' }], ports)).toBe(true);
  expect(samePorts([{ ...ports[0], targetPort: 2 }], ports)).toBe(false);
  expect(samePorts(undefined, [])).toBe(true);
});

test('adoption: anything unowned at v0.4.6; only adoptable or hash-labelled objects from v0.5.0', () => {
  const plain = { metadata: { name: 'my-sandbox' } } as KubeObject;
  const adoptable = { metadata: { name: 'my-sandbox', labels: { 'agents.x-k8s.io/adoptable': 'true' } } } as KubeObject;
  const tracked = { metadata: { name: 'my-sandbox', labels: { 'agents.x-k8s.io/sandbox-name-hash': '374de8f5' } } } as KubeObject;
  const otherHash = { metadata: { name: 'my-sandbox', labels: { 'agents.x-k8s.io/sandbox-name-hash': 'ab179450' } } } as KubeObject;
  expect([plain, adoptable, tracked, otherHash].map((o) => mayAdopt(v046, o, 'my-sandbox'))).toEqual([true, true, true, true]);
  expect([plain, adoptable, tracked, otherHash].map((o) => mayAdopt(v050, o, 'my-sandbox'))).toEqual([false, true, true, false]);
});

test('v0.5.4 copies the Sandbox created-by label to the Pod, normalised, and drops a stale one; earlier releases do not', () => {
  const labelled = (value?: string) => {
    const s = sandbox({ podTemplate: { spec: {} } });
    if (value) s.metadata.labels = { 'agents.x-k8s.io/created-by': value };
    return s;
  };
  expect(podMetadata(v054, labelled('python-client')).labels['agents.x-k8s.io/created-by']).toBe('python-client');
  expect(podMetadata(v054, labelled('my-script')).labels['agents.x-k8s.io/created-by']).toBe('unknown');
  const pod = { metadata: { name: 'my-sandbox', labels: { 'agents.x-k8s.io/created-by': 'controller' } } } as KubeObject;
  expect(podMetadata(v054, labelled(), pod).labels).not.toHaveProperty('agents.x-k8s.io/created-by');
  expect(podMetadata(v050, labelled('go-client')).labels).not.toHaveProperty('agents.x-k8s.io/created-by');
});
