/**
 * Golden bytes for every message of compute_driver.proto, written by hand from OpenShell's field
 * numbers and wire types (tag byte = field number << 3 | wire type; fields in number order, as
 * every encoder writes them): a renumbered or retyped field changes the bytes and fails here. Each golden is encoded from the message's object form
 * and decoded back (re-encoding to the same bytes), with the same protobufjs the gRPC transport
 * uses; two more go through wire.ts, from the TypeScript contract to bytes and back.
 */
import { test, expect } from '@playwright/test';
import protobuf from 'protobufjs';
import type { DriverCapabilities, DriverSandbox } from '../compute-driver.ts';
import { decodeCapabilities, decodeSandbox, encodeCapabilities, encodeSandbox, LOADER_OPTIONS, PROTO_PATH } from './wire.ts';

const root = new protobuf.Root().loadSync(PROTO_PATH, { keepCase: true });
const type = (name: string) => root.lookupType(`openshell.compute.v1.${name}`);
const hex = (spaced: string) => spaced.replace(/\s+/g, '');
const bytes = (name: string, object: object) => Buffer.from(type(name).encode(type(name).fromObject(object)).finish()).toString('hex');

/** 7.0 as a little-endian double: a Struct number. */
const SEVEN = '0000000000001c40';

const GOLDEN: [message: string, object: object, bytes: string][] = [
  ['GetCapabilitiesRequest', {}, ''],
  [
    'GetCapabilitiesResponse',
    {
      driver_name: 'k', driver_version: 'v', default_image: 'i', gateway_manages_lifecycle: true, supports_sandbox_authentication: true, driver_reports_runtime_readiness: true,
      resource_capabilities: { cpu: { limit_supported: true }, memory: { limit_supported: true }, gpu: { default_selection_supported: true, count_selection_supported: true } },
      rootfs_tar_staging_dir: 'd', rootfs_tar_max_bytes: 2 ** 40,
    },
    '0a016b 120176 1a0169 3001 3801 4001 4a0e 0a020801 12020801 1a0408011001 520164 58808080808020',
  ],
  ['ResourceCapabilities', { cpu: { limit_supported: true }, memory: { limit_supported: true }, gpu: { default_selection_supported: true, count_selection_supported: true } }, '0a020801 12020801 1a0408011001'],
  ['LimitCapability', { limit_supported: true }, '0801'],
  ['GpuCapability', { default_selection_supported: true, count_selection_supported: true }, '0801 1001'],
  ['AuthenticateSandboxRequest', { credential: 'c' }, '0a0163'],
  ['AuthenticateSandboxResponse', { sandbox_id: 's' }, '0a0173'],
  ['GetGatewayListenerRequirementsRequest', {}, ''],
  ['GetGatewayListenerRequirementsResponse', { requirements: [{ reason: 'r', loopback_interface: {} }] }, '0a05 0a0172 2200'],
  ['GatewayListenerRequirement', { reason: 'r', exact_bind_address: { address: 'a', allow_delayed_bind: true } }, '0a0172 1205 0a0161 1001'],
  ['GatewayListenerRequirement', { default_route_interface: {} }, '1a00'],
  ['GatewayExactBindAddressRequirement', { address: 'a', allow_delayed_bind: true }, '0a0161 1001'],
  ['GatewayDefaultRouteInterfaceRequirement', {}, ''],
  ['GatewayLoopbackInterfaceRequirement', {}, ''],
  ['DriverSandbox', { id: 'i', name: 'n', namespace: 's', spec: { log_level: 'l' }, status: { deleting: true }, workspace: 'w' }, '0a0169 12016e 1a0173 2203 0a016c 2a02 3001 320177'],
  [
    'DriverSandboxSpec',
    {
      log_level: 'l', environment: { e: 'f' }, template: { image: 'i' }, policy: Buffer.from([1]), resource_requirements: { cpu_request: 'a' }, sandbox_token: 't',
      command: ['x', 'y'], tty: true, await_main_process_attachment: true, workload_identity: { user: 'u' }, launch_authentication: Buffer.from([2]),
    },
    '0a016c 2a06 0a0165 120166 3203 0a0169 3a0101 4a03 0a0161 5a0174 620178 620179 6801 7001 7a03 0a0175 8201 0102',
  ],
  ['WorkloadIdentity', { user: 'u', group: 'g' }, '0a0175 120167'],
  [
    'DriverSandboxTemplate',
    {
      image: 'i', agent_socket_path: 's', labels: { a: 'b' }, environment: { e: 'f' }, resources: { gpu: { count: 2 } },
      platform_config: { fields: { p: { boolValue: true } } }, driver_config: { fields: { g: { numberValue: 7 } } }, user_namespaces: false,
    },
    `0a0169 1a0173 2206 0a0161 120162 3206 0a0165 120166 5204 0a02 0802 5a09 0a07 0a0170 1202 2001 6210 0a0e 0a0167 1209 11${SEVEN} 6800`,
  ],
  ['DriverResourceRequirements', { cpu_request: 'a', cpu_limit: 'b', memory_request: 'c', memory_limit: 'd' }, '0a0161 120162 1a0163 220164'],
  ['ResourceRequirements', { gpu: { count: 2 } }, '0a02 0802'],
  ['GpuResourceRequirements', { count: 0 }, '0800'],
  ['DriverSandboxStatus', { name: 'n', instance_id: 'i', agent_fd: 'a', sandbox_fd: 's', conditions: [{ type: 'R' }], deleting: true }, '0a016e 120169 1a0161 220173 2a03 0a0152 3001'],
  ['DriverCondition', { type: 'R', status: 'T', reason: 'x', message: 'm', transition_time: { seconds: 1 } }, '0a0152 120154 1a0178 22016d ca0602 0801'],
  ['DriverPlatformEvent', { event_time: { seconds: 1 }, source: 'k', type: 'W', reason: 'r', message: 'm', metadata: { a: 'b' } }, '12016b 1a0157 220172 2a016d 3206 0a0161 120162 aa0602 0801'],
  ['ValidateSandboxCreateRequest', { sandbox: { id: 'i' } }, '0a03 0a0169'],
  ['ValidateSandboxCreateResponse', {}, ''],
  ['CreateSandboxRequest', { sandbox: { id: 'i' } }, '0a03 0a0169'],
  ['CreateSandboxResponse', {}, ''],
  ['GetSandboxRequest', { sandbox_id: 'i', name: 'n' }, '0a0169 12016e'],
  ['GetSandboxResponse', { sandbox: { id: 'i' } }, '0a03 0a0169'],
  ['ListSandboxesRequest', {}, ''],
  ['ListSandboxesResponse', { sandboxes: [{ id: 'i' }, { id: 'j' }] }, '0a03 0a0169 0a03 0a016a'],
  ['StopSandboxRequest', { sandbox_id: 'i', name: 'n' }, '0a0169 12016e'],
  ['StopSandboxResponse', {}, ''],
  ['StartSandboxRequest', { sandbox_id: 'i', name: 'n', launch_authentication: Buffer.from([1]), generation_id: 'g' }, '0a0169 12016e 1a0101 220167'],
  ['StartSandboxResponse', {}, ''],
  ['DeleteSandboxRequest', { sandbox_id: 'i', name: 'n' }, '0a0169 12016e'],
  ['DeleteSandboxResponse', { deleted: true }, '0801'],
  ['WatchSandboxesRequest', {}, ''],
  ['WatchSandboxesSandboxEvent', { sandbox: { id: 'i' } }, '0a03 0a0169'],
  ['WatchSandboxesDeletedEvent', { sandbox_id: 'i' }, '0a0169'],
  ['WatchSandboxesPlatformEvent', { sandbox_id: 'i', event: { source: 'k' } }, '0a0169 1203 12016b'],
  ['WatchSandboxesEvent', { sandbox: { sandbox: { id: 'i' } } }, '0a05 0a03 0a0169'],
  ['WatchSandboxesEvent', { deleted: { sandbox_id: 'i' } }, '1203 0a0169'],
  ['WatchSandboxesEvent', { platform_event: { sandbox_id: 'i' } }, '1a03 0a0169'],
  ['EnsureWorkspaceRequest', { workspace: 'w' }, '0a0177'],
  ['EnsureWorkspaceResponse', {}, ''],
  ['DeleteWorkspaceRequest', { workspace: 'w' }, '0a0177'],
  ['DeleteWorkspaceResponse', {}, ''],
];

