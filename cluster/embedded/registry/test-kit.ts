/**
 * Test helpers of the object API's tests: a `test` with a fresh embedded cluster and its object
 * API per test, the targets they write to, a Pod body, and what a watch delivered.
 */
import { test as base } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import type { WatchEventType } from '../store/object-store.ts';
import type { KubeObject } from '../types.ts';
import type { ObjectApi, Target } from './object-api.ts';

/** A fresh cluster per test; `api` is its object API. */
export const test = base.extend<{ cluster: EmbeddedCluster; api: ObjectApi }>({
  // eslint-disable-next-line no-empty-pattern
  cluster: async ({}, use) => {
    const cluster = await EmbeddedCluster.start();
    await use(cluster);
    await cluster.stop();
  },
  api: async ({ cluster }, use) => {
    await use(cluster.api);
  },
});

/** Whether the object is there (a 404 is no). */
export function exists(api: ObjectApi, target: Target, name: string): boolean {
  try {
    api.get(target, name);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return false;
    throw error;
  }
}

/** Records what a watch delivers: type, name and resourceVersion of each event. */
export function record(api: ObjectApi, target: Target, options: Parameters<ObjectApi['watch']>[1] = {}) {
  const events: { type: WatchEventType; name: string; rv: string; object: KubeObject }[] = [];
  const stop = api.watch(target, options, (type, object) =>
    events.push({ type, name: object.metadata.name!, rv: object.metadata.resourceVersion!, object }),
  );
  return { events, stop, seen: () => events.map((e) => `${e.type} ${e.name}`) };
}

/** A Pod with one long-sleeping container `main`, and `spec` over it. */
export const podBody = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...spec },
});

/** The targets the tests write to, in `namespace`. */
export function targets(api: ObjectApi, namespace = 'default') {
  return {
    pods: api.target('v1', 'pods', namespace),
    configMaps: api.target('v1', 'configmaps', namespace),
    secrets: api.target('v1', 'secrets', namespace),
    services: api.target('v1', 'services', namespace),
    deployments: api.target('apps/v1', 'deployments', namespace),
    namespaces: api.target('v1', 'namespaces'),
  };
}
