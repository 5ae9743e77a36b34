/**
 * The wire side of the gRPC transport: loads compute_driver.proto, maps `DriverErrorCode` to and
 * from gRPC status codes, and converts between the TypeScript types of compute-driver.ts and the
 * proto messages (as @grpc/proto-loader presents them: snake_case keys, enums as names, int64 as
 * numbers, absent scalars as undefined).
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  DriverError,
  type DriverCapabilities,
  type DriverCondition,
  type DriverErrorCode,
  type DriverEvent,
  type DriverSandbox,
  type DriverVariant,
  type PublicPhase,
  type SandboxSpec,
  type WorkspaceMode,
} from '../compute-driver.ts';

export const PROTO_PATH = fileURLToPath(new URL('./compute_driver.proto', import.meta.url));
export const SERVICE_NAME = 'openshell.compute.v1.ComputeDriver';
/** Trailer set on every error the driver itself raised; its value is the `DriverErrorCode`. */
export const DRIVER_ERROR_TRAILER = 'x-compute-driver-error';

const definition = protoLoader.loadSync(PROTO_PATH, {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  arrays: true,
  objects: true,
  oneofs: true,
});
const loaded = grpc.loadPackageDefinition(definition) as unknown as {
  openshell: { compute: { v1: { ComputeDriver: grpc.ServiceClientConstructor } } };
};
export const ComputeDriverService = loaded.openshell.compute.v1.ComputeDriver;

// ---- error codes ----------------------------------------------------------------------------

const STATUS_OF: Record<DriverErrorCode, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  CANCELLED: grpc.status.CANCELLED,
  INTERNAL: grpc.status.INTERNAL,
};
const CODE_OF = new Map<grpc.status, DriverErrorCode>(Object.entries(STATUS_OF).map(([code, status]) => [status, code as DriverErrorCode]));

export function statusOf(code: DriverErrorCode): grpc.status {
  return STATUS_OF[code];
}

/** The `DriverErrorCode` a gRPC status maps back to, if it is one the driver contract uses. */
export function driverCodeOf(status: grpc.status): DriverErrorCode | undefined {
  return CODE_OF.get(status);
}

export function isDriverErrorCode(value: unknown): value is DriverErrorCode {
  return typeof value === 'string' && value in STATUS_OF;
}

// ---- wire shapes ----------------------------------------------------------------------------

export interface WireSpec {
  name?: string;
  workspace?: string;
  command?: string[];
  environment?: Record<string, string>;
  supervisor_grace_seconds?: number;
  workload_grace_seconds?: number;
}

export interface WireCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  last_transition_time?: string;
}

export interface WireSandbox {
  id?: string;
  name?: string;
  workspace?: string;
  namespace?: string;
  phase?: string;
  conditions?: WireCondition[];
  deleting?: boolean;
  runtime_identity?: string;
  objects?: {
    sandbox?: string;
    workload_pod?: string;
    supervisor_pod?: string;
    boundary_service?: string;
    generation?: string;
    secrets?: string[];
  };
}

export interface WireCapabilities {
  driver_name?: string;
  driver_version?: string;
  agent_sandbox_api_version?: string;
  workspace_mode?: string;
  variant?: string;
  gateway_manages_lifecycle?: boolean;
}

export interface WireEvent {
  payload?: 'sandbox' | 'deleted';
  sandbox?: WireSandbox;
  deleted?: { sandbox_id?: string };
}

// ---- enums ----------------------------------------------------------------------------------

function enumCodec<T extends string>(prefix: string, label: string, values: readonly T[]) {
  const toWire = (value: T) => `${prefix}_${value.toUpperCase().replace(/-/g, '_')}`;
  const fromWire = new Map(values.map((v) => [toWire(v), v]));
  return {
    encode(value: T): string {
      if (!values.includes(value)) throw new DriverError('INTERNAL', `the compute driver returned ${label} "${value}", which is not one of ${values.join(', ')}`);
      return toWire(value);
    },
    decode(wire: string | undefined): T {
      const value = wire === undefined ? undefined : fromWire.get(wire);
      if (value === undefined) throw new DriverError('INTERNAL', `the compute driver sent ${label} ${wire ?? '(unset)'}, which this client does not know`);
      return value;
    },
  };
}

const PHASES = ['Provisioning', 'Ready', 'Stopping', 'Stopped', 'Starting', 'Deleting', 'Error'] as const satisfies readonly PublicPhase[];
const MODES = ['shared', 'managed', 'operator'] as const satisfies readonly WorkspaceMode[];
const VARIANTS = ['reference', 'suspend-first'] as const satisfies readonly DriverVariant[];
const phase = enumCodec<PublicPhase>('SANDBOX_PHASE', 'sandbox phase', PHASES);
const mode = enumCodec<WorkspaceMode>('WORKSPACE_MODE', 'workspace mode', MODES);
const variant = enumCodec<DriverVariant>('DRIVER_VARIANT', 'driver variant', VARIANTS);

// ---- messages -------------------------------------------------------------------------------