test('every message of the contract has a golden', () => {
  const messages = Object.keys((root.lookup('openshell.compute.v1') as protobuf.Namespace).nested ?? {}).filter((n) => root.lookup(`openshell.compute.v1.${n}`) instanceof protobuf.Type);
  expect([...new Set(GOLDEN.map(([m]) => m))].sort()).toEqual(messages.sort());
});

for (const [message, object, golden] of GOLDEN) {
  test(`${message} ${JSON.stringify(object).slice(0, 60)}: the bytes from its field numbers, and back`, () => {
    expect(bytes(message, object)).toBe(hex(golden));
    const decoded = type(message).toObject(type(message).decode(Buffer.from(hex(golden), 'hex')), LOADER_OPTIONS);
    expect(bytes(message, decoded)).toBe(hex(golden));
  });
}

test('the gRPC service names every RPC with its request and response', () => {
  const service = root.lookupService('openshell.compute.v1.ComputeDriver');
  expect(Object.values(service.methods).map((m) => `${m.name}(${m.requestType}) ${m.responseStream ? 'stream ' : ''}${m.responseType}`)).toEqual([
    'GetCapabilities(GetCapabilitiesRequest) GetCapabilitiesResponse',
    'AuthenticateSandbox(AuthenticateSandboxRequest) AuthenticateSandboxResponse',
    'GetGatewayListenerRequirements(GetGatewayListenerRequirementsRequest) GetGatewayListenerRequirementsResponse',
    'ValidateSandboxCreate(ValidateSandboxCreateRequest) ValidateSandboxCreateResponse',
    'GetSandbox(GetSandboxRequest) GetSandboxResponse',
    'ListSandboxes(ListSandboxesRequest) ListSandboxesResponse',
    'CreateSandbox(CreateSandboxRequest) CreateSandboxResponse',
    'StopSandbox(StopSandboxRequest) StopSandboxResponse',
    'StartSandbox(StartSandboxRequest) StartSandboxResponse',
    'DeleteSandbox(DeleteSandboxRequest) DeleteSandboxResponse',
    'WatchSandboxes(WatchSandboxesRequest) stream WatchSandboxesEvent',
    'EnsureWorkspace(EnsureWorkspaceRequest) EnsureWorkspaceResponse',
    'DeleteWorkspace(DeleteWorkspaceRequest) DeleteWorkspaceResponse',
  ]);
});

