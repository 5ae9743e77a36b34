/**
 * What a driver declares it supports, so that a scenario needing something it does not support
 * is skipped with the reason instead of failing (as csi-sanity skips on a driver's capabilities and
 * Gateway API implementations declare supported and exempt features). Declared in
 * `conformance.yaml` (`capabilities:`) or with `--capabilities a,b`; a run that declares nothing
 * claims every capability, as the reference driver does.
 *
 * A lane needs its workspace mode, its Sandbox API version and, with more than one driver
 * replica, `replicas`; a scenario needs what its tags name (`{ tag: ['@restart'] }`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Lane } from './lane-declaration.ts';

export const CAPABILITIES = {
  'workspace-mode/shared': 'sandboxes of every workspace in the driver namespace (the shared-* and external lanes)',
  'workspace-mode/managed': 'a namespace per workspace, created by the driver (the managed lane)',
  'workspace-mode/operator': 'only namespaces an operator labelled (the operator lane)',
  'sandbox-api/v1alpha1': 'Agent Sandbox v1alpha1 (`spec.replicas`; Agent Sandbox v0.4.x)',
  'sandbox-api/v1beta1': 'Agent Sandbox v1beta1 (`spec.operatingMode`; Agent Sandbox v0.5.x)',
  replicas: 'several replicas of the driver serving one gateway (the ha lane)',
  restart: 'the driver SIGKILLed mid-operation and started again (crash scenarios; tag @restart)',
  faults: 'fault schedules between the driver and the API server (scenarios under faults; tag @faults)',
} as const;

export type Capability = keyof typeof CAPABILITIES;
export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as Capability[];

/** The capabilities a run declares; `declared: 'all'` when nothing was declared. */
export interface DeclaredCapabilities {
  declared: Capability[] | 'all';
  /** Where the declaration came from (`conformance.yaml`, `--capabilities`), for the skip reason. */
  source: string;
}

/** The driver's identity as `conformance.yaml` states it (else the driver's own GetCapabilities answer). */
export interface ConformanceFile {
  driver?: { name?: string; version?: string };
  capabilities?: Capability[];
}

/** Checks a capability list, naming the unknown ones and the known ones. */
export function parseCapabilities(list: readonly unknown[], source: string): Capability[] {
  const unknown = list.filter((c) => typeof c !== 'string' || !(c in CAPABILITIES));
  if (unknown.length) throw new Error(`${source}: unknown capabilit${unknown.length > 1 ? 'ies' : 'y'} ${unknown.map((c) => JSON.stringify(c)).join(', ')}; known: ${CAPABILITY_NAMES.join(', ')}`);
  return [...new Set(list as Capability[])];
}

/** Reads `conformance.yaml`: `driver: {name, version}` and `capabilities: [...]`, each optional; anything else is refused. */
export function readConformanceFile(path: string): ConformanceFile {
  if (!existsSync(path)) throw new Error(`${path}: no such file`);
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: not YAML (${(error as Error).message})`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${path}: expected a mapping with driver: and capabilities:`);
  const { driver, capabilities, ...rest } = doc as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length) throw new Error(`${path}: unknown key${extra.length > 1 ? 's' : ''} ${extra.join(', ')} (known: driver, capabilities)`);
  const out: ConformanceFile = {};
  if (driver !== undefined) {
    if (typeof driver !== 'object' || driver === null || Array.isArray(driver)) throw new Error(`${path}: driver: must be a mapping with name: and version:`);
    const { name, version } = driver as Record<string, unknown>;
    if ((name !== undefined && typeof name !== 'string') || (version !== undefined && typeof version !== 'string' && typeof version !== 'number')) throw new Error(`${path}: driver.name and driver.version must be strings`);
    out.driver = { ...(name !== undefined && { name }), ...(version !== undefined && { version: String(version) }) };
  }
  if (capabilities !== undefined) {
    if (!Array.isArray(capabilities)) throw new Error(`${path}: capabilities: must be a list (known: ${CAPABILITY_NAMES.join(', ')})`);
    out.capabilities = parseCapabilities(capabilities, `${path}: capabilities`);
  }
  return out;
}

/** What a lane needs of the driver. */
export function laneNeeds(lane: Lane): Capability[] {
  return [`workspace-mode/${lane.driver.workspaceMode}`, `sandbox-api/${lane.agentSandbox.apiVersion}`, ...((lane.driver.replicas ?? 1) > 1 ? ['replicas' as const] : [])] as Capability[];
}

/** What a test's tags ask for (`@restart`, `@faults`, `@replicas`); other tags are not capabilities. */
export function tagNeeds(tags: readonly string[]): Capability[] {
  return tags.map((t) => t.replace(/^@/, '')).filter((t): t is Capability => t in CAPABILITIES);
}

/** Why a test is skipped for capabilities the run does not declare, or undefined when it may run. */
export function undeclaredReason(lane: Lane, tags: readonly string[], capabilities: DeclaredCapabilities | undefined): string | undefined {
  if (!capabilities || capabilities.declared === 'all') return undefined;
  const declared = capabilities.declared;
  const missing = [...new Set([...laneNeeds(lane), ...tagNeeds(tags)])].filter((c) => !declared.includes(c));
  if (!missing.length) return undefined;
  return `capability not declared: ${missing.map((c) => `${c} (${CAPABILITIES[c]})`).join(', ')}; the driver declares ${declared.length ? declared.join(', ') : 'none'} (${capabilities.source})`;
}

/** The capabilities a run does not declare: the report's `exempt`. */
export function exemptCapabilities(capabilities: DeclaredCapabilities | undefined): Capability[] {
  if (!capabilities || capabilities.declared === 'all') return [];
  const declared = capabilities.declared;
  return CAPABILITY_NAMES.filter((c) => !declared.includes(c));
}
