/**
 * The wire side of the gRPC transport: loads compute_driver.proto, maps `DriverErrorCode` to and
 * from gRPC status codes, and converts between the TypeScript types of compute-driver.ts and the
 * proto messages as @grpc/proto-loader presents them (snake_case keys, int64 as numbers, absent
 * scalars as undefined, oneofs named, `google.protobuf.Struct` as its `fields`/`kind` objects,
 * `Timestamp` as seconds and nanos).
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type {
  DriverCapabilities,
  DriverCondition,
  DriverErrorCode,
  DriverEvent,
  DriverPlatformEvent,
  DriverSandbox,
  DriverSandboxSpec,
  DriverSandboxStatus,
  DriverSandboxTemplate,
  GatewayListenerRequirement,
  JsonObject,
  JsonValue,
} from '../compute-driver.ts';

export const PROTO_PATH = fileURLToPath(new URL('./compute_driver.proto', import.meta.url));

/** The options proto-loader decodes with; the golden tests decode the same way. */
export const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: false, arrays: true, objects: true, oneofs: true };

let service: grpc.ServiceClientConstructor | undefined;

/**
 * The ComputeDriver service, loaded from the .proto on first use: every process that imports the
 * harness imports this module, and parsing the proto costs a test worker ~0.2 s of CPU that only
 * a driver on a socket needs.
 */
export function computeDriverService(): grpc.ServiceClientConstructor {
  service ??= (grpc.loadPackageDefinition(protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS)) as unknown as { openshell: { compute: { v1: { ComputeDriver: grpc.ServiceClientConstructor } } } }).openshell.compute.v1.ComputeDriver;
  return service;
}

// ---- status codes ---------------------------------------------------------------------------

const STATUS_OF: Record<DriverErrorCode, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  ALREADY_EXISTS: grpc.status.ALREADY_EXISTS,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  CANCELLED: grpc.status.CANCELLED,
  INTERNAL: grpc.status.INTERNAL,
};
const CODE_OF = new Map<grpc.status, DriverErrorCode>(Object.entries(STATUS_OF).map(([code, status]) => [status, code as DriverErrorCode]));

export function statusOf(code: DriverErrorCode): grpc.status {
  return STATUS_OF[code];
}

/** The `DriverErrorCode` a gRPC status maps back to, if it is one the contract uses. */
export function driverCodeOf(status: grpc.status): DriverErrorCode | undefined {
  return CODE_OF.get(status);
}

// ---- helpers --------------------------------------------------------------------------------

type Wire = Record<string, any>;

/** Drops keys whose value is undefined, so decoded objects compare equal to what was sent. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * For sending: also drops '' and false, as proto3 sends no scalar at its default (every other
 * implementation leaves them out too; the few `optional` fields are set apart from it).
 */
function sparse<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '' && v !== false)) as T;
}

/** proto3 maps cannot tell {} from absent; absent is every map's default here. */
function map(value: Record<string, string> | undefined): Record<string, string> | undefined {
  return value && Object.keys(value).length ? { ...value } : undefined;
}

function bytes(value: Uint8Array | undefined): Uint8Array | undefined {
  return value && value.length ? new Uint8Array(value) : undefined;
}

function encodeTimestamp(iso: string | undefined): Wire | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const nanos = (((ms % 1000) + 1000) % 1000) * 1_000_000;
  return { seconds: Math.floor(ms / 1000), ...(nanos && { nanos }) };
}

function decodeTimestamp(wire: Wire | undefined): string | undefined {
  if (!wire) return undefined;
  return new Date((wire.seconds ?? 0) * 1000 + Math.floor((wire.nanos ?? 0) / 1_000_000)).toISOString();
}

// google.protobuf.Struct <-> JSON. The loader gives the Struct's own message shape, not JSON, and
// protobufjs's bundled well-known types name their fields in camelCase even with keepCase.

function encodeValue(value: JsonValue): Wire {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(encodeValue) } };
  return { structValue: encodeStruct(value) };
}

export function encodeStruct(value: JsonObject | undefined): Wire | undefined {
  if (value === undefined) return undefined;
  return { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeValue(v)])) };
}

function decodeValue(wire: Wire): JsonValue {
  switch (wire.kind) {
    case 'boolValue':
      return wire.boolValue;
    case 'numberValue':
      return wire.numberValue;
    case 'stringValue':
      return wire.stringValue;
    case 'listValue':
      return (wire.listValue?.values ?? []).map(decodeValue);
    case 'structValue':
      return decodeStruct(wire.structValue) ?? {};
    default:
      return null;
  }
}

export function decodeStruct(wire: Wire | undefined): JsonObject | undefined {
  if (!wire) return undefined;
  return Object.fromEntries(Object.entries((wire.fields ?? {}) as Record<string, Wire>).map(([k, v]) => [k, decodeValue(v)]));
}

// ---- capabilities and listeners -------------------------------------------------------------

