import { expect, type Cluster, type SandboxObjects } from '../../fixtures/conformance.ts';

/** What a sandbox owns, as `[apiVersion, kind, name]`: its Sandbox, both Pods, the workspace PVC and the generation Secrets. */
export function ownedObjects(objects: SandboxObjects, sandboxApiVersion: string): [string, string, string][] {
  return [
    [sandboxApiVersion, 'Sandbox', objects.sandbox!],
    ['v1', 'Pod', objects.workloadPod!],
    ['v1', 'Pod', objects.supervisorPod!],
    ['v1', 'PersistentVolumeClaim', `workspace-${objects.sandbox}`],
    ...objects.secrets.map((name): [string, string, string] => ['v1', 'Secret', name]),
  ];
}

/** Waits (60 s each) until every one of them is gone from the namespace, naming the first that stays. */
export async function expectAllGone(cluster: Cluster, namespace: string, owned: [string, string, string][]): Promise<void> {
  for (const [apiVersion, kind, name] of owned) {
    await expect.poll(async () => (await cluster.get(apiVersion, kind, namespace, name)) === undefined, { message: `${kind} ${namespace}/${name} should be gone`, timeout: 60_000 }).toBe(true);
  }
}
