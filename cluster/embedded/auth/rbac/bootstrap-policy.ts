import type { PolicyRule } from './policy-rules.ts';

/**
 * The default roles and bindings every cluster starts with (kube-apiserver's bootstrap policy),
 * the part of it this cluster needs: cluster-admin for system:masters, and what any authenticated
 * user may do — read discovery, health and OpenAPI (system:discovery, system:public-info-viewer)
 * and ask what it may do itself (system:basic-user). Written as data; names and rules are the
 * upstream ones, the set is smaller (no admin/edit/view).
 */
interface BootstrapRole {
  name: string;
  rules: PolicyRule[];
  subjects: { kind: 'Group'; name: string }[];
}

const DISCOVERY_PATHS = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'];

const ROLES: BootstrapRole[] = [
  {
    name: 'cluster-admin',
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
    subjects: [{ kind: 'Group', name: 'system:masters' }],
  },
  { name: 'system:discovery', rules: [{ nonResourceURLs: DISCOVERY_PATHS, verbs: ['get'] }], subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
  {
    name: 'system:public-info-viewer',
    rules: [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
    subjects: [
      { kind: 'Group', name: 'system:authenticated' },
      { kind: 'Group', name: 'system:unauthenticated' },
    ],
  },
  {
    name: 'system:basic-user',
    rules: [
      { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
    subjects: [{ kind: 'Group', name: 'system:authenticated' }],
  },
];

const METADATA = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };

export function bootstrapClusterRoles(): Record<string, unknown>[] {
  return ROLES.map((r) => ({ metadata: { name: r.name, ...METADATA }, rules: r.rules }));
}

export function bootstrapClusterRoleBindings(): Record<string, unknown>[] {
  return ROLES.map((r) => ({
    metadata: { name: r.name, ...METADATA },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: r.name },
    subjects: r.subjects.map((s) => ({ apiGroup: 'rbac.authorization.k8s.io', ...s })),
  }));
}
