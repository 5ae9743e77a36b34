import type { WorkspaceMode } from '../driver/compute-driver.ts';

/** One RBAC rule, as a Role or ClusterRole lists it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/**
 * What the driver under test may do, per workspace mode: the lane gives it a ServiceAccount with
 * exactly these rules and nothing else (the harness's recorder and evidence keep the
 * administrator's kubeconfig). Written from what the reference driver calls (driver/kubernetes);
 * compared with OpenShell's Helm chart in driver-rbac.test.ts, the differences and their reasons
 * in README.md ("The driver's permissions").
 */
export interface DriverRbac {
  /** Rules of a Role in the sandbox namespace (shared mode; empty otherwise). */
  role: PolicyRule[];
  /** Rules of a ClusterRole, bound cluster-wide. */
  clusterRole: PolicyRule[];
}

const AGENTS = 'agents.x-k8s.io';

/** The Sandbox resource: created, read, listed and watched by id label, transitions as merge patches, deleted. */
const SANDBOXES: PolicyRule = { apiGroups: [AGENTS], resources: ['sandboxes'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'] };

/**
 * What lives in a sandbox's namespace: the supervisor Pod (created, its scheduling gate removed
 * by JSON patch, deleted with a UID precondition) and the workload Pod (gate removed; a start
 * deletes a stale one), both read by name and their changes followed through one watch of the
 * namespace's Pods shared by every wait (watch, never list); the boundary Service; the
 * generation Secrets (created, deleted by exact name: never listed).
 */
const SANDBOX_OBJECTS: PolicyRule[] = [
  { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get', 'patch', 'watch'] },
  { apiGroups: [''], resources: ['services'], verbs: ['create', 'get'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
];

export const DRIVER_RBAC: Record<WorkspaceMode, DriverRbac> = {
  // Everything in the one sandbox namespace; cluster-wide only the look at that namespace.
  shared: {
    role: [SANDBOXES, ...SANDBOX_OBJECTS],
    clusterRole: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
  },
  // A namespace per workspace, created by the driver with its sandbox ServiceAccount.
  managed: {
    role: [],
    clusterRole: [
      SANDBOXES,
      ...SANDBOX_OBJECTS,
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'get'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create', 'get'] },
    ],
  },
  // Namespaces an operator labelled: read to check the label, never created.
  operator: {
    role: [],
    clusterRole: [SANDBOXES, ...SANDBOX_OBJECTS, { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
  },
};

/** `rbac` without `verb` on `resource` (of `group`), in the Role and the ClusterRole: a permission a scenario withholds. */
export function withoutPermission(rbac: DriverRbac, withheld: { group: string; resource: string; verb: string }): DriverRbac {
  const strip = (rules: PolicyRule[]): PolicyRule[] =>
    rules.flatMap((rule) => {
      if (!rule.apiGroups.includes(withheld.group) || !rule.resources.includes(withheld.resource)) return [rule];
      const others = rule.resources.filter((r) => r !== withheld.resource);
      const verbs = rule.verbs.filter((v) => v !== withheld.verb);
      return [...(others.length ? [{ ...rule, resources: others }] : []), ...(verbs.length ? [{ ...rule, resources: [withheld.resource], verbs }] : [])];
    });
  return { role: strip(rbac.role), clusterRole: strip(rbac.clusterRole) };
}