export function encodeCapabilities(c: DriverCapabilities): Wire {
  const r = c.resourceCapabilities;
  return sparse({
    driver_name: c.driverName,
    driver_version: c.driverVersion,
    default_image: c.defaultImage,
    gateway_manages_lifecycle: c.gatewayManagesLifecycle,
    supports_sandbox_authentication: c.supportsSandboxAuthentication,
    driver_reports_runtime_readiness: c.driverReportsRuntimeReadiness,
    resource_capabilities: r && sparse({
      cpu: r.cpu && { limit_supported: r.cpu.limitSupported },
      memory: r.memory && { limit_supported: r.memory.limitSupported },
      gpu: r.gpu && { default_selection_supported: r.gpu.defaultSelectionSupported, count_selection_supported: r.gpu.countSelectionSupported },
    }),
    rootfs_tar_staging_dir: c.rootfsTarStagingDir,
    rootfs_tar_max_bytes: c.rootfsTarMaxBytes,
  });
}

export function decodeCapabilities(w: Wire): DriverCapabilities {
  const r = w.resource_capabilities as Wire | undefined;
  return compact({
    driverName: w.driver_name ?? '',
    driverVersion: w.driver_version ?? '',
    defaultImage: w.default_image ?? '',
    gatewayManagesLifecycle: w.gateway_manages_lifecycle ?? false,
    supportsSandboxAuthentication: w.supports_sandbox_authentication ?? false,
    driverReportsRuntimeReadiness: w.driver_reports_runtime_readiness ?? false,
    resourceCapabilities: r && compact({
      cpu: r.cpu && { limitSupported: r.cpu.limit_supported ?? false },
      memory: r.memory && { limitSupported: r.memory.limit_supported ?? false },
      gpu: r.gpu && { defaultSelectionSupported: r.gpu.default_selection_supported ?? false, countSelectionSupported: r.gpu.count_selection_supported ?? false },
    }),
    rootfsTarStagingDir: w.rootfs_tar_staging_dir || undefined,
    rootfsTarMaxBytes: w.rootfs_tar_max_bytes || undefined,
  });
}

export function encodeListenerRequirement(r: GatewayListenerRequirement): Wire {
  const s = r.selector;
  return sparse({
    reason: r.reason,
    exact_bind_address: s?.kind === 'exactBindAddress' ? { address: s.address, allow_delayed_bind: s.allowDelayedBind } : undefined,
    default_route_interface: s?.kind === 'defaultRouteInterface' ? {} : undefined,
    loopback_interface: s?.kind === 'loopbackInterface' ? {} : undefined,
  });
}

export function decodeListenerRequirement(w: Wire): GatewayListenerRequirement {
  const reason = w.reason ?? '';
  switch (w.selector) {
    case 'exact_bind_address':
      return { reason, selector: { kind: 'exactBindAddress', address: w.exact_bind_address?.address ?? '', allowDelayedBind: w.exact_bind_address?.allow_delayed_bind ?? false } };
    case 'default_route_interface':
      return { reason, selector: { kind: 'defaultRouteInterface' } };
    case 'loopback_interface':
      return { reason, selector: { kind: 'loopbackInterface' } };
  }
  return { reason };
}

// ---- the sandbox ----------------------------------------------------------------------------

function encodeTemplate(t: DriverSandboxTemplate | undefined): Wire | undefined {
  if (!t) return undefined;
  const wire = sparse({
    image: t.image,
    agent_socket_path: t.agentSocketPath,
    labels: map(t.labels),
    environment: map(t.environment),
    resources: t.resources && sparse({ gpu: t.resources.gpu && sparse({ count: t.resources.gpu.count }) }),
    platform_config: encodeStruct(t.platformConfig),
    driver_config: encodeStruct(t.driverConfig),
  });
  // `optional`: false is a value of its own, so it is sent.
  return t.userNamespaces === undefined ? wire : { ...wire, user_namespaces: t.userNamespaces };
}

function decodeTemplate(w: Wire | undefined): DriverSandboxTemplate | undefined {
  if (!w) return undefined;
  return compact({
    image: w.image || undefined,
    agentSocketPath: w.agent_socket_path || undefined,
    labels: map(w.labels),
    environment: map(w.environment),
    resources: w.resources && compact({ gpu: w.resources.gpu && compact({ count: w.resources.gpu.count }) }),
    platformConfig: decodeStruct(w.platform_config),
    driverConfig: decodeStruct(w.driver_config),
    userNamespaces: w.user_namespaces,
  });
}

