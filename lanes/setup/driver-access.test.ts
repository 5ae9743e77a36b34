import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { DRIVER_RBAC, withoutPermission } from '../driver-rbac.ts';
import { grantDriverAccess, regrantDriverAccess, revokeDriverAccess } from './driver-access.ts';

/**
 * The driver's identity on a real API server (the embedded one, which enforces RBAC as
 * kube-apiserver does): granted through the public API (TokenRequest, Roles, bindings), it may
 * do what its rules say and nothing else; a regrant changes that; revoking leaves nothing.
 */

let cluster: EmbeddedCluster;
let dir: string;
let adminPath: string;
test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'driver-access-test-'));
  adminPath = join(dir, 'admin.kubeconfig');
  cluster = await EmbeddedCluster.start({ kubeconfigPath: adminPath });
});
test.afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function as(path: string): k8s.CoreV1Api {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(path);
  return kc.makeApiClient(k8s.CoreV1Api);
}

const outcome = (call: Promise<unknown>) => call.then(() => 'ok', (e: { code?: number; body?: string }) => `${e.code} ${JSON.parse(e.body ?? '{}').message}`);

test('shared mode: the Role in the sandbox namespace and reading namespaces, nothing more; a regrant and a revoke', async () => {
  const access = await grantDriverAccess(adminPath, { name: 'drv-shared', namespace: 'openshell', roleNamespace: 'openshell', rbac: withoutPermission(DRIVER_RBAC.shared, { group: '', resource: 'secrets', verb: 'delete' }), dir });
  expect(access.username).toBe('system:serviceaccount:openshell:drv-shared');
  expect(statSync(access.kubeconfigPath).mode & 0o777).toBe(0o600);
  const driver = as(access.kubeconfigPath);
  await as(adminPath).createNamespacedSecret({ namespace: 'openshell', body: { metadata: { name: 'gen' } } });

  expect(await outcome(driver.createNamespacedSecret({ namespace: 'openshell', body: { metadata: { name: 'mine' } } }))).toBe('ok');
  expect(await outcome(driver.readNamespace({ name: 'openshell' }))).toBe('ok');
  expect(await outcome(driver.deleteNamespacedSecret({ namespace: 'openshell', name: 'gen' }))).toBe(
    '403 secrets "gen" is forbidden: User "system:serviceaccount:openshell:drv-shared" cannot delete resource "secrets" in API group "" in the namespace "openshell"',
  );
  expect(await outcome(driver.listNamespacedSecret({ namespace: 'openshell' }))).toContain('403 secrets is forbidden');
  expect(await outcome(driver.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'elsewhere' } } }))).toContain('403');

  await regrantDriverAccess(adminPath, access, DRIVER_RBAC.shared, { group: '', resource: 'secrets', verb: 'delete', namespace: 'openshell', allowed: true });
  expect(await outcome(driver.deleteNamespacedSecret({ namespace: 'openshell', name: 'gen' }))).toBe('ok');

  await revokeDriverAccess(adminPath, access);
  const rbac = (() => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(adminPath);
    return kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  })();
  expect((await rbac.listClusterRole({ labelSelector: 'app.kubernetes.io/managed-by=sandbox-conformance' })).items).toEqual([]);
  expect((await rbac.listNamespacedRole({ namespace: 'openshell' })).items).toEqual([]);
  // The token belonged to a ServiceAccount that is gone: 401.
  expect(await outcome(driver.readNamespace({ name: 'openshell' }))).toMatch(/^401 /);
  expect(existsSync(access.kubeconfigPath)).toBe(true); // the caller's file to remove
});

test('managed mode: a ClusterRole, so any namespace; Role rules without a namespace are refused before anything is written', async () => {
  const access = await grantDriverAccess(adminPath, { name: 'drv-managed', namespace: 'openshell', rbac: DRIVER_RBAC.managed, dir });
  const driver = as(access.kubeconfigPath);
  expect(await outcome(driver.createNamespace({ body: { metadata: { name: 'openshell-gw-w1' } } }))).toBe('ok');
  expect(await outcome(driver.createNamespacedServiceAccount({ namespace: 'openshell-gw-w1', body: { metadata: { name: 'openshell-sandbox' } } }))).toBe('ok');
  expect(await outcome(driver.deleteNamespace({ name: 'openshell-gw-w1' }))).toContain('403');
  await revokeDriverAccess(adminPath, access);

  await expect(grantDriverAccess(adminPath, { name: 'drv-bad', namespace: 'openshell', rbac: DRIVER_RBAC.shared, dir })).rejects.toThrow('driver identity drv-bad: Role rules need the namespace to grant them in');
  expect(await outcome(as(adminPath).readNamespacedServiceAccount({ namespace: 'openshell', name: 'drv-bad' }))).toMatch(/^404 /);
});
