/**
 * How the harness finds a sandbox's Kubernetes objects without asking the driver: one label
 * selector per role — the Sandbox, the supervisor Pod, the workload Pod, the generation Secrets —
 * with an `{id}` placeholder for the sandbox id the gateway minted. A driver that names and
 * labels its objects its own way is judged by giving its selectors (`--roles FILE`).
 *
 * The selector grammar is Kubernetes' (`k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
 * `k`, `!k`), parsed here by hand because no client library exports a parser; `{id}` may stand
 * only as the single value of one equality requirement per selector, so a label value both
 * selects a sandbox's objects and tells which sandbox an object belongs to.
 */

export type Role = 'sandbox' | 'supervisorPod' | 'workloadPod' | 'generationSecrets';
export type RoleSelectors = Record<Role, string>;
export type RoleResource = 'sandboxes' | 'pods' | 'secrets';

export const ROLES: readonly Role[] = ['sandbox', 'supervisorPod', 'workloadPod', 'generationSecrets'];
export const ROLE_RESOURCE: Record<Role, RoleResource> = { sandbox: 'sandboxes', supervisorPod: 'pods', workloadPod: 'pods', generationSecrets: 'secrets' };
/** The timeline's name for a Pod role (`ObjectEntry.role`). */
export const POD_ROLE_NAME: Partial<Record<Role, 'supervisor' | 'workload'>> = { supervisorPod: 'supervisor', workloadPod: 'workload' };

export const ID_PLACEHOLDER = '{id}';

interface Requirement {
  key: string;
  op: 'in' | 'notin' | 'exists' | 'absent';
  values: string[];
  text: string;
}

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas outside parentheses. */
function split(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

function parse(selector: string): Requirement[] {
  if (!selector.trim()) throw new Error('the selector is empty');
  return split(selector).map((text) => {
    const fail = (why: string): never => {
      throw new Error(`"${text}": ${why}`);
    };
    let m: RegExpExecArray | null;
    let requirement: Requirement;
    if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text))) requirement = { key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((v) => v.trim()), text };
    else if ((m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(text))) requirement = { key: m[1], op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]], text };
    else if ((m = /^!\s*(\S+)$/.exec(text))) requirement = { key: m[1], op: 'absent', values: [], text };
    else if (/^\S+$/.test(text)) requirement = { key: text, op: 'exists', values: [], text };
    else return fail('not a label selector requirement (key=value, key!=value, key in (a,b), key notin (a,b), key or !key)');
    if (!KEY.test(requirement.key)) fail(`"${requirement.key}" is not a valid label key`);
    for (const value of requirement.values) if (value !== ID_PLACEHOLDER && !VALUE.test(value)) fail(`"${value}" is not a valid label value`);
    return requirement;
  });
}

/** The requirement carrying `{id}`; throws unless there is exactly one, as `key={id}`. */
function idRequirement(requirements: Requirement[]): Requirement {
  const carrying = requirements.filter((r) => r.values.includes(ID_PLACEHOLDER));
  if (carrying.length !== 1 || carrying[0].op !== 'in' || carrying[0].values.length !== 1) {
    throw new Error(`it must contain ${ID_PLACEHOLDER} exactly once, as key=${ID_PLACEHOLDER}`);
  }
  return carrying[0];
}

/** Checks a full set of role selectors; the error names the role and what to fix. */
export function checkRoleSelectors(value: unknown, source = 'the role selectors'): RoleSelectors {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: expected a mapping of ${ROLES.join(', ')} to label selectors`);
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !(ROLES as readonly string[]).includes(k));
  if (unknown.length) throw new Error(`${source}: unknown role ${unknown.map((k) => `"${k}"`).join(', ')}; the roles are ${ROLES.join(', ')}`);
  for (const role of ROLES) {
    const selector = given[role];
    if (typeof selector !== 'string') throw new Error(`${source}: ${role} must be a label selector string, e.g. "openshell.ai/sandbox-id=${ID_PLACEHOLDER}"`);
    try {
      idRequirement(parse(selector));
    } catch (error) {
      throw new Error(`${source}: ${role} selector "${selector}": ${(error as Error).message}`);
    }
  }
  return given as RoleSelectors;
}

/** The role's selector for one sandbox. */
export function selectorFor(roles: RoleSelectors, role: Role, id: string): string {
  return roles[role].split(ID_PLACEHOLDER).join(id);
}

function matches(requirement: Requirement, labels: Record<string, string>): boolean {
  const present = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  switch (requirement.op) {
    case 'exists':
      return present;
    case 'absent':
      return !present;
    case 'in':
      return present && requirement.values.includes(labels[requirement.key]);
    case 'notin':
      return !present || !requirement.values.includes(labels[requirement.key]);
  }
}

interface ParsedRole {
  selector: string;
  requirements: Requirement[];
  carrier: Requirement;
}

/** Each role's parsed selector, kept per set of role selectors (parsed again if a selector changes): roleOf runs for every watch event every recorder sees. */
const parsedRoles = new WeakMap<RoleSelectors, Map<Role, ParsedRole>>();

function parsedRole(roles: RoleSelectors, role: Role): ParsedRole {
  let byRole = parsedRoles.get(roles);
  if (!byRole) parsedRoles.set(roles, (byRole = new Map()));
  let parsed = byRole.get(role);
  if (parsed?.selector !== roles[role]) {
    const requirements = parse(roles[role]);
    byRole.set(role, (parsed = { selector: roles[role], requirements, carrier: idRequirement(requirements) }));
  }
  return parsed;
}

/** Which role an object of `resource` plays and for which sandbox id, or undefined when it plays none. */
export function roleOf(roles: RoleSelectors, resource: RoleResource, labels: Record<string, string> = {}): { role: Role; id: string } | undefined {
  for (const role of ROLES) {
    if (ROLE_RESOURCE[role] !== resource) continue;
    const { requirements, carrier } = parsedRole(roles, role);
    const id = labels[carrier.key];
    if (!id) continue;
    if (requirements.every((r) => (r === carrier ? true : matches(r, labels)))) return { role, id };
  }
  return undefined;
}

/**
 * A selector that lists and watches every object of `resource` any role may pick (the
 * requirements all its roles share, `{id}` as mere presence), or undefined when they share none.
 */
export function watchSelector(roles: RoleSelectors, resource: RoleResource): string | undefined {
  const sets = ROLES.filter((r) => ROLE_RESOURCE[r] === resource).map((r) =>
    parsedRole(roles, r).requirements.map((q) => (q.values.includes(ID_PLACEHOLDER) ? q.key : q.text)),
  );
  const shared = sets[0].filter((text) => sets.every((set) => set.includes(text)));
  return shared.length ? shared.join(',') : undefined;
}
