/**
 * Label selectors with kube-apiserver's grammar, matching rules and error wording
 * (k8s.io/apimachinery labels package): the `labelSelector` query parameter and the
 * metav1.LabelSelector objects of Services, policies and workloads. Pure: no store or HTTP dependency.
 */
import { errors } from '../errors.ts';

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** Thrown inside the parser; converted to a 400 at the public boundary. */
class SelectorSyntaxError extends Error {}

// --- validation, worded as apimachinery's validation + field.Error render it -------------------

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameRe = new RegExp(`^${qualifiedNameFmt}$`);
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const dns1123SubdomainFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const qualifiedNameError = regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  qualifiedNameFmt,
  'MyName',
  'my.name',
  '123-abc',
);

/** validation.IsQualifiedName: `[prefix/]name`, prefix a DNS subdomain, name at most 63 chars. */
function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`a qualified name ${qualifiedNameError} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errs.push('prefix part must be non-empty');
    else if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
    else if (!dns1123SubdomainRe.test(prefix)) {
      const msg =
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
      errs.push(`prefix part ${regexError(msg, dns1123SubdomainFmt, 'example.com')}`);
    }
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${qualifiedNameError}`);
  return errs;
}

function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!labelValueRe.test(value)) {
    const msg =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    errs.push(regexError(msg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** field.Invalid(...).Error(): `<path>: Invalid value: <value>: <detail>`; Go prints a nil path as `<nil>`. */
function invalid(path: string, value: string | string[], detail: string): string {
  const shown = typeof value === 'string' ? JSON.stringify(value) : `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}`;
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

/** Go's int64 parse (strconv.ParseInt base 10); undefined when not an int64. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** labels.NewRequirement: all problems at once, joined the way an errors.Aggregate prints them. */
function newRequirement(key: string, operator: Operator, values: string[]): Requirement {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length) errs.push(invalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalid('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length === 1) throw new SelectorSyntaxError(errs[0]);
  if (errs.length > 1) throw new SelectorSyntaxError(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(labels[r.key]);
    case 'notin':
    case '!=':
      // Absent keys satisfy negative requirements, as upstream does.
      return !has || !r.values.includes(labels[r.key]);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      // A label that is not an integer never matches, rather than erroring.
      const actual = has ? parseInt64(labels[r.key]) : undefined;
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function matcherFor(requirements: Requirement[]): LabelMatcher {
  return (labels) => requirements.every((r) => matches(r, labels ?? {}));
}

// --- lexer -------------------------------------------------------------------------------------

type TokenKind = 'id' | 'in' | 'notin' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '>' | '<' | 'eos';
interface Token {
  kind: TokenKind;
  text: string;
}

const specialChars = new Set(['=', '!', '(', ')', ',', '>', '<']);
const whitespace = new Set([' ', '\t', '\r', '\n']);

/** Identifiers are any run of characters that are neither whitespace nor one of `=!(),><`. */
function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (whitespace.has(ch)) {
      i++;
    } else if (specialChars.has(ch)) {
      // `!=` and `==` are the only two-character symbols; everything else is a single char.
      const two = input.slice(i, i + 2);
      const text = two === '!=' || two === '==' ? two : ch;
      tokens.push({ kind: text as TokenKind, text });
      i += text.length;
    } else {
      let j = i;
      while (j < input.length && !whitespace.has(input[j]) && !specialChars.has(input[j])) j++;
      const text = input.slice(i, j);
      tokens.push({ kind: text === 'in' || text === 'notin' ? text : 'id', text });
      i = j;
    }
  }
  tokens.push({ kind: 'eos', text: '' });
  return tokens;
}

// --- parser ------------------------------------------------------------------------------------

/**
 * Recursive descent over the token list. Where a value is expected ("values" context) the
 * keywords `in`/`notin` are plain identifiers, so `in=notin` is a valid requirement.
 */
class LabelParser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(values: boolean): Token {
    const t = this.tokens[this.pos];
    return values && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', text: t.text } : t;
  }

  private next(values: boolean): Token {
    const t = this.peek(values);
    if (t.kind !== 'eos') this.pos++;
    return t;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const t = this.peek(true);
      if (t.kind === 'eos') return requirements;
      if (t.kind !== 'id' && t.kind !== '!') {
        throw new SelectorSyntaxError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      }
      try {
        requirements.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const sep = this.next(true);
      if (sep.kind === 'eos') return requirements;
      if (sep.kind !== ',') throw new SelectorSyntaxError(`found '${sep.text}', expected: ',' or 'end of string'`);
      const after = this.peek(true);
      if (after.kind !== 'id' && after.kind !== '!') {
        throw new SelectorSyntaxError(`found '${after.text}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    let t = this.next(true);
    let operator: Operator | undefined;
    if (t.kind === '!') {
      operator = '!';
      t = this.next(true);
    }
    if (t.kind !== 'id') throw new SelectorSyntaxError(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length) throw new SelectorSyntaxError(invalid('<nil>', key, keyErrs.join('; ')));
    // A bare key (or `!key`) ends at `,` or the end; anything else after `!key` fails in parse().
    if (operator === '!') return newRequirement(key, '!', []);
    const following = this.peek(true).kind;
    if (following === 'eos' || following === ',') return newRequirement(key, 'exists', []);

    const op = this.next(false);
    const operators: Partial<Record<TokenKind, Operator>> = {
      in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt',
    };
    operator = operators[op.kind];
    if (!operator) throw new SelectorSyntaxError(`found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = operator === 'in' || operator === 'notin' ? this.valueList() : this.exactValue();
    return newRequirement(key, operator, [...new Set(values)].sort());
  }

  private valueList(): string[] {
    const open = this.next(true);
    if (open.kind !== '(') throw new SelectorSyntaxError(`found '${open.text}' expected: '('`);
    const first = this.peek(true);
    if (first.kind === ')') {
      // `in ()` means the single empty value, as upstream does.
      this.next(true);
      return [''];
    }
    if (first.kind !== 'id' && first.kind !== ',') {
      throw new SelectorSyntaxError(`found '${first.text}', expected: ',', ')' or identifier`);
    }
    // Empty slots (`(,a)`, `(a,,b)`, `(a,)`) stand for the empty value.
    const values: string[] = [];
    let expectValue = true;
    for (;;) {
      const t = this.next(true);
      if (t.kind === 'id' && expectValue) {
        values.push(t.text);
        expectValue = false;
      } else if (t.kind === ',') {
        if (expectValue) values.push('');
        expectValue = true;
      } else if (t.kind === ')') {
        if (expectValue) values.push('');
        return values;
      } else {
        const expected = expectValue ? "',', or identifier" : "',' or ')'";
        throw new SelectorSyntaxError(`found '${t.text}', expected: ${expected}`);
      }
    }
  }

  private exactValue(): string[] {
    const t = this.peek(true);
    // `a=` and `a!=` compare against the empty value.
    if (t.kind === 'eos' || t.kind === ',') return [''];
    this.next(true);
    if (t.kind !== 'id') throw new SelectorSyntaxError(`found '${t.text}', expected: identifier`);
    return [t.text];
  }
}

/** Parses the `labelSelector` query parameter. Invalid input throws a 400 BadRequest. */
export function parseLabelSelector(selector: string): LabelMatcher {
  try {
    return matcherFor(new LabelParser(lex(selector)).parse());
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw errors.badRequest(e.message);
    throw e;
  }
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * metav1.LabelSelectorAsSelector: `{}` selects everything; a missing selector selects nothing
 * unless `nullMatches` (callers decide, since the meaning of "no selector" differs by API).
 */
export function labelSelectorFromObject(
  selector: LabelSelectorObject | null | undefined,
  options: { nullMatches?: boolean } = {},
): LabelMatcher {
  if (selector == null) return () => options.nullMatches === true;
  const operators: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };
  try {
    const requirements = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => newRequirement(k, '=', [v]));
    for (const expr of selector.matchExpressions ?? []) {
      const op = operators[expr.operator];
      if (!op) throw new SelectorSyntaxError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      requirements.push(newRequirement(expr.key, op, [...(expr.values ?? [])]));
    }
    return matcherFor(requirements);
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw errors.badRequest(e.message);
    throw e;
  }
}
