/** rbac.authorization.k8s.io/v1 PolicyRule and how one matches a request, as the RBAC authorizer matches. */
export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** What a resource request asks for (kube-apiserver's authorizer.Attributes for resource requests). */
export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface NonResourceAttributes {
  verb: string;
  path: string;
}

export type Attributes = ({ kind: 'resource' } & ResourceAttributes) | ({ kind: 'path' } & NonResourceAttributes);

const ALL = '*';

function has(list: string[] | undefined, value: string): boolean {
  return !!list && (list.includes(ALL) || list.includes(value));
}

/** `*`, the resource itself (`pods/exec` for a subresource), or `*\/exec` for any resource's subresource. */
function resourceMatches(rule: PolicyRule, resource: string, subresource: string | undefined): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  return (rule.resources ?? []).some((r) => r === ALL || r === combined || (!!subresource && r === `*/${subresource}`));
}

/** An exact path, or a prefix ending in `*`. */
function pathMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === ALL || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

export function ruleAllows(rule: PolicyRule, attributes: Attributes): boolean {
  if (!has(rule.verbs, attributes.verb)) return false;
  if (attributes.kind === 'path') return pathMatches(rule, attributes.path);
  if (!has(rule.apiGroups, attributes.group)) return false;
  if (!resourceMatches(rule, attributes.resource, attributes.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (!!attributes.name && names.includes(attributes.name));
}
