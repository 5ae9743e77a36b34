/**
 * Test support for the controller tests: an embedded cluster with one Agent Sandbox release
 * installed, and a stand-in kubelet (there is no node agent here yet) that binds Pods, reports
 * them Running/Ready or terminal, and confirms graceful deletions; and the golden test pairs,
 * kwok-style: testdata/<family>/<case>.input.yaml describes what happens (its leading comment
 * says which upstream behaviour it follows); <case>.golden.yaml holds what the simulation
 * produced from it. Regenerate with UPDATE_GOLDEN=1 and review the diff.
 */
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { EmbeddedCluster } from '../cluster.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';
import type { KubeObject } from '../types.ts';
import type { Condition } from './conditions.ts';
import { installAgentSandbox, type AgentSandboxInstallation } from './install.ts';
import type { AgentSandboxVersion } from './profiles.ts';
import type { RealismOptions } from './realism.ts';

export const NAMESPACE = 'default';
export const POD_IP = '127.2.0.9';

export function podTemplate(): Record<string, unknown> {
  return {
    metadata: { labels: { app: 'agent' } },
    spec: { containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 8080 }] }] },
  };
}

export const dataClaim = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };

/** A condition without lastTransitionTime, the way the upstream e2e predicates compare them. */
export type Seen = Omit<Condition, 'lastTransitionTime'>;

export class SandboxWorld {
  private constructor(
    readonly cluster: EmbeddedCluster,
    readonly installation: AgentSandboxInstallation,
    readonly version: AgentSandboxVersion,
  ) {}

