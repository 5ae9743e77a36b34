/**
 * Reads a fault schedule (JSON, or YAML, which the `yaml` package reads as a superset) and checks
 * it: first its shape against schedule.schema.json (with ajv), then what a schema cannot say —
 * ids unique, `after` triggers and stale views naming items that exist (without a cycle), and
 * no item whose trigger or heal could never happen. Every error names the item and the field,
 * and says what to write instead.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import type { ObjectRole, Schedule, ScheduleItem, ScheduledRequestMatch } from './schedule.ts';
import { KUBE_VERBS } from './schedule.ts';

const SCHEMA = JSON.parse(readFileSync(new URL('./schedule.schema.json', import.meta.url), 'utf8')) as object;
let compiled: ValidateFunction | undefined;

/** The schema's validator, compiled on first use: compiling costs a test worker ~0.3 s of CPU, and most tests check no schedule. */
function validator(): ValidateFunction {
  compiled ??= new Ajv({ discriminator: true, allErrors: true, strict: true, strictRequired: false }).compile(SCHEMA);
  return compiled;
}

export class ScheduleError extends Error {
  constructor(source: string, problems: string[]) {
    super(`${source}: not a valid fault schedule:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee docs/faults.md, "Fault schedules", for the format.`);
    this.name = 'ScheduleError';
  }
}

/** Reads and checks the schedule at `path`. */
export function readSchedule(path: string): Schedule {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScheduleError(path, [`cannot read it (${(error as Error).message})`]);
  }
  return parseSchedule(text, path);
}

/** Parses and checks a schedule's text; `source` names it in errors. */
export function parseSchedule(text: string, source = 'schedule'): Schedule {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ScheduleError(source, [`not JSON or YAML: ${(error as Error).message.split('\n')[0]}`]);
  }
  return checkSchedule(value, source);
}

/** Checks a schedule already parsed (one a scenario declares in code, say). */
export function checkSchedule(value: unknown, source = 'schedule'): Schedule {
  const validate = validator();
  if (!validate(value)) throw new ScheduleError(source, [describeSchemaError(mostSpecific(validate.errors!), value)]);
  const schedule = value as Schedule;
  const problems = schedule.items.flatMap((item, index) => itemProblems(schedule, item, index));
  problems.push(...afterCycles(schedule));
  if (problems.length) throw new ScheduleError(source, problems);
  return schedule;
}

