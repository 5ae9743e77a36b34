/**
 * Field selectors with kube-apiserver's grammar, matching rules and error wording
 * (k8s.io/apimachinery fields package), over the fields each resource makes selectable.
 * Pure: no store or HTTP dependency.
 */
import { errors } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';

export type FieldMatcher = (obj: KubeObject) => boolean;

export const commonFieldSelectors: readonly string[] = ['metadata.name', 'metadata.namespace'];

/** Extra fields per resource plural, from each type's field label conversion func upstream. */
export const fieldSelectorsByResource: Record<string, readonly string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
    'spec.host', // legacy alias of spec.nodeName, still accepted
  ],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  secrets: ['type'],
  namespaces: ['status.phase', 'name'],
  nodes: ['spec.unschedulable'],
  services: ['spec.clusterIP', 'spec.type'],
  replicationcontrollers: ['status.replicas'],
  replicasets: ['status.replicas'],
  jobs: ['status.successful'],
  certificatesigningrequests: ['spec.signerName'],
};

function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : fallback;
}

/**
 * Fields whose selectable value is not simply the string at that path: upstream renders Go
 * zero values (`false`, `0`) for unset bools/ints and maps a few names to other fields.
 */
const fieldValues: Record<string, (obj: KubeObject) => string> = {
  'spec.host': (o) => text(at(o, 'spec.nodeName')),
  'spec.hostNetwork': (o) => text(at(o, 'spec.hostNetwork'), 'false'),
  'spec.unschedulable': (o) => text(at(o, 'spec.unschedulable'), 'false'),
  'status.podIP': (o) => {
    const ips = at(o, 'status.podIPs');
    return text(at(o, 'status.podIP')) || (Array.isArray(ips) ? text(at(ips[0], 'ip')) : '');
  },
  'status.replicas': (o) => text(at(o, 'status.replicas'), '0'),
  'status.successful': (o) => text(at(o, 'status.succeeded'), '0'),
  source: (o) => text(at(o, 'source.component')) || text(at(o, 'reportingComponent')),
  name: (o) => text(o.metadata?.name),
};

function fieldValue(obj: KubeObject, field: string): string {
  return fieldValues[field]?.(obj) ?? text(at(obj, field));
}

/** fields.UnescapeValue: only `\\`, `\,` and `\=` are escapes; bare `,` or `=` in a value is an error. */
function unescapeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\') {
      const next = value[++i];
      if (next !== '\\' && next !== ',' && next !== '=') {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${next ?? ''}`);
      }
      out += next;
    } else if (c === ',' || c === '=') {
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  return out;
}

/** Splits on commas that are not backslash-escaped, keeping the escapes for unescapeValue. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    if (selector[i] === '\\') i++;
    else if (selector[i] === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/**
 * Parses the `fieldSelector` query parameter against the fields `fields` lists. Unlike labels,
 * nothing is trimmed: `a = b` names the field `a ` (upstream behaves the same).
 */
export function parseFieldSelector(selector: string, fields: readonly string[]): FieldMatcher {
  const terms: { field: string; negate: boolean; value: string }[] = [];
  // Sorted like upstream so that, of several bad terms, the same one is reported.
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    // The first operator occurrence splits the term; `!=` and `==` win over `=` at the same spot.
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!m) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    terms.push({ field: m[1], negate: m[2] === '!=', value: unescapeValue(m[3]) });
  }
  // Upstream checks support only after the whole selector parsed.
  for (const { field } of terms) {
    if (!commonFieldSelectors.includes(field) && !fields.includes(field)) {
      throw errors.badRequest(`field label not supported: ${field}`);
    }
  }
  return (obj) => terms.every((t) => (fieldValue(obj, t.field) === t.value) !== t.negate);
}