  static async start(version: AgentSandboxVersion, realism?: RealismOptions): Promise<SandboxWorld> {
    const cluster = await EmbeddedCluster.start();
    try {
      return new SandboxWorld(cluster, await installAgentSandbox(cluster, version, { realism }), version);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    this.installation.stop();
    await this.cluster.stop();
  }

  get api(): ObjectApi {
    return this.cluster.api;
  }

  sandboxes(apiVersion: 'v1alpha1' | 'v1beta1' = this.version === 'v0.4.6' ? 'v1alpha1' : 'v1beta1'): Target {
    return this.api.target(`agents.x-k8s.io/${apiVersion}`, 'sandboxes', NAMESPACE);
  }

  target(plural: 'pods' | 'services' | 'persistentvolumeclaims'): Target {
    return this.api.target('v1', plural, NAMESPACE);
  }

  createSandbox(name: string, spec: Record<string, unknown> = {}, apiVersion?: 'v1alpha1' | 'v1beta1'): KubeObject {
    return this.api.create(this.sandboxes(apiVersion), { metadata: { name }, spec: { podTemplate: podTemplate(), ...spec } }).object;
  }

  sandbox(name: string, apiVersion?: 'v1alpha1' | 'v1beta1'): KubeObject {
    return this.api.get(this.sandboxes(apiVersion), name);
  }

  patchSpec(name: string, spec: Record<string, unknown>, apiVersion?: 'v1alpha1' | 'v1beta1'): KubeObject {
    return this.api.patch(this.sandboxes(apiVersion), name, 'merge', { spec }).object;
  }

  /** Suspends the way each release documents: replicas 0 (v1alpha1) or operatingMode Suspended (v1beta1). */
  suspend(name: string, via: 'v1alpha1' | 'v1beta1' = this.version === 'v0.4.6' ? 'v1alpha1' : 'v1beta1'): KubeObject {
    return this.patchSpec(name, via === 'v1alpha1' ? { replicas: 0 } : { operatingMode: 'Suspended' }, via);
  }

  resume(name: string, via: 'v1alpha1' | 'v1beta1' = this.version === 'v0.4.6' ? 'v1alpha1' : 'v1beta1'): KubeObject {
    return this.patchSpec(name, via === 'v1alpha1' ? { replicas: 1 } : { operatingMode: 'Running' }, via);
  }

  /** Conditions as the e2e predicates see them (no lastTransitionTime). */
  conditions(name: string): Seen[] {
    const status = (this.sandbox(name).status ?? {}) as { conditions?: Condition[] };
    return (status.conditions ?? []).map(({ lastTransitionTime: _t, ...rest }) => rest);
  }

  status(name: string): Record<string, unknown> {
    return (this.sandbox(name).status ?? {}) as Record<string, unknown>;
  }

  get(plural: 'pods' | 'services' | 'persistentvolumeclaims', name: string): KubeObject | undefined {
    return this.api.store.get(plural, NAMESPACE, name);
  }

  /** Waits for a live (not terminating) Pod `name` other than `notUid`. */
  async livePod(name: string, notUid?: string): Promise<KubeObject> {
    await expect.poll(() => {
      const pod = this.get('pods', name);
      return !!pod && !pod.metadata.deletionTimestamp && pod.metadata.uid !== notUid;
    }).toBe(true);
    return this.get('pods', name)!;
  }

  // ---- the stand-in kubelet ----

  /** Schedules the Pod: from now on its deletion is graceful and needs finalize(). */
  bind(name: string): KubeObject {
    return this.api.bind(this.target('pods'), name, 'node-1');
  }

  /** Reports the Pod Running and Ready with an IP; `bind` first makes later deletions graceful. */
  run(name: string, options: { bind?: boolean } = {}): KubeObject {
    if (options.bind) this.bind(name);
    return this.setPodStatus(name, { phase: 'Running', podIP: POD_IP, podIPs: [{ ip: POD_IP }], conditions: [{ type: 'Ready', status: 'True' }] });
  }

  /** The containers exited: Succeeded or Failed. */
  finish(name: string, phase: 'Succeeded' | 'Failed'): KubeObject {
    return this.setPodStatus(name, { phase, podIP: POD_IP, podIPs: [{ ip: POD_IP }], conditions: [{ type: 'Ready', status: 'False' }] });
  }

  setPodStatus(name: string, status: Record<string, unknown>): KubeObject {
    const pod = this.api.get(this.target('pods'), name);
    return this.api.update(this.target('pods'), name, { ...pod, status }, { subresource: 'status' }).object;
  }

  /** The kubelet confirming a graceful deletion: the Pod object goes. */
  finalize(name: string): void {
    const pod = this.get('pods', name);
    if (!pod) throw new Error(`pod ${name} is not there to finalize`);
    expect(this.api.finalizeGracefulDeletion(this.target('pods'), name, pod.metadata.uid!)).toBe(true);
  }

  /** Deletes the Sandbox with the default propagation, as `kubectl delete sandbox` would. */
  deleteSandbox(name: string): void {
    this.api.delete(this.sandboxes(), name);
  }
}

/** The Ready condition a v0.x controller writes for a running sandbox with a Ready Pod. */
export function readyTrue(generation: number, message = 'Pod is Ready'): Seen {
  return { type: 'Ready', status: 'True', observedGeneration: generation, reason: 'DependenciesReady', message };
}

/** `test` with a `world` fixture: a fresh cluster with `version` installed (realism on unless given), stopped after the test. */
export function sandboxTest(version: AgentSandboxVersion, realism?: RealismOptions) {
  return test.extend<{ world: SandboxWorld }>({
    // eslint-disable-next-line no-empty-pattern
    world: async ({}, use) => {
      const world = await SandboxWorld.start(version, realism);
      try {
        await use(world);
      } finally {
        await world.stop();
      }
    },
  });
}

// ---- golden test pairs ----------------------------------------------------------------------

export function goldenDir(family: string): URL {
  return new URL(`./testdata/${family}/`, import.meta.url);
}

/** The case names of a family: every <case>.input.yaml. */
export function goldenCases(family: string): string[] {
  return readdirSync(goldenDir(family))
    .filter((f) => f.endsWith('.input.yaml'))
    .map((f) => f.replace(/\.input\.yaml$/, ''))
    .sort();
}

export function readGoldenInput<T>(family: string, name: string): T {
  return parse(readFileSync(new URL(`${name}.input.yaml`, goldenDir(family)), 'utf8')) as T;
}

/** Compares `actual` with <case>.golden.yaml (written instead under UPDATE_GOLDEN=1). */
export function expectGolden(family: string, name: string, actual: unknown): void {
  const file = new URL(`${name}.golden.yaml`, goldenDir(family));
  if (process.env.UPDATE_GOLDEN) writeFileSync(file, stringify(actual, { lineWidth: 0 }));
  expect(actual).toEqual(parse(readFileSync(file, 'utf8')));
}
