import { jsonToCel } from '../cel/values.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import { resourceKey, type ResourceVersion } from '../registry/resource-type.ts';
import type { KubeObject } from '../types.ts';
import type { AdmissionAttributes, ValidatingAdmission } from './attributes.ts';
import { matchResources, type MatchRequest } from './match.ts';
import { collectParams, paramKindError } from './params.ts';
import { evaluatePolicy, type Decision } from './policy-evaluator.ts';
import { ADMISSION_GROUP, BINDINGS, bindingSpec, POLICIES, policySpec, type ParamRef, type PolicySpec } from './policy-types.ts';
import { admissionRequest, denial } from './request.ts';

const POLICY_KEY = resourceKey(ADMISSION_GROUP, POLICIES);
const BINDING_KEY = resourceKey(ADMISSION_GROUP, BINDINGS);

interface Denied {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/**
 * The ValidatingAdmissionPolicy admission plugin (its dispatcher): for every policy that has
 * bindings and matches the request, every binding that matches too is evaluated per param;
 * failing validations act as the binding's validationActions say (Deny refuses, Warn adds a
 * `Warning` header, Audit is not recorded: there is no audit log). The first denial becomes the
 * request's error. Policies and bindings are read from the store on each request, so a new
 * binding applies to the very next request (a real server's informers take a moment).
 */
export class ValidatingAdmissionPolicyPlugin implements ValidatingAdmission {
  constructor(private readonly api: ObjectApi) {}

  validate(attributes: AdmissionAttributes): string[] {
    const bindings = this.api.store.list(BINDING_KEY);
    if (bindings.length === 0) return [];
    const request = this.matchRequest(attributes);
    const denied: Denied[] = [];
    const warnings: string[] = [];
    const policies = this.api.store.list(POLICY_KEY);
    for (const policy of policies) {
      const name = policy.metadata.name!;
      const spec = policySpec(policy);
      const bound = bindings.filter((b) => bindingSpec(b).policyName === name);
      if (bound.length === 0 || !spec.matchConstraints) continue;
      const matched = matchResources(spec.matchConstraints, request);
      if (!matched.matched) continue;
      const configError = paramKindError(this.api, spec);
      if (configError) {
        if (spec.failurePolicy !== 'Ignore') denied.push({ policy: name, message: `failed to configure policy: ${configError}` });
        continue;
      }
      for (const binding of bound) {
        const bSpec = bindingSpec(binding);
        if (bSpec.matchResources && !matchResources(bSpec.matchResources, request).matched) continue;
        const decisions = this.evaluateBinding(attributes, request, spec, bSpec.paramRef, matched.version);
        if (typeof decisions === 'string') {
          if (spec.failurePolicy !== 'Ignore') denied.push({ policy: name, binding: binding.metadata.name, message: `failed to configure binding: ${decisions}` });
          continue;
        }
        for (const decision of decisions.filter((d) => d.action === 'deny')) {
          const actions = bSpec.validationActions ?? [];
          if (actions.includes('Deny')) denied.push({ policy: name, binding: binding.metadata.name, message: decision.message, reason: decision.reason });
          if (actions.includes('Warn')) {
            warnings.push(`Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${binding.metadata.name}': ${decision.message}`);
          }
        }
      }
    }
    if (denied.length) {
      const [first] = denied;
      throw denial(attributes, first.policy, first.binding, first.message, first.reason);
    }
    return warnings;
  }

  /** Decisions over every param, or a configuration error's message. */
  private evaluateBinding(
    attributes: AdmissionAttributes,
    request: MatchRequest,
    spec: PolicySpec,
    paramRef: ParamRef | undefined,
    matched: ResourceVersion,
  ): Decision[] | string {
    let params: (KubeObject | null)[];
    try {
      params = collectParams(this.api, spec, paramRef, request.namespace && !isNamespaceRequest(request) ? request.namespace : '');
    } catch (error) {
      return (error as Error).message;
    }
    const inMatchedVersion = (object: KubeObject | undefined) =>
      object ? jsonToCel(this.api.present({ type: request.type, version: matched }, object)) : null;
    const namespace = isNamespaceRequest(request) ? undefined : this.namespaceObject(request.namespace);
    const base = {
      object: inMatchedVersion(attributes.object),
      oldObject: inMatchedVersion(attributes.oldObject),
      request: jsonToCel(admissionRequest(attributes, request.namespace, matched)),
      namespaceObject: namespace ? jsonToCel(namespace) : null,
    };
    return params.flatMap((param) => evaluatePolicy(spec, { ...base, params: param ? jsonToCel(param) : null }));
  }

  private matchRequest(attributes: AdmissionAttributes): MatchRequest {
    const { type, version } = attributes.target;
    const isNamespace = type.group === '' && type.plural === 'namespaces';
    // admission.Attributes carries a Namespace's own name as its namespace.
    const namespace = isNamespace ? (attributes.object ?? attributes.oldObject)?.metadata.name ?? '' : attributes.namespace ?? '';
    return {
      operation: attributes.operation,
      type,
      version,
      subresource: attributes.subresource ?? '',
      name: attributes.name,
      namespace,
      object: attributes.object,
      oldObject: attributes.oldObject,
      namespaceLabels: !isNamespace && namespace ? this.namespaceObject(namespace)?.metadata.labels ?? {} : undefined,
    };
  }

  /** The request's Namespace as `namespaceObject` shows it (without managedFields). */
  private namespaceObject(name: string): KubeObject | undefined {
    const stored = name ? this.api.store.get('namespaces', undefined, name) : undefined;
    if (!stored) return undefined;
    const { managedFields: _managed, ...metadata } = stored.metadata;
    return { ...stored, metadata };
  }
}

function isNamespaceRequest(request: MatchRequest): boolean {
  return request.type.group === '' && request.type.plural === 'namespaces';
}