export function encodeSpec(s: DriverSandboxSpec | undefined): Wire | undefined {
  if (!s) return undefined;
  const r = s.resourceRequirements;
  return sparse({
    log_level: s.logLevel,
    environment: map(s.environment),
    template: encodeTemplate(s.template),
    policy: bytes(s.policy),
    resource_requirements: r && sparse({ cpu_request: r.cpuRequest, cpu_limit: r.cpuLimit, memory_request: r.memoryRequest, memory_limit: r.memoryLimit }),
    sandbox_token: s.sandboxToken,
    command: s.command,
    tty: s.tty,
    await_main_process_attachment: s.awaitMainProcessAttachment,
    workload_identity: s.workloadIdentity && { user: s.workloadIdentity.user, group: s.workloadIdentity.group },
    launch_authentication: bytes(s.launchAuthentication),
  });
}

export function decodeSpec(w: Wire | undefined): DriverSandboxSpec | undefined {
  if (!w) return undefined;
  const r = w.resource_requirements as Wire | undefined;
  return compact({
    logLevel: w.log_level || undefined,
    environment: map(w.environment),
    template: decodeTemplate(w.template),
    policy: bytes(w.policy),
    resourceRequirements: r && compact({ cpuRequest: r.cpu_request || undefined, cpuLimit: r.cpu_limit || undefined, memoryRequest: r.memory_request || undefined, memoryLimit: r.memory_limit || undefined }),
    sandboxToken: w.sandbox_token || undefined,
    command: w.command?.length ? [...w.command] : undefined,
    tty: w.tty || undefined,
    awaitMainProcessAttachment: w.await_main_process_attachment || undefined,
    workloadIdentity: w.workload_identity && { user: w.workload_identity.user ?? '', group: w.workload_identity.group ?? '' },
    launchAuthentication: bytes(w.launch_authentication),
  });
}

function encodeCondition(c: DriverCondition): Wire {
  return sparse({ type: c.type, status: c.status, reason: c.reason, message: c.message, transition_time: encodeTimestamp(c.transitionTime) });
}

function decodeCondition(w: Wire): DriverCondition {
  return compact({ type: w.type ?? '', status: w.status ?? '', reason: w.reason ?? '', message: w.message ?? '', transitionTime: decodeTimestamp(w.transition_time) });
}

function encodeStatus(s: DriverSandboxStatus | undefined): Wire | undefined {
  if (!s) return undefined;
  return sparse({ name: s.name, instance_id: s.instanceId, agent_fd: s.agentFd, sandbox_fd: s.sandboxFd, conditions: s.conditions.map(encodeCondition), deleting: s.deleting });
}

function decodeStatus(w: Wire | undefined): DriverSandboxStatus | undefined {
  if (!w) return undefined;
  return { name: w.name ?? '', instanceId: w.instance_id ?? '', agentFd: w.agent_fd ?? '', sandboxFd: w.sandbox_fd ?? '', conditions: (w.conditions ?? []).map(decodeCondition), deleting: w.deleting ?? false };
}

export function encodeSandbox(s: DriverSandbox): Wire {
  return sparse({ id: s.id, name: s.name, namespace: s.namespace, spec: encodeSpec(s.spec), status: encodeStatus(s.status), workspace: s.workspace });
}

export function decodeSandbox(w: Wire | undefined): DriverSandbox {
  return compact({
    id: w?.id ?? '',
    name: w?.name ?? '',
    namespace: w?.namespace ?? '',
    workspace: w?.workspace ?? '',
    spec: decodeSpec(w?.spec),
    status: decodeStatus(w?.status),
  });
}

// ---- watch events ---------------------------------------------------------------------------

function encodePlatformEvent(e: DriverPlatformEvent): Wire {
  return sparse({ event_time: encodeTimestamp(e.eventTime), source: e.source, type: e.type, reason: e.reason, message: e.message, metadata: map(e.metadata) });
}

function decodePlatformEvent(w: Wire | undefined): DriverPlatformEvent {
  return compact({ eventTime: decodeTimestamp(w?.event_time), source: w?.source ?? '', type: w?.type ?? '', reason: w?.reason ?? '', message: w?.message ?? '', metadata: map(w?.metadata) });
}

export function encodeEvent(e: DriverEvent): Wire {
  switch (e.type) {
    case 'sandbox':
      return { sandbox: { sandbox: encodeSandbox(e.sandbox) } };
    case 'deleted':
      return { deleted: { sandbox_id: e.sandboxId } };
    case 'platformEvent':
      return { platform_event: { sandbox_id: e.sandboxId, event: encodePlatformEvent(e.event) } };
  }
}

/** The event, or undefined for a payload this contract does not know (a newer peer's): skipped, not fatal. */
export function decodeEvent(w: Wire): DriverEvent | undefined {
  switch (w.payload) {
    case 'sandbox':
      return { type: 'sandbox', sandbox: decodeSandbox(w.sandbox?.sandbox) };
    case 'deleted':
      return { type: 'deleted', sandboxId: w.deleted?.sandbox_id ?? '' };
    case 'platform_event':
      return { type: 'platformEvent', sandboxId: w.platform_event?.sandbox_id ?? '', event: decodePlatformEvent(w.platform_event?.event) };
  }
  return undefined;
}
