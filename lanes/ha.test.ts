import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import { findLane, LANES } from './index.ts';
import { driverLaunch, driverReplicas } from './run/driver-launch.ts';

test('the ha lane: Agent Sandbox v0.5.0 / v1beta1, shared mode, two external replicas reconciling every second, one worker', () => {
  const ha = findLane('ha');
  expect(LANES.at(-1)).toBe(ha);
  expect(ha.agentSandbox).toMatchObject({ version: 'v0.5.0', apiVersion: 'v1beta1' });
  expect(ha.driver).toEqual({ workspaceMode: 'shared', deployment: 'external', settings: { ...HARNESS_DRIVER_SETTINGS, reconcileIntervalMs: 1000 }, rbac: DRIVER_RBAC.shared, replicas: 2 });
  expect(ha.workers).toBe(1);
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
});