/**
 * The error that says most: the deepest one, and of those not a `oneOf` summary or the first
 * branch's mismatch (ajv reports every branch of a `oneOf`; the one that went deepest is the
 * branch the author meant).
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject {
  const depth = (e: ErrorObject) => e.instancePath.split('/').length * 4 + (e.keyword === 'oneOf' ? 0 : e.keyword === 'const' ? 1 : 2);
  return [...errors].sort((a, b) => depth(b) - depth(a))[0];
}

/** `items[2] (id "hold").trigger.match.verb: must be one of get, list, …`. */
function describeSchemaError(error: ErrorObject, value: unknown): string {
  const segments = error.instancePath.split('/').slice(1);
  let where = '';
  let at: unknown = value;
  for (const segment of segments) {
    at = (at as Record<string, unknown> | undefined)?.[segment];
    if (/^\d+$/.test(segment)) {
      const id = (at as { id?: unknown } | undefined)?.id;
      where += `[${segment}]${where === 'items' && typeof id === 'string' ? ` (id "${id}")` : ''}`;
    } else where += where ? `.${segment}` : segment;
  }
  const field = where || '(the document)';
  const params = error.params as Record<string, unknown>;
  if (field.endsWith('.heal') && ['type', 'const', 'oneOf'].includes(error.keyword)) return `${field}: must be "end", {"afterMs": N} or {"afterRequests": N}, got ${JSON.stringify(at)}`;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field "${String(params.additionalProperty)}"`;
    case 'required':
      return `${field}: missing field "${String(params.missingProperty)}"`;
    case 'enum':
      return `${field}: ${JSON.stringify(at)} is not one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${field}: must be ${JSON.stringify(params.allowedValue)}, got ${JSON.stringify(at)}`;
    case 'discriminator':
      return params.error === 'mapping'
        ? `${field}.${String(params.tag)}: unknown ${String(params.tag) === 'kind' ? 'fault kind' : 'trigger'} ${JSON.stringify(params.tagValue)}; known: ${knownTags(String(params.tag))}`
        : `${field}: missing field "${String(params.tag)}"`;
    default:
      return `${field}: ${error.message ?? error.keyword}`;
  }
}

function knownTags(tag: string): string {
  const branches = ((SCHEMA as { definitions: Record<string, { oneOf: { properties: Record<string, { const: string }> }[] }> }).definitions[tag === 'kind' ? 'fault' : 'trigger']).oneOf;
  return branches.map((b) => b.properties[tag].const).join(', ');
}

const POD_ROLES: readonly ObjectRole[] = ['supervisorPod', 'workloadPod'];
const RESOURCE_OF_ROLE: Record<ObjectRole, string> = { sandbox: 'sandboxes', supervisorPod: 'pods', workloadPod: 'pods', generationSecrets: 'secrets' };
const REQUEST_KINDS = new Set(['latency', 'error', 'reset', 'conflict', 'stale-reads', 'watch-close', 'watch-hold', 'watch-expire']);
const WATCH_KINDS = new Set(['watch-close', 'watch-hold', 'watch-expire']);
/** Kinds that happen at once: nothing stays in force to heal. */
const INSTANT_KINDS = new Set(['crash', 'replica-start']);
const READS = new Set(['get', 'list', 'watch']);

function itemProblems(schedule: Schedule, item: ScheduleItem, index: number): string[] {
  const at = `items[${index}] (id "${item.id}")`;
  const problems: string[] = [];
  const ids = schedule.items.map((i) => i.id);
  if (ids.indexOf(item.id) !== index) problems.push(`${at}.id: "${item.id}" is used by items[${ids.indexOf(item.id)}] too; ids must be unique`);
  const { trigger, fault, heal } = item;
  if (trigger.on === 'after' && !ids.includes(trigger.item)) problems.push(`${at}.trigger.item: no item "${trigger.item}"; known: ${ids.join(', ')}`);
  if (trigger.on === 'after' && trigger.item === item.id) problems.push(`${at}.trigger.item: an item cannot fire after itself`);
  if (trigger.on === 'request') {
    problems.push(...matchProblems(`${at}.trigger.match`, trigger.match));
    if (trigger.at === 'answered' && verbsOf(trigger.match).every((v) => v === 'watch')) problems.push(`${at}.trigger.at: a watch is never "answered" (it streams); use "received"`);
  }
  if (trigger.on === 'event' && (trigger.change === 'suspended' || trigger.change === 'resumed') && trigger.object.role !== 'sandbox') {
    problems.push(`${at}.trigger.change: only a Sandbox is ${trigger.change}; this trigger names a ${trigger.object.role} and could never fire (use role "sandbox")`);
  }
  if ('match' in fault && fault.match) problems.push(...matchProblems(`${at}.fault.match`, fault.match));
  if (WATCH_KINDS.has(fault.kind) && 'match' in fault && fault.match && !verbsOf(fault.match).includes('watch')) {
    problems.push(`${at}.fault.match.verb: a ${fault.kind} acts on watch streams; its match must allow the verb "watch"`);
  }
  if (fault.kind === 'stale-reads') {
    if (typeof fault.view === 'object' && !ids.includes(fault.view.item)) problems.push(`${at}.fault.view.item: no item "${fault.view.item}"; known: ${ids.join(', ')}`);
    if (fault.match && verbsOf(fault.match).every((v) => !READS.has(v))) problems.push(`${at}.fault.match.verb: stale reads answer get, list and watch; this match names none`);
  }
  if (fault.kind === 'crash' && fault.replica !== undefined && trigger.on === 'request') {
    problems.push(`${at}.fault.replica: with a request trigger the replica that sent the request is crashed; leave "replica" out, or use another trigger`);
  }
  if (fault.kind === 'container-stop') {
    if (!POD_ROLES.includes(fault.object.role)) problems.push(`${at}.fault.object.role: containers stop in Pods; name "supervisorPod" or "workloadPod", not "${fault.object.role}"`);
    if ((fault.delayMs === undefined) === (fault.ignoreSigterm === undefined)) problems.push(`${at}.fault: give exactly one of "delayMs" (a slow stop) or "ignoreSigterm": true`);
  }
  if (heal && typeof heal === 'object' && 'afterRequests' in heal && !REQUEST_KINDS.has(fault.kind)) {
    problems.push(`${at}.heal.afterRequests: a ${fault.kind} does not act on requests, so it would never heal that way; use "afterMs" or "end"`);
  }
  if (INSTANT_KINDS.has(fault.kind) && heal !== undefined && heal !== 'end') {
    problems.push(`${at}.heal: a ${fault.kind} happens at once and has nothing to heal; leave "heal" out`);
  }
  return problems;
}

function verbsOf(match: ScheduledRequestMatch): string[] {
  if (match.verb === undefined) return [...KUBE_VERBS];
  return Array.isArray(match.verb) ? match.verb : [match.verb];
}

/** A matcher that could never match anything is an error: the item would never fire or never act. */
function matchProblems(at: string, match: ScheduledRequestMatch): string[] {
  const problems: string[] = [];
  if (match.writes && verbsOf(match).every((v) => READS.has(v) || v === 'connect')) problems.push(`${at}: "writes": true with only read verbs (${verbsOf(match).join(', ')}) matches nothing`);
  if (match.object && match.resource) {
    const expected = RESOURCE_OF_ROLE[match.object.role];
    if (match.resource.split('.')[0] !== expected) problems.push(`${at}.resource: a ${match.object.role} is one of the ${expected}, not "${match.resource}"; drop "resource" or fix it`);
  }
  return problems;
}

/** `after` chains that loop: none of their items could ever fire. */
function afterCycles(schedule: Schedule): string[] {
  const next = new Map(schedule.items.flatMap((i) => (i.trigger.on === 'after' ? [[i.id, i.trigger.item] as const] : [])));
  const reported = new Set<string>();
  const problems: string[] = [];
  for (const start of next.keys()) {
    const path: string[] = [];
    let at: string | undefined = start;
    while (at !== undefined && next.has(at) && !path.includes(at)) {
      path.push(at);
      at = next.get(at);
    }
    if (at !== undefined && path.includes(at) && !reported.has(at)) {
      const loop = path.slice(path.indexOf(at));
      for (const id of loop) reported.add(id);
      if (loop.length > 1) problems.push(`items ${loop.map((id) => `"${id}"`).join(' -> ')} -> "${at}": their "after" triggers wait on each other, so none could ever fire`);
    }
  }
  return problems;
}
