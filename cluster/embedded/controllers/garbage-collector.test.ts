import { expect, test } from '@playwright/test';
import { EmbeddedCluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import type { ObjectApi, Target } from '../registry/object-api.ts';

/**
 * The garbage collector as kube-controller-manager runs it, where a dependent's deletion is
 * refused (here by a ValidatingAdmissionPolicy, as the harness's faults refuse it): each
 * dependent is deleted on its own, so a refused one holds a foreground owner only if it blocks
 * it, and is retried until it may go.
 */

let cluster: EmbeddedCluster;
test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start();
});
test.afterAll(async () => cluster?.stop());

function exists(api: ObjectApi, target: Target, name: string): boolean {
  try {
    api.get(target, name);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return false;
    throw error;
  }
}

test('Foreground: a dependent whose deletion is refused holds the owner only if it blocks it; it goes once allowed', async () => {
  const api = cluster.api;
  const configMaps = api.target('v1', 'configmaps', 'default');
  const secrets = api.target('v1', 'secrets', 'default');
  const owner = api.create(configMaps, { metadata: { name: 'fg-owner' } }).object;
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name!, uid: owner.metadata.uid! };
  api.create(secrets, { metadata: { name: 'kept-by-policy', ownerReferences: [ref] } });
  const gv = 'admissionregistration.k8s.io/v1';
  api.create(api.target(gv, 'validatingadmissionpolicies'), {
    metadata: { name: 'keep-secret' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['secrets'] }] },
      matchConditions: [{ name: 'that-one', expression: 'oldObject.metadata.name == "kept-by-policy"' }],
      validations: [{ expression: 'false', reason: 'Forbidden', message: 'denied' }],
    },
  });
  api.create(api.target(gv, 'validatingadmissionpolicybindings'), { metadata: { name: 'keep-secret' }, spec: { policyName: 'keep-secret', validationActions: ['Deny'] } });

  api.delete(configMaps, 'fg-owner', { propagationPolicy: 'Foreground' });
  await expect.poll(() => exists(api, configMaps, 'fg-owner'), { message: 'a refused non-blocking dependent does not hold the owner' }).toBe(false);
  expect(exists(api, secrets, 'kept-by-policy')).toBe(true);

  api.delete(api.target(gv, 'validatingadmissionpolicybindings'), 'keep-secret');
  await expect.poll(() => exists(api, secrets, 'kept-by-policy'), { message: 'the collector retries the orphan once allowed' }).toBe(false);
});
