import type { LabelSelectorObject } from '../store/label-selectors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its binding, as JSON. */

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const POLICIES = 'validatingadmissionpolicies';
export const BINDINGS = 'validatingadmissionpolicybindings';

export type Scope = 'Cluster' | 'Namespaced' | '*';

export interface NamedRuleWithOperations {
  resourceNames?: string[];
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: Scope;
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: 'Exact' | 'Equivalent';
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface NamedExpression {
  name: string;
  expression: string;
}

export interface PolicySpec {
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: 'Fail' | 'Ignore';
  auditAnnotations?: { key: string; valueExpression: string }[];
  matchConditions?: NamedExpression[];
  variables?: NamedExpression[];
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelectorObject;
  parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: ('Deny' | 'Warn' | 'Audit')[];
}

export function policySpec(policy: KubeObject): PolicySpec {
  return (isPlainObject(policy.spec) ? policy.spec : {}) as PolicySpec;
}

export function bindingSpec(binding: KubeObject): BindingSpec {
  return (isPlainObject(binding.spec) ? binding.spec : {}) as BindingSpec;
}

/** SetDefaults_MatchResources and SetDefaults_NamedRuleWithOperations. */
export function defaultMatchResources(match: MatchResources): void {
  match.matchPolicy ??= 'Equivalent';
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  for (const rule of [...(match.resourceRules ?? []), ...(match.excludeResourceRules ?? [])]) {
    if (isPlainObject(rule)) rule.scope ??= '*';
  }
}
