import { CelCompileError, compileCel } from '../cel/compile.ts';
import { causes, type StatusCause } from '../errors.ts';
import { validateName } from '../registry/object-names.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../store/label-selectors.ts';
import { isPlainObject } from '../types.ts';
import { bindingSpec, policySpec, type MatchResources, type NamedRuleWithOperations } from './policy-types.ts';
import type { KubeObject } from '../types.ts';

/**
 * API validation of ValidatingAdmissionPolicy and its binding, with kube-apiserver's field paths
 * and words (pkg/apis/admissionregistration/validation). Every CEL expression is compiled here,
 * so a policy whose expression does not compile is refused when it is written, as on a real
 * server; the failure policy only ever meets evaluation errors.
 */

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The variables a policy's expressions may use; `params` only with a paramKind. */
export function policyVariables(hasParams: boolean, options: { authorizer: boolean; variables: boolean }): string[] {
  return ['object', 'oldObject', 'request', 'namespaceObject', ...(hasParams ? ['params'] : []), ...(options.authorizer ? ['authorizer'] : []), ...(options.variables ? ['variables'] : [])];
}

export function validatePolicy(policy: KubeObject): StatusCause[] {
  const spec = policySpec(policy);
  const out: StatusCause[] = [];
  const hasParams = isPlainObject(spec.paramKind);
  if (spec.failurePolicy === undefined) out.push(causes.required('spec.failurePolicy'));
  else if (!['Fail', 'Ignore'].includes(spec.failurePolicy)) out.push(causes.unsupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  if (hasParams) {
    if (!spec.paramKind!.apiVersion) out.push(causes.required('spec.paramKind.apiVersion'));
    if (!spec.paramKind!.kind) out.push(causes.required('spec.paramKind.kind'));
  }
  const constraints = spec.matchConstraints;
  if (typeof constraints !== 'object' || constraints === null || Array.isArray(constraints)) {
    out.push(causes.required('spec.matchConstraints'));
  } else {
    out.push(...validateMatchResources(constraints, 'spec.matchConstraints'));
    if (!constraints.resourceRules?.length) out.push(causes.required('spec.matchConstraints.resourceRules'));
  }
  (spec.matchConditions ?? []).forEach((condition, i) => {
    const field = `spec.matchConditions[${i}]`;
    if (!condition.expression?.trim()) out.push(causes.required(`${field}.expression`));
    else out.push(...compileErrors(condition.expression, `${field}.expression`, policyVariables(hasParams, { authorizer: true, variables: false })));
    if (!condition.name) out.push(causes.required(`${field}.name`));
  });
  (spec.variables ?? []).forEach((variable, i) => {
    const field = `spec.variables[${i}]`;
    if (!variable.name?.trim()) out.push(required(`${field}.name`, 'name is not specified'));
    else if (!CEL_IDENTIFIER.test(variable.name) || CEL_RESERVED.has(variable.name)) out.push(causes.invalid(`${field}.name`, variable.name, 'name is not a valid CEL identifier'));
    if (!variable.expression?.trim()) out.push(required(`${field}.expression`, 'expression is not specified'));
    else out.push(...compileErrors(variable.expression, `${field}.expression`, policyVariables(hasParams, { authorizer: true, variables: true })));
  });
  if (!spec.validations?.length && !spec.auditAnnotations?.length) {
    out.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    out.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
  }
  (spec.validations ?? []).forEach((validation, i) => {
    const field = `spec.validations[${i}]`;
    if (!validation.expression?.trim()) out.push(required(`${field}.expression`, 'expression is not specified'));
    else out.push(...compileErrors(validation.expression, `${field}.expression`, policyVariables(hasParams, { authorizer: true, variables: true })));
    if (validation.messageExpression !== undefined && validation.messageExpression.length > 0) {
      if (!validation.messageExpression.trim()) out.push(causes.invalid(`${field}.messageExpression`, validation.messageExpression, 'must be non-empty if specified'));
      else out.push(...compileErrors(validation.messageExpression, `${field}.messageExpression`, policyVariables(hasParams, { authorizer: false, variables: true })));
    }
    if (validation.message && !validation.message.trim()) out.push(causes.invalid(`${field}.message`, validation.message, 'message must be non-empty if specified'));
    else if (validation.message && /[\n\r]/.test(validation.message.trim())) out.push(causes.invalid(`${field}.message`, validation.message, 'message must not contain line breaks'));
    if (validation.reason !== undefined && !REASONS.includes(validation.reason)) out.push(causes.unsupported(`${field}.reason`, validation.reason, REASONS));
  });
  return out;
}

export function validateBinding(binding: KubeObject): StatusCause[] {
  const spec = bindingSpec(binding);
  const out: StatusCause[] = [];
  if (!spec.policyName) out.push(causes.required('spec.policyName'));
  else out.push(...validateName(spec.policyName, 'subdomain').map((c) => ({ ...c, field: 'spec.policyName' })));
  const ref = spec.paramRef;
  if (ref && typeof ref === 'object') {
    if (ref.name && ref.selector) {
      out.push(causes.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
      out.push(causes.forbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
    }
    if (ref.selector) out.push(...validateSelector(ref.selector, 'spec.paramRef.selector'));
    if (!ref.name && !ref.selector) out.push(required('spec.paramRef', 'one of name or selector must be specified'));
    if (!ref.parameterNotFoundAction) out.push(causes.required('spec.paramRef.parameterNotFoundAction'));
    else if (!['Deny', 'Allow'].includes(ref.parameterNotFoundAction)) out.push(causes.unsupported('spec.paramRef.parameterNotFoundAction', ref.parameterNotFoundAction, ['Deny', 'Allow']));
  }
  // "matchResouces" is the real server's spelling of this path.
  if (isPlainObject(spec.matchResources)) out.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  const actions = spec.validationActions ?? [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!ACTIONS.includes(action)) out.push(causes.unsupported(`spec.validationActions[${i}]`, action, ACTIONS));
    if (seen.has(action)) out.push({ reason: 'FieldValueDuplicate', field: `spec.validationActions[${i}]`, message: `Duplicate value: ${JSON.stringify(action)}` });
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    out.push(invalidList('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) out.push(required('spec.validationActions', 'at least one validation action is required'));
  return out;
}

function validateMatchResources(match: MatchResources, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!match.matchPolicy) out.push(causes.required(`${path}.matchPolicy`));
  else if (!['Equivalent', 'Exact'].includes(match.matchPolicy)) out.push(causes.unsupported(`${path}.matchPolicy`, match.matchPolicy, ['Equivalent', 'Exact']));
  out.push(...validateSelector(match.namespaceSelector, `${path}.namespaceSelector`));
  out.push(...validateSelector(match.objectSelector, `${path}.objectSelector`));
  (match.resourceRules ?? []).forEach((rule, i) => out.push(...validateRule(rule, `${path}.resourceRules[${i}]`)));
  (match.excludeResourceRules ?? []).forEach((rule, i) => out.push(...validateRule(rule, `${path}.excludeResourceRules[${i}]`)));
  return out;
}

function validateRule(rule: NamedRuleWithOperations, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const operations = rule.operations ?? [];
  if (operations.length === 0) out.push(causes.required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*')) out.push(invalidList(`${path}.operations`, operations, "if '*' is present, must not specify other operations"));
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) out.push(causes.unsupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  for (const [member, what] of [['apiGroups', 'API groups'], ['apiVersions', 'API versions']] as const) {
    const values = rule[member] ?? [];
    if (values.length === 0) out.push(causes.required(`${path}.${member}`));
    if (values.length > 1 && values.includes('*')) out.push(invalidList(`${path}.${member}`, values, `if '*' is present, must not specify other ${what}`));
  }
  out.push(...validateResources(rule.resources ?? [], `${path}.resources`));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) out.push(causes.unsupported(`${path}.scope`, rule.scope, SCOPES));
  return out;
}

function validateResources(resources: string[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (resources.length === 0) out.push(causes.required(path));
  const wildcardSubresourcesOf = new Set<string>();
  const wildcardResourceFor = new Set<string>();
  resources.forEach((entry, i) => {
    if (!entry) return out.push(causes.required(`${path}[${i}]`));
    const slash = entry.indexOf('/');
    if (slash < 0) return;
    const [resource, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (wildcardSubresourcesOf.has(resource)) out.push(causes.invalid(`${path}[${i}]`, entry, `if '${resource}/*' is present, must not specify ${entry}`));
    if (wildcardResourceFor.has(sub)) out.push(causes.invalid(`${path}[${i}]`, entry, `if '*/${sub}' is present, must not specify ${entry}`));
    if (sub === '*') wildcardSubresourcesOf.add(resource);
    if (resource === '*') wildcardResourceFor.add(sub);
  });
  if (resources.length > 1 && resources.includes('*/*')) out.push(invalidList(path, resources, "if '*/*' is present, must not specify other resources"));
  if (resources.includes('*') && resources.some((r) => r && r !== '*' && !r.includes('/'))) {
    out.push(invalidList(path, resources, "if '*' is present, must not specify other resources without subresources"));
  }
  return out;
}

function validateSelector(selector: LabelSelectorObject | undefined, path: string): StatusCause[] {
  if (selector === undefined) return [causes.required(path)];
  try {
    labelSelectorFromObject(selector);
    return [];
  } catch (error) {
    return [causes.invalid(path, selector, (error as Error).message)];
  }
}

function compileErrors(expression: string, field: string, declared: string[]): StatusCause[] {
  try {
    compileCel(expression, declared);
    return [];
  } catch (error) {
    if (!(error instanceof CelCompileError)) throw error;
    return [causes.invalid(field, expression, error.detail)];
  }
}

function required(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', field, message: `Required value: ${detail}` };
}

/** field.Invalid of a []string, which Go prints with %#v: `[]string{"a", "b"}`. */
function invalidList(field: string, values: string[], detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: []string{${values.map((v) => JSON.stringify(v)).join(', ')}}: ${detail}` };
}
