import { isDeepStrictEqual } from 'node:util';
import type { ObjectApi } from '../registry/object-api.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../store/label-selectors.ts';
import type { KubeObject } from '../types.ts';
import { Controller } from './controller-base.ts';

const CLUSTER_ROLES = 'clusterroles.rbac.authorization.k8s.io';

/**
 * Aggregated ClusterRoles: a ClusterRole with an aggregationRule gets, as its `rules`, every rule
 * of the ClusterRoles its label selectors pick (in name order, without repeats), rewritten
 * whenever any ClusterRole changes, as kube-controller-manager's clusterrole-aggregation controller does.
 */
export class ClusterRoleAggregationController extends Controller {
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi) {
    super('clusterrole-aggregation-controller');
    this.unsubscribe = api.store.subscribe(api.store.currentRevision(), (event) => {
      if (event.resource !== CLUSTER_ROLES) return;
      for (const role of api.store.list(CLUSTER_ROLES)) if (role.aggregationRule) this.enqueue(role.metadata.name!);
    });
    for (const role of api.store.list(CLUSTER_ROLES)) if (role.aggregationRule) this.enqueue(role.metadata.name!);
  }

  override stop(): void {
    this.unsubscribe();
    super.stop();
  }

  protected override reconcile(name: string): void {
    const role = this.api.store.get(CLUSTER_ROLES, undefined, name);
    const selectors = ((role?.aggregationRule as { clusterRoleSelectors?: LabelSelectorObject[] } | undefined)?.clusterRoleSelectors ?? []).map((s) =>
      labelSelectorFromObject(s),
    );
    if (!role || selectors.length === 0) return;
    const rules: unknown[] = [];
    for (const other of this.api.store.list(CLUSTER_ROLES)) {
      if (other.metadata.name === name || !selectors.some((matches) => matches(other.metadata.labels))) continue;
      for (const rule of rulesOf(other)) if (!rules.some((r) => isDeepStrictEqual(r, rule))) rules.push(rule);
    }
    if (isDeepStrictEqual(rulesOf(role), rules)) return;
    const target = this.api.target('rbac.authorization.k8s.io/v1', 'clusterroles');
    this.api.update(target, name, { ...role, rules }, { fieldManager: 'clusterrole-aggregation-controller' });
  }
}

function rulesOf(role: KubeObject): unknown[] {
  return Array.isArray(role.rules) ? role.rules : [];
}
