/**
 * What the reference driver reads from a `DriverSandbox` (the caller's id, name, workspace, the
 * spec's command and environment, the template's image and `driver_config`), checked in one place
 * so that ValidateSandboxCreate and CreateSandbox refuse the same things with the same words.
 */
import { DriverError, type DriverSandbox, type JsonValue, type WorkspaceMode } from '../compute-driver.ts';
import { crName } from './names.ts';

/** The keys this driver reads from `spec.template.driver_config`; any other key is refused. */
export const DRIVER_CONFIG = {
  supervisorGrace: 'supervisorTerminationGracePeriodSeconds',
  workloadGrace: 'workloadTerminationGracePeriodSeconds',
} as const;

/** One sandbox's launch inputs, as the driver renders and stores them. */
export interface LaunchSpec {
  name: string;
  workspace?: string;
  command: string[];
  environment?: Record<string, string>;
  /** The workload image, when the template names one (else the driver's). */
  image?: string;
  /** Overrides the driver's supervisor termination grace period for this sandbox. */
  supervisorGraceSeconds?: number;
  /** Overrides the workload's termination grace period. */
  workloadGraceSeconds?: number;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A label value that is also safe inside Pod, Service and Secret names once lowercased. */
const SANDBOX_ID = /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$/;
/** `os-supervisor-<id>` must fit a 63-character Pod name. */
export const MAX_SANDBOX_ID_LENGTH = 63 - 'os-supervisor-'.length;

export interface SpecLimits {
  workspaceMode: WorkspaceMode;
  defaultWorkspace: string;
  /** The namespace a workspace maps to in this mode (managed: `openshell-{gateway}-{workspace}`). */
  namespaceOf(workspace: string): string;
}

function grace(config: Record<string, JsonValue>, key: string, problems: string[]): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    problems.push(`driver_config.${key} must be a non-negative integer, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return value;
}

/** The sandbox's launch inputs; INVALID_ARGUMENT listing every problem. Sends no request. */
export function launchSpec(sandbox: DriverSandbox, limits: SpecLimits): LaunchSpec {
  const problems: string[] = [];
  const { id, name } = sandbox;
  const workspace = sandbox.workspace || limits.defaultWorkspace;
  if (!id) problems.push('sandbox id is required');
  else if (!SANDBOX_ID.test(id)) problems.push(`sandbox id "${id}" must be a label value of letters, digits and '-', starting and ending with a letter or digit`);
  else if (id.length > MAX_SANDBOX_ID_LENGTH) problems.push(`sandbox id "${id}" is ${id.length} characters; the limit is ${MAX_SANDBOX_ID_LENGTH} (the supervisor Pod is named os-supervisor-{id})`);
  if (!name) problems.push('name is required');
  else if (!DNS_LABEL.test(name)) problems.push(`name "${name}" must be a DNS-1123 label: lower case alphanumeric characters or '-', starting and ending with an alphanumeric character`);
  if (!DNS_LABEL.test(workspace)) problems.push(`workspace "${workspace}" must be a DNS-1123 label`);
  const cr = crName(limits.workspaceMode, workspace, name ?? '');
  if (cr.length > 63) problems.push(`sandbox name "${cr}" is ${cr.length} characters; the limit is 63${limits.workspaceMode === 'shared' ? ' (shared mode names it {workspace}--{name})' : ''}`);
  if (limits.workspaceMode === 'managed') {
    const namespace = limits.namespaceOf(workspace);
    if (namespace.length > 63) problems.push(`workspace "${workspace}" would be namespace "${namespace}", ${namespace.length} characters; the limit is 63 (managed mode names it openshell-{gateway}-{workspace})`);
  }
  const spec = sandbox.spec ?? {};
  const command = spec.command ?? [];
  if (!Array.isArray(command) || command.some((c) => typeof c !== 'string')) problems.push('command must be a list of strings');
  const config = spec.template?.driverConfig ?? {};
  const known = Object.values(DRIVER_CONFIG) as string[];
  for (const key of Object.keys(config)) if (!known.includes(key)) problems.push(`driver_config.${key} is not a setting of this driver (it reads ${known.join(', ')})`);
  const supervisorGraceSeconds = grace(config, DRIVER_CONFIG.supervisorGrace, problems);
  const workloadGraceSeconds = grace(config, DRIVER_CONFIG.workloadGrace, problems);
  if (problems.length) throw new DriverError('INVALID_ARGUMENT', `invalid sandbox: ${problems.join('; ')}`);
  const environment = { ...spec.template?.environment, ...spec.environment };
  return Object.fromEntries(
    Object.entries({
      name,
      workspace,
      command,
      environment: Object.keys(environment).length ? environment : undefined,
      image: spec.template?.image || undefined,
      supervisorGraceSeconds,
      workloadGraceSeconds,
    }).filter(([, v]) => v !== undefined),
  ) as unknown as LaunchSpec;
}