test('from the TypeScript contract: a sandbox with driver_config and a condition time, to bytes and back', () => {
  const sandbox: DriverSandbox = {
    id: 'i',
    name: 'n',
    namespace: '',
    workspace: 'w',
    spec: { command: ['x'], template: { driverConfig: { g: 7 } } },
    status: { name: '', instanceId: '', agentFd: '', sandboxFd: '', conditions: [{ type: 'R', status: 'T', reason: '', message: '', transitionTime: '1970-01-01T00:00:01.000Z' }], deleting: false },
  };
  const golden = hex(`0a0169 12016e 2217 3212 6210 0a0e 0a0167 1209 11${SEVEN} 620178 2a0d 2a0b 0a0152 120154 ca0602 0801 320177`);
  expect(bytes('DriverSandbox', encodeSandbox(sandbox))).toBe(golden);
  expect(decodeSandbox(type('DriverSandbox').toObject(type('DriverSandbox').decode(Buffer.from(golden, 'hex')), LOADER_OPTIONS))).toEqual(sandbox);
});

test('from the TypeScript contract: capabilities to bytes and back', () => {
  const caps: DriverCapabilities = { driverName: 'k', driverVersion: 'v', defaultImage: '', gatewayManagesLifecycle: false, supportsSandboxAuthentication: false, driverReportsRuntimeReadiness: false, rootfsTarMaxBytes: 2 ** 40 };
  const golden = hex('0a016b 120176 58808080808020');
  expect(bytes('GetCapabilitiesResponse', encodeCapabilities(caps))).toBe(golden);
  expect(decodeCapabilities(type('GetCapabilitiesResponse').toObject(type('GetCapabilitiesResponse').decode(Buffer.from(golden, 'hex')), LOADER_OPTIONS))).toEqual(caps);
});
