import { expect, test } from '@playwright/test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { EmbeddedCluster } from './embedded/cluster.ts';
import { serviceAccountKubeconfig } from './service-account-kubeconfig.ts';

/**
 * A ServiceAccount kubeconfig made through the public TokenRequest API (as on kind), used with
 * @kubernetes/client-node: it authenticates as the ServiceAccount and RBAC applies to it.
 */

let cluster: EmbeddedCluster;
test.beforeAll(async () => {
  cluster = await EmbeddedCluster.start();
});
test.afterAll(async () => cluster?.stop());

function client(kubeconfig: string): CoreV1Api {
  const config = new KubeConfig();
  config.loadFromString(kubeconfig);
  return config.makeApiClient(CoreV1Api);
}

test('the token acts as the ServiceAccount: allowed where a Role grants, 403 elsewhere', async () => {
  const admin = client(cluster.kubeconfig());
  await admin.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'lister' } } });
  const rbac = cluster.api.target('rbac.authorization.k8s.io/v1', 'roles', 'default');
  cluster.api.create(rbac, { metadata: { name: 'cm-list' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
  cluster.api.create(cluster.api.target('rbac.authorization.k8s.io/v1', 'rolebindings', 'default'), {
    metadata: { name: 'cm-list' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-list' },
    subjects: [{ kind: 'ServiceAccount', name: 'lister', namespace: 'default' }],
  });
  const kubeconfig = await serviceAccountKubeconfig(cluster.kubeconfig(), 'default', 'lister', { expirationSeconds: 3600 });
  expect(kubeconfig).toContain('system:serviceaccount:default:lister');
  const sa = client(kubeconfig);
  expect((await sa.listNamespacedConfigMap({ namespace: 'default' })).kind).toBe('ConfigMapList');
  const denied = await sa.listNamespacedSecret({ namespace: 'default' }).catch((e: { code?: number; body?: string }) => e);
  expect((denied as { code?: number }).code).toBe(403);
  expect(JSON.parse((denied as { body: string }).body).message).toBe(
    'secrets is forbidden: User "system:serviceaccount:default:lister" cannot list resource "secrets" in API group "" in the namespace "default"',
  );
});

test('a missing ServiceAccount: the TokenRequest is 404', async () => {
  const failure = await serviceAccountKubeconfig(cluster.kubeconfig(), 'default', 'nobody').catch((e: { code?: number }) => e);
  expect((failure as { code?: number }).code).toBe(404);
});
