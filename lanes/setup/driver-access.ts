import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceAccountKubeconfig } from '../../cluster/service-account-kubeconfig.ts';
import type { DriverRbac, PolicyRule } from '../driver-rbac.ts';

/** The identity the harness runs its driver with: a ServiceAccount's kubeconfig, as JSON (it crosses into the Playwright workers). */
export interface DriverAccess {
  /** A kubeconfig acting as the ServiceAccount (a TokenRequest token), mode 0600. */
  kubeconfigPath: string;
  /** `system:serviceaccount:<namespace>:<name>`: what RBAC and admission see. */
  username: string;
  serviceAccount: { namespace: string; name: string };
  /** Shared mode: the namespace of the Role (the sandbox namespace). */
  roleNamespace?: string;
  /** The Role, ClusterRole and both bindings share the ServiceAccount's name. */
  rbac: DriverRbac;
}

/** How long RBAC may take to apply a new grant (informer-fed authorizers on a real cluster). */
const GRANT_DEADLINE_MS = 30_000;
const LABELS = { 'app.kubernetes.io/managed-by': 'sandbox-conformance' };
const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A name for a driver identity: DNS-1123, unique per call, recognisable. */
export function driverIdentityName(purpose: string): string {
  return `sc-driver-${purpose}-${randomBytes(2).toString('hex')}`.slice(0, 63);
}

function admin(kubeconfigPath: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

const conflictIsFine = (error: unknown) => {
  if ((error as { code?: number }).code !== 409) throw error;
};
const notFoundIsFine = (error: unknown) => {
  if ((error as { code?: number }).code !== 404) throw error;
};

/**
 * Creates the ServiceAccount `name` in `namespace` (and the namespace, when missing), a Role in
 * `roleNamespace` and a ClusterRole with `rbac`'s rules, bound to it, and writes a kubeconfig
 * acting as it into `dir` (through TokenRequest, so on any cluster). Returns once RBAC grants
 * the ServiceAccount its first rule.
 */
export async function grantDriverAccess(
  adminKubeconfigPath: string,
  grant: { name: string; namespace: string; roleNamespace?: string; rbac: DriverRbac; dir: string },
): Promise<DriverAccess> {
  const { name, namespace, roleNamespace, rbac } = grant;
  if (rbac.role.length && !roleNamespace) throw new Error(`driver identity ${name}: Role rules need the namespace to grant them in`);
  const kc = admin(adminKubeconfigPath);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const rbacApi = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const metadata = { name, labels: LABELS };
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  for (const ns of new Set([namespace, ...(roleNamespace ? [roleNamespace] : [])])) await core.createNamespace({ body: { metadata: { name: ns } } }).catch(conflictIsFine);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata, automountServiceAccountToken: false } }).catch(conflictIsFine);
  if (rbac.role.length && roleNamespace) {
    await writeRole(rbacApi, roleNamespace, name, rbac.role);
    await rbacApi.createNamespacedRoleBinding({ namespace: roleNamespace, body: { metadata, roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name }, subjects } }).catch(conflictIsFine);
  }
  if (rbac.clusterRole.length) {
    await writeClusterRole(rbacApi, name, rbac.clusterRole);
    await rbacApi.createClusterRoleBinding({ body: { metadata, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name }, subjects } }).catch(conflictIsFine);
  }
  const kubeconfigPath = join(grant.dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfigPath, await serviceAccountKubeconfig(readFileSync(adminKubeconfigPath, 'utf8'), namespace, name), { mode: 0o600 });
  const access: DriverAccess = { kubeconfigPath, username: `system:serviceaccount:${namespace}:${name}`, serviceAccount: { namespace, name }, roleNamespace, rbac };
  const [first] = rbac.role.length ? rbac.role : rbac.clusterRole;
  if (first) await untilAllowed(access, { group: first.apiGroups[0], resource: first.resources[0], verb: first.verbs[0], namespace: roleNamespace ?? namespace }, true);
  return access;
}

/** Replaces the identity's Role and ClusterRole rules (e.g. a permission restored); returns once RBAC shows `check` as `allowed`. */
export async function regrantDriverAccess(
  adminKubeconfigPath: string,
  access: DriverAccess,
  rbac: DriverRbac,
  check: { group: string; resource: string; verb: string; namespace: string; allowed: boolean },
): Promise<DriverAccess> {
  const rbacApi = admin(adminKubeconfigPath).makeApiClient(k8s.RbacAuthorizationV1Api);
  const { name } = access.serviceAccount;
  if (access.roleNamespace && rbac.role.length) await writeRole(rbacApi, access.roleNamespace, name, rbac.role);
  if (rbac.clusterRole.length) await writeClusterRole(rbacApi, name, rbac.clusterRole);
  await untilAllowed(access, check, check.allowed);
  return { ...access, rbac };
}

/** Removes what grantDriverAccess created (the namespaces stay: the sandboxes' namespace is not the identity's to delete). */
export async function revokeDriverAccess(adminKubeconfigPath: string, access: DriverAccess): Promise<void> {
  const kc = admin(adminKubeconfigPath);
  const rbacApi = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const { name, namespace } = access.serviceAccount;
  await rbacApi.deleteClusterRoleBinding({ name }).catch(notFoundIsFine);
  await rbacApi.deleteClusterRole({ name }).catch(notFoundIsFine);
  if (access.roleNamespace) {
    await rbacApi.deleteNamespacedRoleBinding({ namespace: access.roleNamespace, name }).catch(notFoundIsFine);
    await rbacApi.deleteNamespacedRole({ namespace: access.roleNamespace, name }).catch(notFoundIsFine);
  }
  await kc.makeApiClient(k8s.CoreV1Api).deleteNamespacedServiceAccount({ namespace, name }).catch(notFoundIsFine);
}

async function writeRole(api: k8s.RbacAuthorizationV1Api, namespace: string, name: string, rules: PolicyRule[]): Promise<void> {
  const body = { metadata: { name, labels: LABELS }, rules };
  await api.createNamespacedRole({ namespace, body }).catch(async (error: unknown) => {
    conflictIsFine(error);
    await api.replaceNamespacedRole({ namespace, name, body });
  });
}

async function writeClusterRole(api: k8s.RbacAuthorizationV1Api, name: string, rules: PolicyRule[]): Promise<void> {
  const body = { metadata: { name, labels: LABELS }, rules };
  await api.createClusterRole({ body }).catch(async (error: unknown) => {
    conflictIsFine(error);
    await api.replaceClusterRole({ name, body });
  });
}

/** Asks the API server, as the identity (SelfSubjectAccessReview), until it answers `allowed` for the check. */
async function untilAllowed(access: DriverAccess, check: { group: string; resource: string; verb: string; namespace: string }, allowed: boolean): Promise<void> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(access.kubeconfigPath);
  const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
  const [resource, subresource] = check.resource.split('/');
  const deadline = Date.now() + GRANT_DEADLINE_MS;
  for (;;) {
    const review = await authz.createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { group: check.group, resource, subresource, verb: check.verb, namespace: check.namespace } } },
    });
    if (!!review.status?.allowed === allowed) return;
    if (Date.now() > deadline) {
      throw new Error(`${access.username}: RBAC still ${allowed ? 'refuses' : 'allows'} ${check.verb} ${check.resource} in ${check.namespace} ${GRANT_DEADLINE_MS / 1000} s after the grant was written (${review.status?.reason ?? 'no reason given'})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
