import { isDeepStrictEqual } from 'node:util';
import { causes, type StatusCause } from '../../errors.ts';
import type { KubeObject } from '../../types.ts';
import type { ResourceStrategy } from '../resource-type.ts';

const RBAC = 'rbac.authorization.k8s.io';

type Rule = { verbs?: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
type Subject = { kind?: string; name?: string; namespace?: string; apiGroup?: string };

const empty = (list: unknown[] | undefined) => !list || list.length === 0;

/** The rbac validation's rule checks, with its wording. */
function validateRules(role: KubeObject, namespaced: boolean): StatusCause[] {
  const result: StatusCause[] = [];
  ((Array.isArray(role.rules) ? role.rules : []) as Rule[]).forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (empty(rule.verbs)) result.push({ ...causes.required(`${at}.verbs`), message: 'Required value: verbs must contain at least one value' });
    if (!empty(rule.nonResourceURLs)) {
      if (namespaced) result.push(causes.invalid(`${at}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
      if (!empty(rule.apiGroups) || !empty(rule.resources) || !empty(rule.resourceNames)) {
        result.push(causes.invalid(`${at}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (empty(rule.apiGroups)) result.push({ ...causes.required(`${at}.apiGroups`), message: 'Required value: resource rules must supply at least one api group' });
    if (empty(rule.resources)) result.push({ ...causes.required(`${at}.resources`), message: 'Required value: resource rules must supply at least one resource' });
  });
  return result;
}

function validateBinding(binding: KubeObject, namespaced: boolean): StatusCause[] {
  const result: StatusCause[] = [];
  const ref = (binding.roleRef ?? {}) as { apiGroup?: string; kind?: string; name?: string };
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (ref.apiGroup !== RBAC) result.push(causes.unsupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC]));
  if (!kinds.includes(ref.kind ?? '')) result.push(causes.unsupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) result.push(causes.required('roleRef.name'));
  ((Array.isArray(binding.subjects) ? binding.subjects : []) as Subject[]).forEach((s, i) => {
    const at = `subjects[${i}]`;
    if (!s.name) result.push(causes.required(`${at}.name`));
    if (!['Group', 'ServiceAccount', 'User'].includes(s.kind ?? '')) result.push(causes.unsupported(`${at}.kind`, s.kind ?? '', ['Group', 'ServiceAccount', 'User']));
    else if (s.kind === 'ServiceAccount' && !namespaced && !s.namespace) result.push(causes.required(`${at}.namespace`));
  });
  return result;
}

export function roleStrategy(namespaced: boolean): ResourceStrategy {
  const validate = (role: KubeObject) => validateRules(role, namespaced);
  return { validateCreate: validate, validateUpdate: validate };
}

/** Bindings: roleRef is immutable once set (delete and recreate to point elsewhere). */
export function bindingStrategy(namespaced: boolean): ResourceStrategy {
  return {
    validateCreate: (binding) => validateBinding(binding, namespaced),
    validateUpdate(binding, old) {
      const result = validateBinding(binding, namespaced);
      if (!isDeepStrictEqual(binding.roleRef, old.roleRef)) result.push(causes.invalid('roleRef', binding.roleRef, 'cannot change roleRef'));
      return result;
    },
  };
}
