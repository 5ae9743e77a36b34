/**
 * The fault policy (deny deleting one Secret) made and met with @kubernetes/client-node's typed
 * AdmissionregistrationV1Api and CoreV1Api, the way a harness would on any cluster.
 */
import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { EmbeddedCluster } from '../cluster.ts';

let cluster: EmbeddedCluster;
test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start();
});
test.afterAll(async () => {
  await cluster?.stop();
});

test('a typed client creates the policy and binding, meets the 403 on delete, and deletes once the binding is gone', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'generation-1' }, stringData: { k: 'v' } } });

  const policy = await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: 'deny-generation-1' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['secrets'] }] },
        matchConditions: [{ name: 'the-one-secret', expression: 'oldObject.metadata.namespace == "default" && oldObject.metadata.name == "generation-1"' }],
        validations: [{ expression: 'false', reason: 'Forbidden', message: 'conformance fault' }],
      },
    },
  });
  expect(policy.spec?.matchConstraints?.matchPolicy).toBe('Equivalent');
  await admission.createValidatingAdmissionPolicyBinding({ body: { metadata: { name: 'deny-generation-1' }, spec: { policyName: 'deny-generation-1', validationActions: ['Deny'] } } });

  let refused: k8s.ApiException<unknown> | undefined;
  try {
    await core.deleteNamespacedSecret({ name: 'generation-1', namespace: 'default' });
  } catch (error) {
    refused = error as k8s.ApiException<unknown>;
  }
  expect(refused).toBeInstanceOf(k8s.ApiException);
  expect(refused!.code).toBe(403);
  const status = JSON.parse(refused!.body as string) as { reason: string; message: string };
  expect(status).toMatchObject({
    reason: 'Forbidden',
    message: `secrets "generation-1" is forbidden: ValidatingAdmissionPolicy 'deny-generation-1' with binding 'deny-generation-1' denied request: conformance fault`,
  });

  await admission.deleteValidatingAdmissionPolicyBinding({ name: 'deny-generation-1' });
  await admission.deleteValidatingAdmissionPolicy({ name: 'deny-generation-1' });
  await core.deleteNamespacedSecret({ name: 'generation-1', namespace: 'default' });
});
