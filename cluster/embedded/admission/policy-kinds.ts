import type { ResourceStrategy } from '../registry/resource-type.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import { validateBinding, validatePolicy } from './policy-validation.ts';
import { bindingSpec, defaultMatchResources, policySpec, type ParamRef } from './policy-types.ts';

/**
 * The strategies of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding: the
 * defaults the real API fills on every write (failurePolicy Fail, matchPolicy Equivalent, empty
 * selectors, scope `*`), API validation, and `kubectl get`'s columns.
 */

function defaultPolicy(policy: KubeObject): void {
  if (!isPlainObject(policy.spec)) policy.spec = {};
  const spec = policySpec(policy);
  spec.failurePolicy ??= 'Fail';
  if (isPlainObject(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
}

function defaultBinding(binding: KubeObject): void {
  if (!isPlainObject(binding.spec)) binding.spec = {};
  const spec = bindingSpec(binding);
  if (isPlainObject(spec.matchResources)) defaultMatchResources(spec.matchResources);
}

export const policyStrategy: ResourceStrategy = {
  prepareForCreate: defaultPolicy,
  prepareForUpdate: defaultPolicy,
  validateCreate: validatePolicy,
  validateUpdate: validatePolicy,
  table: {
    columns: [
      { name: 'Validations', type: 'integer', jsonPath: '', description: 'Validations indicates the number of validation rules defined in this configuration' },
      { name: 'ParamKind', type: 'string', jsonPath: '', description: 'ParamKind specifies the kind of resources used to parameterize this policy' },
    ],
    cells(policy) {
      const spec = policySpec(policy);
      const kind = spec.paramKind ? `${spec.paramKind.apiVersion}/${spec.paramKind.kind}` : '<unset>';
      return [(spec.validations ?? []).length, kind];
    },
  },
};

export const bindingStrategy: ResourceStrategy = {
  prepareForCreate: defaultBinding,
  prepareForUpdate: defaultBinding,
  validateCreate: validateBinding,
  validateUpdate: validateBinding,
  table: {
    columns: [
      { name: 'PolicyName', type: 'string', jsonPath: '', description: 'PolicyName indicates the policy definition which the policy binding binded to' },
      { name: 'ParamRef', type: 'string', jsonPath: '', description: 'ParamRef indicates the param resource which sets the configration param' },
    ],
    cells(binding) {
      const spec = bindingSpec(binding);
      return [spec.policyName ?? '', paramRefCell(spec.paramRef)];
    },
  },
};

/** `ns/name`, `*\/name` when no namespace is given, the selector, or `<unset>`. */
function paramRefCell(ref: ParamRef | undefined): string {
  if (!ref) return '<unset>';
  if (ref.name) return ref.namespace ? `${ref.namespace}/${ref.name}` : `*/${ref.name}`;
  if (ref.selector) {
    const labels = Object.entries(ref.selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
    const expressions = (ref.selector.matchExpressions ?? []).map((e) => `${e.key} ${e.operator} (${(e.values ?? []).join(',')})`);
    return [...labels, ...expressions].join(',') || '<all>';
  }
  return '<unset>';
}
