import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import type { WorkspaceMode } from '../driver/compute-driver.ts';
import { DRIVER_RBAC, withoutPermission, type DriverRbac, type PolicyRule } from './driver-rbac.ts';

/**
 * The lanes' driver permissions against OpenShell's Helm chart (deploy/helm/openshell/templates,
 * as of #3363): the chart's rules as data here, the differences computed, and each of them
 * listed in docs/testing-your-driver.md with its reason — so neither side can change without the list following.
 */

const ALL = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const rule = (apiGroup: string, resources: string[], verbs: string[]): PolicyRule => ({ apiGroups: [apiGroup], resources, verbs });

/** Always, a ClusterRole: token reviews, nodes, and namespaces read. */
const CHART_CLUSTER: PolicyRule[] = [rule('authentication.k8s.io', ['tokenreviews'], ['create']), rule('', ['nodes'], ['get', 'list', 'watch'])];
const CHART_SANDBOXES: PolicyRule[] = [rule('agents.x-k8s.io', ['sandboxes', 'sandboxes/status'], ALL), rule('', ['events'], ['get', 'list', 'watch'])];
/** Managed and operator modes, newer chart versions. */
const CHART_WORKSPACES: PolicyRule[] = [
  ...CHART_SANDBOXES,
  rule('', ['pods'], ['create', 'delete', 'get', 'list', 'patch', 'watch']),
  rule('', ['services'], ['create', 'get']),
  rule('networking.k8s.io', ['networkpolicies'], ['create', 'get']),
  rule('node.k8s.io', ['runtimeclasses'], ['get']),
  rule('scheduling.k8s.io', ['priorityclasses'], ['get']),
  rule('', ['secrets'], ['create', 'list', 'delete']),
];

const CHART: Record<WorkspaceMode, DriverRbac> = {
  shared: {
    role: [...CHART_SANDBOXES, rule('', ['pods'], ['get']), rule('', ['secrets'], ['create', 'list', 'delete'])],
    clusterRole: [...CHART_CLUSTER, rule('', ['namespaces'], ['get'])],
  },
  managed: {
    role: [],
    clusterRole: [...CHART_CLUSTER, rule('', ['namespaces'], ['get', 'list', 'watch', 'create', 'delete']), ...CHART_WORKSPACES, rule('', ['serviceaccounts'], ['create', 'get'])],
  },
  operator: {
    role: [],
    clusterRole: [...CHART_CLUSTER, rule('', ['namespaces'], ['get', 'list', 'watch']), ...CHART_WORKSPACES],
  },
};

/** `resource.group verb` grants of a mode, Role and ClusterRole together (each mode binds its rules where its sandboxes live). */
function grants(rbac: DriverRbac): Set<string> {
  const out = new Set<string>();
  for (const r of [...rbac.role, ...rbac.clusterRole]) {
    for (const group of r.apiGroups) for (const resource of r.resources) for (const verb of r.verbs) out.add(`${resource}${group ? `.${group}` : ''} ${verb}`);
  }
  return out;
}

/** The differences, one line per resource and direction, naming the modes it applies to: `+` the lanes grant more, `-` less. */
function differences(): string[] {
  const lines = new Map<string, WorkspaceMode[]>();
  for (const mode of Object.keys(DRIVER_RBAC) as WorkspaceMode[]) {
    const ours = grants(DRIVER_RBAC[mode]);
    const chart = grants(CHART[mode]);
    for (const [sign, from, to] of [['+', ours, chart], ['-', chart, ours]] as const) {
      const byResource = new Map<string, string[]>();
      for (const grant of from) {
        if (to.has(grant)) continue;
        const [resource, verb] = grant.split(' ');
        byResource.set(resource, [...(byResource.get(resource) ?? []), verb]);
      }
      for (const [resource, verbs] of byResource) {
        const key = `${sign} ${resource}: ${verbs.sort().join(', ')}`;
        lines.set(key, [...(lines.get(key) ?? []), mode]);
      }
    }
  }
  return [...lines].map(([key, modes]) => `${key} (${modes.join(', ')})`).sort();
}

test('the lanes grant the driver what the reference driver calls; the differences from OpenShell\'s chart are exactly those docs/testing-your-driver.md explains', () => {
  const found = differences();
  expect(found).toEqual([
    '+ pods: create, delete, patch, watch (shared)',
    '+ services: create, get (shared)',
    '- events: get, list, watch (shared, managed, operator)',
    '- namespaces: delete, list, watch (managed)',
    '- namespaces: list, watch (operator)',
    '- networkpolicies.networking.k8s.io: create, get (managed, operator)',
    '- nodes: get, list, watch (shared, managed, operator)',
    '- pods: list (managed, operator)',
    '- priorityclasses.scheduling.k8s.io: get (managed, operator)',
    '- runtimeclasses.node.k8s.io: get (managed, operator)',
    '- sandboxes.agents.x-k8s.io: update (shared, managed, operator)',
    '- sandboxes/status.agents.x-k8s.io: create, delete, get, list, patch, update, watch (shared, managed, operator)',
    '- secrets: list (shared, managed, operator)',
    '- tokenreviews.authentication.k8s.io: create (shared, managed, operator)',
  ]);
  const readme = readFileSync(new URL('../docs/testing-your-driver.md', import.meta.url), 'utf8');
  for (const line of found) expect(readme, `docs/testing-your-driver.md lists "${line}" with its reason`).toContain(`\`${line}\``);
});

test('shared mode keeps everything in the sandbox namespace\'s Role; managed and operator modes need a ClusterRole', () => {
  expect(DRIVER_RBAC.shared.clusterRole).toEqual([{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }]);
  expect(DRIVER_RBAC.managed.role).toEqual([]);
  expect(DRIVER_RBAC.operator.role).toEqual([]);
});

test('a withheld permission leaves every other grant in place', () => {
  const rbac: DriverRbac = { role: [rule('', ['secrets', 'configmaps'], ['create', 'delete']), rule('', ['pods'], ['delete'])], clusterRole: [rule('', ['secrets'], ['delete'])] };
  expect(withoutPermission(rbac, { group: '', resource: 'secrets', verb: 'delete' })).toEqual({
    role: [rule('', ['configmaps'], ['create', 'delete']), rule('', ['secrets'], ['create']), rule('', ['pods'], ['delete'])],
    clusterRole: [],
  });
  const shared = withoutPermission(DRIVER_RBAC.shared, { group: '', resource: 'secrets', verb: 'delete' });
  expect([...grants(DRIVER_RBAC.shared)].filter((g) => !grants(shared).has(g))).toEqual(['secrets delete']);
});