/** Drops keys whose value is undefined, so decoded objects compare equal to what was sent. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function encodeGrace(field: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  // int64 on the wire: anything else would be silently truncated, so refuse it here.
  if (!Number.isSafeInteger(value)) throw new DriverError('INVALID_ARGUMENT', `invalid sandbox: ${field} must be a non-negative integer`);
  return value;
}

export function encodeSpec(spec: SandboxSpec): WireSpec {
  return compact({
    name: spec.name,
    workspace: spec.workspace,
    command: spec.command,
    environment: spec.environment,
    supervisor_grace_seconds: encodeGrace('supervisorGraceSeconds', spec.supervisorGraceSeconds),
    workload_grace_seconds: encodeGrace('workloadGraceSeconds', spec.workloadGraceSeconds),
  });
}

export function decodeSpec(wire: WireSpec | undefined): SandboxSpec {
  const environment = wire?.environment ?? {};
  return compact({
    name: wire?.name ?? '',
    workspace: wire?.workspace,
    command: wire?.command ?? [],
    // proto3 maps cannot tell {} from absent; absent is the spec's own default.
    environment: Object.keys(environment).length ? { ...environment } : undefined,
    supervisorGraceSeconds: wire?.supervisor_grace_seconds,
    workloadGraceSeconds: wire?.workload_grace_seconds,
  });
}

function encodeCondition(c: DriverCondition): WireCondition {
  return compact({ type: c.type, status: c.status, reason: c.reason, message: c.message, last_transition_time: c.lastTransitionTime });
}

function decodeCondition(w: WireCondition): DriverCondition {
  return compact({
    type: w.type ?? '',
    status: (w.status ?? 'Unknown') as DriverCondition['status'],
    reason: w.reason,
    message: w.message,
    lastTransitionTime: w.last_transition_time,
  });
}

export function encodeSandbox(s: DriverSandbox): WireSandbox {
  return compact({
    id: s.id,
    name: s.name,
    workspace: s.workspace,
    namespace: s.namespace,
    phase: phase.encode(s.phase),
    conditions: s.conditions.map(encodeCondition),
    deleting: s.deleting,
    runtime_identity: s.runtimeIdentity,
    objects: compact({
      sandbox: s.objects.sandbox,
      workload_pod: s.objects.workloadPod,
      supervisor_pod: s.objects.supervisorPod,
      boundary_service: s.objects.boundaryService,
      generation: s.objects.generation,
      secrets: s.objects.secrets,
    }),
  });
}

export function decodeSandbox(w: WireSandbox | undefined): DriverSandbox {
  if (!w) throw new DriverError('INTERNAL', 'the compute driver answered without a sandbox');
  const o = w.objects ?? {};
  return compact({
    id: w.id ?? '',
    name: w.name ?? '',
    workspace: w.workspace ?? '',
    namespace: w.namespace ?? '',
    phase: phase.decode(w.phase),
    conditions: (w.conditions ?? []).map(decodeCondition),
    deleting: w.deleting ?? false,
    runtimeIdentity: w.runtime_identity,
    objects: compact({
      sandbox: o.sandbox ?? '',
      workloadPod: o.workload_pod ?? '',
      supervisorPod: o.supervisor_pod ?? '',
      boundaryService: o.boundary_service ?? '',
      generation: o.generation,
      secrets: o.secrets ?? [],
    }),
  });
}

export function encodeCapabilities(c: DriverCapabilities): WireCapabilities {
  return {
    driver_name: c.driverName,
    driver_version: c.driverVersion,
    agent_sandbox_api_version: c.agentSandboxApiVersion,
    workspace_mode: mode.encode(c.workspaceMode),
    variant: variant.encode(c.variant),
    gateway_manages_lifecycle: c.gatewayManagesLifecycle,
  };
}

export function decodeCapabilities(w: WireCapabilities | undefined): DriverCapabilities {
  if (!w) throw new DriverError('INTERNAL', 'the compute driver answered without capabilities');
  return {
    driverName: w.driver_name ?? '',
    driverVersion: w.driver_version ?? '',
    agentSandboxApiVersion: w.agent_sandbox_api_version ?? '',
    workspaceMode: mode.decode(w.workspace_mode),
    variant: variant.decode(w.variant),
    gatewayManagesLifecycle: w.gateway_manages_lifecycle ?? false,
  };
}

export function encodeEvent(e: DriverEvent): WireEvent {
  return e.type === 'sandbox' ? { sandbox: encodeSandbox(e.sandbox) } : { deleted: { sandbox_id: e.sandboxId } };
}

export function decodeEvent(w: WireEvent): DriverEvent {
  if (w.payload === 'sandbox' || (w.payload === undefined && w.sandbox)) return { type: 'sandbox', sandbox: decodeSandbox(w.sandbox) };
  if (w.payload === 'deleted' || (w.payload === undefined && w.deleted)) return { type: 'deleted', sandboxId: w.deleted?.sandbox_id ?? '' };
  throw new DriverError('INTERNAL', 'the compute driver sent a watch event with neither a sandbox nor a deletion');
}
