/**
 * The Agent Sandbox controller simulation with a real node agent instead of a stand-in kubelet:
 * the Sandbox's Pod runs as a process, its PVC is a directory that outlives the Pod, and the
 * Pod's graceful termination takes as long as the process does. Per release: create -> Ready,
 * write a sentinel into the PVC through exec, suspend (Pod gone, PVC and Service kept), resume
 * (same-named Pod, new UID, sentinel still there). Expected conditions per release and step are
 * the documented ones (reference §0, §1.3, §2.3-2.4); the order of condition changes relative to
 * the Pod's own events comes from one watched timeline, in commit order.
 */
import { Writable } from 'node:stream';
import { expect, test } from '@playwright/test';
import { Exec, KubeConfig } from '@kubernetes/client-node';
import { EmbeddedCluster } from '../cluster.ts';
import type { KubeObject } from '../types.ts';
import type { Condition } from './conditions.ts';
import { AGENT_SANDBOX_VERSIONS, type AgentSandboxVersion } from './profiles.ts';

const NS = 'default';
const NAME = 'my-sandbox';
const HASH = '374de8f5';
const PVC = `workspace-${NAME}`;
const SVC = '; Service Exists';

type Seen = Omit<Condition, 'lastTransitionTime'>;

const ready = (generation: number, message = `Pod is Ready${SVC}`): Seen => ({ type: 'Ready', status: 'True', observedGeneration: generation, reason: 'DependenciesReady', message });
const suspendedReady = (generation: number, message: string): Seen => ({ type: 'Ready', status: 'False', observedGeneration: generation, reason: 'SandboxSuspended', message });
const notSuspended = (generation: number): Seen => ({ type: 'Suspended', status: 'False', observedGeneration: generation, reason: 'NotSuspended', message: 'Sandbox is not suspended' });
const terminated050 = (generation: number): Seen => ({ type: 'Suspended', status: 'True', observedGeneration: generation, reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is not operational.' });
const terminating054 = (generation: number): Seen => ({ type: 'Suspended', status: 'False', observedGeneration: generation, reason: 'PodTerminating', message: 'Pod is terminating. Sandbox is suspending' });
const terminated054 = (generation: number): Seen => ({ type: 'Suspended', status: 'True', observedGeneration: generation, reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is suspended' });

/** Conditions with the Pod Ready at `generation`; `suspendedAt`: the generation of an earlier suspend (v0.5.0 keeps it, stale). */
function running(version: AgentSandboxVersion, generation: number, suspendedAt?: number): Seen[] {
  if (version === 'v0.4.6') return [ready(generation)];
  if (version === 'v0.5.0') return suspendedAt ? [ready(generation), terminated050(suspendedAt)] : [ready(generation)];
  return [notSuspended(generation), ready(generation)];
}

/** Conditions once suspended and the Pod object is gone. */
function suspended(version: AgentSandboxVersion, generation: number): Seen[] {
  if (version === 'v0.4.6') return [ready(generation, `Pod does not exist, replicas is 0${SVC}`)];
  if (version === 'v0.5.0') return [suspendedReady(generation, 'Sandbox is suspended'), terminated050(generation)];
  return [terminated054(generation), suspendedReady(generation, 'Sandbox is suspended')];
}

const strip = (conditions: Condition[] | undefined): Seen[] => (conditions ?? []).map(({ lastTransitionTime: _t, ...rest }) => rest);

/** One timeline of the Sandbox's and its Pod's watched events, in commit order. */
interface Entry {
  kind: 'sandbox' | 'pod';
  type: string;
  uid: string;
  terminating: boolean;
  conditions: Seen[];
}

class World {
  readonly timeline: Entry[] = [];
  private readonly stops: (() => void)[] = [];
  readonly apiVersion: 'v1alpha1' | 'v1beta1';

  constructor(
    readonly cluster: EmbeddedCluster,
    readonly version: AgentSandboxVersion,
  ) {
    this.apiVersion = version === 'v0.4.6' ? 'v1alpha1' : 'v1beta1';
    const from = String(cluster.store.currentRevision());
    const record = (kind: Entry['kind']) => (type: string, object: KubeObject) => {
      if (object.metadata.name !== NAME) return;
      this.timeline.push({ kind, type, uid: object.metadata.uid!, terminating: !!object.metadata.deletionTimestamp, conditions: strip((object.status as { conditions?: Condition[] } | undefined)?.conditions) });
    };
    this.stops.push(cluster.api.watch(this.sandboxes, { resourceVersion: from }, record('sandbox')));
    this.stops.push(cluster.api.watch(cluster.api.target('v1', 'pods', NS), { resourceVersion: from }, record('pod')));
  }

  stopWatching(): void {
    for (const stop of this.stops) stop();
  }

  get sandboxes() {
    return this.cluster.api.target(`agents.x-k8s.io/${this.apiVersion}`, 'sandboxes', NS);
  }

  conditions(): Seen[] {
    return strip((this.cluster.api.get(this.sandboxes, NAME).status as { conditions?: Condition[] } | undefined)?.conditions);
  }

  get(plural: 'pods' | 'services' | 'persistentvolumeclaims', name: string): KubeObject | undefined {
    return this.cluster.api.store.get(plural, NS, name);
  }

  podReady(): boolean {
    const pod = this.get('pods', NAME);
    return !!pod && !pod.metadata.deletionTimestamp && ((pod.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  }

  patchSpec(spec: Record<string, unknown>): void {
    this.cluster.api.patch(this.sandboxes, NAME, 'merge', { spec });
  }

  async exec(script: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const kc = new KubeConfig();
    kc.loadFromString(this.cluster.kubeconfig());
    let stdout = '';
    let stderr = '';
    const sink = (append: (text: string) => void) =>
      new Writable({
        write(chunk, _encoding, callback) {
          append(chunk.toString());
          callback();
        },
      });
    return new Promise((resolve, reject) => {
      new Exec(kc)
        .exec(NS, NAME, 'agent', ['sh', '-c', script], sink((t) => (stdout += t)), sink((t) => (stderr += t)), null, false, (status) => {
          const exitCode = status.status === 'Success' ? 0 : Number(status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message ?? 1);
          resolve({ exitCode, stdout, stderr });
        })
        .catch(reject);
    });
  }
}

for (const version of AGENT_SANDBOX_VERSIONS) {
  test(`Agent Sandbox ${version} with the node agent: Ready, suspend keeps PVC data and Service, resume brings the same-named Pod back`, async () => {
    const cluster = await EmbeddedCluster.start({ node: { backoffMs: 100 }, agentSandbox: version });
    const world = new World(cluster, version);
    try {
      cluster.api.create(world.sandboxes, {
        metadata: { name: NAME },
        spec: {
          service: true,
          podTemplate: {
            metadata: { labels: { app: 'agent' } },
            spec: {
              containers: [
                {
                  name: 'agent',
                  image: 'busybox',
                  command: ['sh', '-c', 'trap "exit 0" TERM; sleep 1000 & wait'],
                  volumeMounts: [{ name: 'workspace', mountPath: '/sandbox' }],
                },
              ],
            },
          },
          volumeClaimTemplates: [{ metadata: { name: 'workspace' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
        },
      });

      // ---- create -> Ready ----
      await expect.poll(() => world.podReady(), { message: 'the Sandbox Pod runs and is Ready' }).toBe(true);
      await expect.poll(() => world.conditions()).toEqual(running(version, 1));
      const first = world.get('pods', NAME)!;
      expect(first.metadata.labels?.['agents.x-k8s.io/sandbox-name-hash']).toBe(HASH);
      expect((first.spec as { volumes?: unknown[] }).volumes).toEqual([{ name: 'workspace', persistentVolumeClaim: { claimName: PVC } }]);
      const pvc = world.get('persistentvolumeclaims', PVC)!;
      expect((pvc.status as { phase?: string }).phase).toBe('Bound');
      const service = world.get('services', NAME)!;
      expect(service.spec).toMatchObject({ clusterIP: 'None', selector: { 'agents.x-k8s.io/sandbox-name-hash': HASH } });
      const podIP = (first.status as { podIP: string }).podIP;
      expect(cluster.api.get(world.sandboxes, NAME).status).toMatchObject({ podIPs: [podIP], service: NAME, serviceFQDN: `${NAME}.${NS}.svc.cluster.local` });

      const write = await world.exec('echo s1 > "$POD_ROOT/sandbox/sentinel"');
      expect(write).toEqual({ exitCode: 0, stdout: '', stderr: '' });

      // ---- suspend ----
      world.patchSpec(version === 'v0.4.6' ? { replicas: 0 } : { operatingMode: 'Suspended' });
      await expect.poll(() => world.get('pods', NAME), { message: 'the Pod is gone' }).toBeUndefined();
      await expect.poll(() => world.conditions()).toEqual(suspended(version, 2));
      expect(world.get('persistentvolumeclaims', PVC)?.metadata.uid).toBe(pvc.metadata.uid);
      expect(world.get('services', NAME)?.metadata.uid).toBe(service.metadata.uid);
      const status = cluster.api.get(world.sandboxes, NAME).status as Record<string, unknown>;
      expect(status).not.toHaveProperty('podIPs');
      expect(status).not.toHaveProperty('replicas');
      expect(status).not.toHaveProperty('nodeName');

      // The order of the suspension, from the timeline: the Pod's own events against the Sandbox's conditions.
      const podEvents = world.timeline.filter((e) => e.kind === 'pod' && e.uid === first.metadata.uid);
      const markedAt = world.timeline.findIndex((e) => e.kind === 'pod' && e.uid === first.metadata.uid && e.terminating);
      const deletedAt = world.timeline.findIndex((e) => e.kind === 'pod' && e.uid === first.metadata.uid && e.type === 'DELETED');
      expect(markedAt).toBeGreaterThanOrEqual(0);
      expect(deletedAt).toBeGreaterThan(markedAt);
      expect(podEvents.at(-1)?.type).toBe('DELETED');
      const sandboxWhile = (from: number, to: number) => world.timeline.slice(from, to).filter((e) => e.kind === 'sandbox').map((e) => e.conditions);
      const whileTerminating = sandboxWhile(markedAt, deletedAt);
      const afterDeleted = sandboxWhile(deletedAt, world.timeline.length);
      if (version === 'v0.4.6') {
        // replicas 0 reads as ready at once: "Pod does not exist" while the Pod still terminates.
        expect(whileTerminating).toContainEqual(suspended(version, 2));
        expect(afterDeleted.every((c) => JSON.stringify(c) === JSON.stringify(suspended(version, 2)))).toBe(true);
      } else if (version === 'v0.5.0') {
        // Suspended=True/PodTerminated is written in the reconcile that issues the delete: before the Pod is gone.
        expect(whileTerminating).toContainEqual(suspended(version, 2));
        expect(whileTerminating.flat().some((c) => c.type === 'Suspended' && c.reason !== 'PodTerminated')).toBe(false);
      } else {
        // PodTerminating while the Pod object exists, PodTerminated only after its DELETED event.
        expect(whileTerminating).toContainEqual([terminating054(2), suspendedReady(2, 'Sandbox is suspending')]);
        expect(whileTerminating.flat().some((c) => c.type === 'Suspended' && c.status === 'True')).toBe(false);
        expect(afterDeleted).toContainEqual(suspended(version, 2));
      }

      // ---- resume ----
      world.patchSpec(version === 'v0.4.6' ? { replicas: 1 } : { operatingMode: 'Running' });
      await expect.poll(() => world.podReady(), { message: 'a new Pod runs and is Ready' }).toBe(true);
      const second = world.get('pods', NAME)!;
      expect(second.metadata.uid).not.toBe(first.metadata.uid);
      expect((second.spec as { volumes?: unknown[] }).volumes).toEqual([{ name: 'workspace', persistentVolumeClaim: { claimName: PVC } }]);
      // v0.5.0: Suspended stays True/PodTerminated from generation 2 (never cleared); v0.5.4: NotSuspended.
      await expect.poll(() => world.conditions()).toEqual(running(version, 3, 2));
      expect(world.get('persistentvolumeclaims', PVC)?.metadata.uid).toBe(pvc.metadata.uid);

      const read = await world.exec('cat "$POD_ROOT/sandbox/sentinel"');
      expect(read).toEqual({ exitCode: 0, stdout: 's1\n', stderr: '' });
    } finally {
      world.stopWatching();
      await cluster.stop();
    }
  });
}
