/**
 * Checks of a fault hook's JSON body. Each refusal is a 400 whose message names the field, what
 * was wrong with it and the body to send instead, since the caller is a harness author reading
 * it in a failed test, not a client that retries.
 */
import { errors } from '../errors.ts';
import { isPlainObject } from '../types.ts';

/** The longest delay a hook takes: an hour, past any test and inside setTimeout's range. */
export const MAX_FAULT_MS = 3_600_000;

/** A fault body for `what` (`controller fault`), whose fields are `allowed`; `usage` is what to send. */
export class FaultBody {
  constructor(
    private readonly what: string,
    private readonly usage: string,
  ) {}

  /** The body as an object with only `allowed` fields. */
  object(body: unknown, allowed: readonly string[], field?: string): Record<string, unknown> {
    const where = field ? `: "${field}"` : '';
    if (body === undefined && field) throw this.refuse(field, `${this.what}: "${field}" is required, a JSON object`);
    if (!isPlainObject(body)) throw this.refuse(field ?? '', `${this.what}${where} must be a JSON object, got ${JSON.stringify(body)}`);
    const extra = Object.keys(body).find((key) => !allowed.includes(key));
    if (extra !== undefined) throw this.refuse(field ? `${field}.${extra}` : extra, `${this.what}: unknown field "${field ? `${field}.` : ''}${extra}"`);
    return body;
  }

  /** The one field of `choices` the body has; both or neither is refused. */
  oneOf(body: Record<string, unknown>, choices: readonly string[], field?: string): string {
    const present = choices.filter((choice) => body[choice] !== undefined);
    const where = field ? `${field}: ` : '';
    if (present.length !== 1) {
      const found = present.length ? `both ${present.map((c) => `"${c}"`).join(' and ')}` : 'neither';
      throw this.refuse(field ?? choices.join('|'), `${this.what}: ${where}exactly one of ${choices.map((c) => `"${c}"`).join(' or ')} is needed, got ${found}`);
    }
    return present[0];
  }

  /** A whole number in [min, max]. */
  whole(value: unknown, field: string, min: number, max: number): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw this.refuse(field, `${this.what}: "${field}" must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  /** A non-empty string. */
  name(value: unknown, field: string): string {
    if (typeof value !== 'string' || !value) throw this.refuse(field, `${this.what}: "${field}" is required, a non-empty string; got ${JSON.stringify(value)}`);
    return value;
  }

  /** Exactly `true`. */
  isTrue(value: unknown, field: string): true {
    if (value !== true) throw this.refuse(field, `${this.what}: "${field}" can only be true, got ${JSON.stringify(value)}`);
    return true;
  }

  private refuse(field: string, message: string) {
    return errors.badRequest(`${message}; send ${this.usage}`, [{ reason: 'FieldValueInvalid', field, message }]);
  }
}
