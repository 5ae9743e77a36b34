import { randomInt } from 'node:crypto';
import { causes, type StatusCause } from '../errors.ts';
import type { ResourceType } from './resource-type.ts';

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const labelPattern = new RegExp(`^${LABEL}$`);
const subdomainPattern = new RegExp(`^${LABEL}(\\.${LABEL})*$`);
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Pattern = new RegExp(`^${DNS1035_LABEL}$`);

/** Which name rule a kind uses, as in kube-apiserver's validation. */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path-segment';

/** The rule a kind's names follow, as kube-apiserver validates them. */
export function nameRuleOf(type: ResourceType): NameRule {
  if (type.group === '' && type.plural === 'services') return 'dns1035';
  if (type.group === 'rbac.authorization.k8s.io') return 'path-segment';
  return type.group === '' && type.plural === 'namespaces' ? 'label' : 'subdomain';
}

/** Field errors for `metadata.name`, worded as the real server's validation messages. */
export function validateName(name: string, rule: NameRule): StatusCause[] {
  const field = 'metadata.name';
  if (rule === 'path-segment') {
    // RBAC objects (`system:discovery`): any name that is a valid URL path segment.
    if (name === '.' || name === '..') return [causes.invalid(field, name, `may not be '${name}'`)];
    const bad = ['/', '%'].find((c) => name.includes(c));
    return bad ? [causes.invalid(field, name, `may not contain '${bad}'`)] : [];
  }
  if (rule === 'dns1035') {
    // Services: their names become DNS labels that must not start with a digit.
    const problems: string[] = [];
    if (name.length > 63) problems.push('must be no more than 63 characters');
    if (!dns1035Pattern.test(name)) {
      problems.push(
        `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL}')`,
      );
    }
    return problems.map((p) => causes.invalid(field, name, p));
  }
  if (rule === 'label') {
    const problems: string[] = [];
    if (name.length > 63) problems.push('must be no more than 63 characters');
    if (!labelPattern.test(name)) {
      problems.push(
        `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${LABEL}')`,
      );
    }
    return problems.map((p) => causes.invalid(field, name, p));
  }
  const problems: string[] = [];
  if (name.length > 253) problems.push('must be no more than 253 characters');
  if (!subdomainPattern.test(name)) {
    problems.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${LABEL}(\\.${LABEL})*')`,
    );
  }
  return problems.map((p) => causes.invalid(field, name, p));
}

// The alphabet kube-apiserver uses for generated suffixes: no vowels, no look-alike digits.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `generateName` plus five random characters, the prefix cut so the whole stays within 63. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return prefix.slice(0, 58) + suffix;
}
