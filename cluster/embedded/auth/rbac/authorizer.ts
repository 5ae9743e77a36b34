import { aggregate } from '../../errors.ts';
import type { ObjectStore } from '../../store/object-store.ts';
import type { KubeObject } from '../../types.ts';
import type { UserInfo } from '../user.ts';
import { ruleAllows, type Attributes, type PolicyRule } from './policy-rules.ts';

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
  apiGroup?: string;
}

interface RoleRef {
  kind?: string;
  name?: string;
}

export interface Decision {
  allowed: boolean;
  /** On allow: which binding allowed it; on deny: the RBAC errors met on the way (missing roles), or ''. */
  reason: string;
}

/** The rules one binding grants, and how to name it in a reason. */
interface Grant {
  rules: PolicyRule[];
  describe: string;
}

const RBAC = 'rbac.authorization.k8s.io';

/**
 * RBAC over the objects in the store, evaluated per request as kube-apiserver's RBAC authorizer
 * does: ClusterRoleBindings, then the RoleBindings of the request's namespace; a binding whose
 * subject matches the user grants its role's rules. A binding to a role that does not exist grants
 * nothing and is reported in the deny reason (`RBAC: role.rbac.authorization.k8s.io "x" not found`).
 */
export class RbacAuthorizer {
  constructor(private readonly store: ObjectStore) {}

  authorize(user: UserInfo, attributes: Attributes): Decision {
    const errors: string[] = [];
    const namespace = attributes.kind === 'resource' ? attributes.namespace : undefined;
    for (const grant of this.grants(user, namespace, errors)) {
      if (grant.rules.some((rule) => ruleAllows(rule, attributes))) return { allowed: true, reason: `RBAC: allowed by ${grant.describe}` };
    }
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : '' };
  }

  /** Every rule the user holds in `namespace` (cluster-wide ones included): SelfSubjectRulesReview. */
  rulesFor(user: UserInfo, namespace: string | undefined): { rules: PolicyRule[]; errors: string[] } {
    const errors: string[] = [];
    const rules = this.grants(user, namespace, errors).flatMap((g) => g.rules);
    return { rules, errors };
  }

  private grants(user: UserInfo, namespace: string | undefined, errors: string[]): Grant[] {
    const result: Grant[] = [];
    for (const binding of this.store.list('clusterrolebindings.rbac.authorization.k8s.io')) {
      const subject = matchingSubject(binding, user, '');
      if (!subject) continue;
      const ref = roleRef(binding);
      const rules = this.roleRules({ kind: 'ClusterRole', name: ref.name }, undefined, errors);
      if (rules) result.push({ rules, describe: `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)} of ClusterRole ${JSON.stringify(ref.name)} to ${describeSubject(subject)}` });
    }
    if (!namespace) return result;
    for (const binding of this.store.list('rolebindings.rbac.authorization.k8s.io', namespace)) {
      const subject = matchingSubject(binding, user, namespace);
      if (!subject) continue;
      const ref = roleRef(binding);
      const rules = this.roleRules(ref, namespace, errors);
      if (rules) {
        result.push({
          rules,
          describe: `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${namespace}`)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(subject)}`,
        });
      }
    }
    return result;
  }

  private roleRules(ref: RoleRef, namespace: string | undefined, errors: string[]): PolicyRule[] | undefined {
    const cluster = ref.kind === 'ClusterRole';
    const role = cluster ? this.store.get(`clusterroles.${RBAC}`, undefined, ref.name ?? '') : this.store.get(`roles.${RBAC}`, namespace, ref.name ?? '');
    if (!role) {
      errors.push(`${cluster ? 'clusterrole' : 'role'}.${RBAC} ${JSON.stringify(ref.name ?? '')} not found`);
      return undefined;
    }
    return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
  }
}

function roleRef(binding: KubeObject): RoleRef {
  return (binding.roleRef ?? {}) as RoleRef;
}

/** rbac's appliesTo: a User or Group by name, a ServiceAccount by its user name (namespace defaults to the binding's). */
function matchingSubject(binding: KubeObject, user: UserInfo, bindingNamespace: string): Subject | undefined {
  const subjects = (Array.isArray(binding.subjects) ? binding.subjects : []) as Subject[];
  return subjects.find((s) => {
    switch (s.kind) {
      case 'User':
        return s.name === user.username;
      case 'Group':
        return !!s.name && user.groups.includes(s.name);
      case 'ServiceAccount': {
        const ns = s.namespace || bindingNamespace;
        return !!ns && user.username === `system:serviceaccount:${ns}:${s.name}`;
      }
      default:
        return false;
    }
  });
}

function describeSubject(subject: Subject): string {
  const name = subject.kind === 'ServiceAccount' && subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name;
  return `${subject.kind} ${JSON.stringify(name)}`;
}
