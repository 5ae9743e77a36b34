/**
 * Installs a simulated Agent Sandbox release into an embedded cluster, as `kubectl apply -f
 * manifest.yaml` plus the controller Deployment would: the namespace and the Sandbox CRD
 * (create-or-update), then, once the CRD is served, the controller.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from '../errors.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { KubeObject } from '../types.ts';
import { AgentSandboxController, type AgentSandboxControllerOptions } from './agent-sandbox-controller.ts';
import { sandboxCrd, systemNamespace } from './sandbox-crds.ts';
import { CRDS_KEY } from './agent-sandbox-names.ts';
import { AGENT_SANDBOX_VERSIONS, agentSandboxProfile, type AgentSandboxVersion } from './profiles.ts';

export { AGENT_SANDBOX_VERSIONS, type AgentSandboxVersion };

export interface AgentSandboxInstallation {
  controller: AgentSandboxController;
  stop(): void;
}

export interface InstallOptions extends AgentSandboxControllerOptions {
  /** How long to wait for the CRD to become Established. */
  timeoutMs?: number;
}

/** Create, or replace the spec of an existing object (apply without field ownership). */
export function createOrUpdate(api: ObjectApi, apiVersion: string, plural: string, object: KubeObject): KubeObject {
  const target = api.target(apiVersion, plural, object.metadata.namespace);
  try {
    const current = api.get(target, object.metadata.name!);
    const merged = { ...current, ...object, metadata: { ...current.metadata, ...object.metadata, resourceVersion: current.metadata.resourceVersion } };
    return api.update(target, object.metadata.name!, merged).object;
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 404)) throw error;
    return api.create(target, object).object;
  }
}

/**
 * Waits until the CRD controller has Established the CRD and serves exactly its versions
 * (an update re-registers asynchronously while the old Established condition is still there).
 */
export async function waitForCrdEstablished(api: ObjectApi, name: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = api.store.get(CRDS_KEY, undefined, name);
    const spec = crd?.spec as { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] } | undefined;
    const conditions = ((crd?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []);
    const established = conditions.some((c) => c.type === 'Established' && c.status === 'True');
    const served = spec && api.registry.get(spec.group, spec.names.plural);
    const wanted = spec?.versions.filter((v) => v.served).map((v) => v.name).sort();
    const have = served?.versions.filter((v) => v.served).map((v) => v.name).sort();
    if (established && JSON.stringify(wanted) === JSON.stringify(have)) return;
    if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} did not become Established within ${timeoutMs} ms`);
    await sleep(5);
  }
}

export async function installAgentSandbox(
  cluster: { api: ObjectApi },
  version: AgentSandboxVersion,
  options: InstallOptions = {},
): Promise<AgentSandboxInstallation> {
  // Checked before anything is written, so a typo leaves the cluster untouched.
  const profile = agentSandboxProfile(version);
  const { api } = cluster;
  createOrUpdate(api, 'v1', 'namespaces', systemNamespace());
  const crd = createOrUpdate(api, 'apiextensions.k8s.io/v1', 'customresourcedefinitions', sandboxCrd(profile.version));
  await waitForCrdEstablished(api, crd.metadata.name!, options.timeoutMs);
  const controller = new AgentSandboxController(api, profile, { clusterDomain: options.clusterDomain, realism: options.realism });
  return { controller, stop: () => controller.stop() };
}
