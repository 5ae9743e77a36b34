import type { CelInput } from '@bufbuild/cel';
import { compileCel, type CelBindings, type CelOutcome, type CompiledExpression } from '../cel/compile.ts';
import { policyVariables } from './policy-validation.ts';
import type { PolicySpec, Validation } from './policy-types.ts';

/**
 * One policy evaluated for one request, binding and param (the validating policy validator):
 * matchConditions first (any false: the policy does not apply), then `variables` in order, then
 * every validation. An expression that fails to evaluate follows the failure policy: Fail
 * denies with the error as the message, Ignore admits.
 */

export interface Decision {
  action: 'admit' | 'deny';
  message: string;
  /** The validation's reason for a denial it decided; absent for evaluation errors. */
  reason?: string;
}

export interface PolicyInputs {
  object: CelInput;
  oldObject: CelInput;
  request: CelInput;
  params: CelInput;
  namespaceObject: CelInput;
}

export function evaluatePolicy(spec: PolicySpec, inputs: PolicyInputs): Decision[] {
  const onError = (message: string): Decision => ({ action: spec.failurePolicy === 'Ignore' ? 'admit' : 'deny', message });
  const hasParams = !!spec.paramKind;
  const base: CelBindings = { ...inputs };

  const conditionErrors: string[] = [];
  for (const condition of spec.matchConditions ?? []) {
    const outcome = run(condition.expression, policyVariables(hasParams, { authorizer: true, variables: false }), base, new Map());
    if ('error' in outcome) conditionErrors.push(outcome.error);
    else if (outcome.value !== true) return [];
  }
  if (conditionErrors.length) return [onError(aggregate(conditionErrors))];

  const variableValues: Record<string, CelInput> = {};
  const variableErrors = new Map<string, string>();
  const withVariables: CelBindings = { ...base, variables: variableValues };
  for (const variable of spec.variables ?? []) {
    const outcome = run(variable.expression, policyVariables(hasParams, { authorizer: true, variables: true }), withVariables, variableErrors);
    if ('error' in outcome) variableErrors.set(variable.name, outcome.error);
    else variableValues[variable.name] = outcome.value;
  }

  return (spec.validations ?? []).map((validation) => {
    const outcome = run(validation.expression, policyVariables(hasParams, { authorizer: true, variables: true }), withVariables, variableErrors);
    if ('error' in outcome) return onError(outcome.error);
    if (outcome.value === true) return { action: 'admit', message: '' };
    return { action: 'deny', message: denialMessage(validation, hasParams, withVariables, variableErrors), reason: validation.reason ?? 'Invalid' };
  });
}

/** messageExpression when it yields a one-line string, else message, else `failed expression: <expression>`. */
function denialMessage(validation: Validation, hasParams: boolean, bindings: CelBindings, variableErrors: Map<string, string>): string {
  if (validation.messageExpression?.trim()) {
    const outcome = run(validation.messageExpression, policyVariables(hasParams, { authorizer: false, variables: true }), bindings, variableErrors);
    const text = 'value' in outcome && typeof outcome.value === 'string' ? outcome.value.trim() : '';
    if (text && !text.includes('\n')) return text;
  }
  if (validation.message?.trim()) return validation.message.trim();
  return `failed expression: ${validation.expression.trim()}`;
}

/**
 * Evaluates with the filter's error words. Variables are lazy in cel-go: an expression that reads
 * a variable whose own evaluation failed fails with that error.
 */
function run(expression: string, declared: string[], bindings: CelBindings, variableErrors: Map<string, string>): CelOutcome {
  let compiled: CompiledExpression;
  try {
    compiled = compileCel(expression, declared);
  } catch (error) {
    return { error: `compilation error: ${(error as Error).message}` };
  }
  for (const name of compiled.variableReferences) {
    const failed = variableErrors.get(name);
    if (failed !== undefined) return { error: failed };
  }
  const outcome = compiled.evaluate(bindings);
  return 'error' in outcome ? { error: `expression '${expression}' resulted in error: ${outcome.error}` } : outcome;
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several in brackets. */
function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}
