import type { ResourceType, ResourceVersion } from '../registry/resource-type.ts';
import { labelSelectorFromObject } from '../store/label-selectors.ts';
import type { KubeObject } from '../types.ts';
import type { AdmissionOperation } from './attributes.ts';
import type { MatchResources, NamedRuleWithOperations } from './policy-types.ts';

/**
 * Which requests a policy's matchConstraints (or a binding's matchResources) select, as
 * kube-apiserver's policy matcher decides: namespace selector, object selector, excluded rules,
 * then resource rules (with `Equivalent` matching through the resource's other served versions).
 */

/** The request as matching sees it. */
export interface MatchRequest {
  operation: AdmissionOperation;
  type: ResourceType;
  version: ResourceVersion;
  subresource: string;
  name: string;
  /** For a Namespace request, the namespace's own name (as admission.Attributes carries it). */
  namespace: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  /** Labels of the request's namespace; undefined for cluster-scoped resources. */
  namespaceLabels?: Record<string, string>;
}

/** Matched, with the version whose rule matched (the request's own, or an equivalent one). */
export type MatchOutcome = { matched: false } | { matched: true; version: ResourceVersion };

export function matchResources(match: MatchResources, request: MatchRequest): MatchOutcome {
  if (!namespaceSelected(match, request) || !objectSelected(match, request)) return { matched: false };
  if (match.excludeResourceRules?.length && matchRules(match.excludeResourceRules, match, request)) return { matched: false };
  if (!match.resourceRules?.length) return { matched: true, version: request.version };
  const version = matchRules(match.resourceRules, match, request);
  return version ? { matched: true, version } : { matched: false };
}

function namespaceSelected(match: MatchResources, request: MatchRequest): boolean {
  const isNamespace = request.type.group === '' && request.type.plural === 'namespaces';
  // Cluster-scoped resources other than Namespaces are never excluded by a namespace selector.
  if (!request.namespace && !isNamespace) return true;
  const labels = isNamespace ? (request.object ?? request.oldObject)?.metadata.labels : request.namespaceLabels;
  return labelSelectorFromObject(match.namespaceSelector ?? {})(labels ?? {});
}

function objectSelected(match: MatchResources, request: MatchRequest): boolean {
  const selector = match.objectSelector ?? {};
  if (!selector.matchLabels && !selector.matchExpressions?.length) return true;
  const matches = labelSelectorFromObject(selector);
  return [request.object, request.oldObject].some((o) => o !== undefined && matches(o.metadata.labels ?? {}));
}

/** The version a rule matched in, or undefined. */
function matchRules(rules: NamedRuleWithOperations[], match: MatchResources, request: MatchRequest): ResourceVersion | undefined {
  if (rules.some((rule) => ruleMatches(rule, request, request.version.name))) return request.version;
  if (match.matchPolicy === 'Exact') return undefined;
  const equivalents = request.type.versions.filter((v) => v.served && v.name !== request.version.name);
  for (const rule of rules) {
    const found = equivalents.find((v) => ruleMatches(rule, request, v.name));
    if (found) return found;
  }
  return undefined;
}

function ruleMatches(rule: NamedRuleWithOperations, request: MatchRequest, version: string): boolean {
  const anyOf = (values: string[] | undefined, value: string) => (values ?? []).some((v) => v === '*' || v === value);
  return (
    scopeMatches(rule, request) &&
    anyOf(rule.operations, request.operation) &&
    anyOf(rule.apiGroups, request.type.group) &&
    anyOf(rule.apiVersions, version) &&
    (rule.resources ?? []).some((entry) => resourceMatches(entry, request.type.plural, request.subresource)) &&
    (!rule.resourceNames?.length || rule.resourceNames.includes(request.name))
  );
}

/** `pods` the resource alone, `pods/status` one subresource, `pods/*`, `*` every resource alone, `*\/*` everything. */
function resourceMatches(entry: string, resource: string, subresource: string): boolean {
  const slash = entry.indexOf('/');
  const [res, sub] = slash < 0 ? [entry, ''] : [entry.slice(0, slash), entry.slice(slash + 1)];
  return (res === '*' || res === resource) && (sub === '*' || sub === subresource);
}

function scopeMatches(rule: NamedRuleWithOperations, request: MatchRequest): boolean {
  const isNamespace = request.type.group === '' && request.type.plural === 'namespaces';
  if (rule.scope === 'Namespaced') return !isNamespace && request.namespace !== '';
  if (rule.scope === 'Cluster') return isNamespace || request.namespace === '';
  return true;
}
