import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import { findLane, LANES } from './index.ts';
import { driverLaunch, driverReplicas, testsSideBySide } from './run/driver-launch.ts';

test('the ha lane: Agent Sandbox v0.5.0 / v1beta1, shared mode, two external replicas reconciling every second', () => {
  const ha = findLane('ha');
  expect(LANES.at(-1)).toBe(ha);
  expect(ha.agentSandbox).toMatchObject({ version: 'v0.5.0', apiVersion: 'v1beta1' });
  expect(ha.driver).toEqual({ workspaceMode: 'shared', deployment: 'external', settings: { ...HARNESS_DRIVER_SETTINGS, reconcileIntervalMs: 1000 }, rbac: DRIVER_RBAC.shared, replicas: 2 });
  expect(LANES.filter((l) => l !== ha).every((l) => (l.driver.replicas ?? 1) === 1), 'the other lanes run one driver').toBe(true);
});

test('each replica is launched the same way: the harness driver with a 1 s reconcile interval, or the exec command; a socket is one replica', () => {
  const ha = findLane('ha');
  expect(driverReplicas({ kind: 'harness', variant: 'reference' }, ha)).toBe(2);
  expect(driverReplicas({ kind: 'exec', command: 'my-driver' }, ha)).toBe(2);
  expect(driverReplicas({ kind: 'socket', socket: '/run/d.sock' }, ha)).toBe(1);
  expect(driverReplicas({ kind: 'harness', variant: 'reference' }, findLane('external'))).toBe(1);
  const launch = driverLaunch({ kind: 'harness', variant: 'reference' }, ha, { kubeconfig: new k8s.KubeConfig(), kubeconfigPath: '/k/kubeconfig' });
  expect(launch.kind).toBe('process');
  const argv = launch.kind === 'process' ? launch.command.argv : [];
  expect(argv.slice(argv.indexOf('serve'))).toEqual(['serve', '--mode', 'shared', '--namespace', 'openshell', '--variant', 'reference', '--supervisor-grace', '10', '--workload-grace', '10', '--api-headroom', '5', '--reconcile-interval', '1']);
  const own = driverLaunch({ kind: 'harness', variant: 'reference' }, ha, { kubeconfig: new k8s.KubeConfig(), kubeconfigPath: '/k/kubeconfig' }, { gatewayId: 'tabc123', supervisorReadySeconds: 4 });
  const ownArgv = own.kind === 'process' ? own.command.argv : [];
  expect(ownArgv.slice(ownArgv.indexOf('--namespace'), ownArgv.indexOf('--variant')), "a test's own gateway id").toEqual(['--namespace', 'openshell', '--gateway-id', 'tabc123']);
  expect(ownArgv.slice(ownArgv.indexOf('--api-headroom')), "and its own supervisor-readiness deadline").toEqual(['--api-headroom', '5', '--supervisor-ready', '4', '--reconcile-interval', '1']);
  const inProcess = driverLaunch({ kind: 'harness', variant: 'reference' }, findLane('v1beta1'), { kubeconfig: new k8s.KubeConfig(), kubeconfigPath: '/k/kubeconfig' }, { supervisorReadySeconds: 4 });
  expect(inProcess.kind === 'in-process' && inProcess.settings, 'in process alike').toEqual({ ...HARNESS_DRIVER_SETTINGS, supervisorReadySeconds: 4 });
  const exec = driverLaunch({ kind: 'exec', command: 'my-driver' }, ha, { kubeconfig: new k8s.KubeConfig(), kubeconfigPath: '/k/kubeconfig' }, { supervisorReadySeconds: 4 });
  expect(exec.kind === 'process' && exec.command.argv, 'a driver the harness does not start keeps its own').toEqual(['my-driver']);
});

test("tests run side by side where each test's driver keeps to its own sandboxes: the harness's (a gateway id per test), or one driver that does not run as reconciling replicas", () => {
  const ha = findLane('ha');
  expect(testsSideBySide({ kind: 'harness', variant: 'reference' }, ha)).toBe(true);
  expect(testsSideBySide({ kind: 'exec', command: 'my-driver' }, ha), 'replicas the harness cannot scope: one test at a time').toBe(false);
  expect(testsSideBySide({ kind: 'socket', socket: '/run/d.sock' }, ha)).toBe(true);
  for (const lane of LANES.filter((l) => l !== ha)) expect(testsSideBySide({ kind: 'exec', command: 'my-driver' }, lane), lane.name).toBe(true);
});
