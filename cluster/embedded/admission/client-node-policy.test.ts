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

test('request.userInfo is the authenticated user: a policy scoped to a ServiceAccount refuses it, and only it', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  const admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'driver' } } });
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'delete'] }] } });
  await rbac.createNamespacedRoleBinding({ namespace: 'default', body: { metadata: { name: 'cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ kind: 'ServiceAccount', name: 'driver', namespace: 'default' }] } });
  const driver = new k8s.KubeConfig();
  driver.loadFromString(cluster.kubeconfigForServiceAccount('default', 'driver'));
  const asDriver = driver.makeApiClient(k8s.CoreV1Api);

  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: 'driver-only' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'DELETE'], resources: ['configmaps'] }] },
        matchConditions: [{ name: 'the-driver', expression: 'request.userInfo.username == "system:serviceaccount:default:driver"' }],
        validations: [{ expression: 'false', reason: 'Forbidden', messageExpression: '"refused for " + request.userInfo.username + " in " + request.userInfo.groups.join(",")' }],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({ body: { metadata: { name: 'driver-only' }, spec: { policyName: 'driver-only', validationActions: ['Deny'] } } });
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'by-admin' } } });
  const refused = await asDriver.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'by-driver' } } }).catch((e: k8s.ApiException<string>) => e);
  expect((refused as k8s.ApiException<string>).code).toBe(403);
  expect(JSON.parse((refused as k8s.ApiException<string>).body).message).toBe(
    "configmaps \"by-driver\" is forbidden: ValidatingAdmissionPolicy 'driver-only' with binding 'driver-only' denied request: refused for system:serviceaccount:default:driver in system:serviceaccounts,system:serviceaccounts:default,system:authenticated",
  );
  const deleteRefused = await asDriver.deleteNamespacedConfigMap({ namespace: 'default', name: 'by-admin' }).catch((e: k8s.ApiException<string>) => e);
  expect((deleteRefused as k8s.ApiException<string>).code).toBe(403);
  await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'by-admin' });
  await admission.deleteValidatingAdmissionPolicyBinding({ name: 'driver-only' });
  await admission.deleteValidatingAdmissionPolicy({ name: 'driver-only' });
});
