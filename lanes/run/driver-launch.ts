/** How a lane reaches its driver under test: in process, as a process the harness starts, or on a socket. */
import type * as k8s from '@kubernetes/client-node';
import { harnessDriverCommand, type DriverSettings } from '../../driver/launch/external-driver-process.ts';
import type { DriverLaunch } from '../../driver/launch/open-driver.ts';
import type { Lane } from '../lane-declaration.ts';
import type { DriverUnderTest } from './lane-run.ts';

/**
 * How many replicas of the driver the harness runs for the lane: the lane's count, each started
 * the same way (the harness's driver, or the `exec=` command, once per replica); one for a
 * driver served on a socket, which the harness did not start and cannot multiply.
 */
export function driverReplicas(driver: DriverUnderTest, lane: Lane): number {
  return driver.kind === 'socket' ? 1 : (lane.driver.replicas ?? 1);
}

/**
 * Whether a lane's tests may run side by side. The harness gives the driver it starts for a test
 * a gateway id of that test's own (`gatewayId` below): the driver then lists, watches and
 * reconciles only that test's sandboxes, however many tests share the namespace. A driver the
 * harness cannot give one (`exec=`, a socket) acts on every sandbox of the namespace: run as
 * replicas reconciling in the background (ha), they would take part in the stops of the tests
 * beside theirs — so there, one test at a time.
 */
export function testsSideBySide(driver: DriverUnderTest, lane: Lane): boolean {
  return driver.kind === 'harness' || driverReplicas(driver, lane) === 1;
}

/**
 * What one test sets on a driver the harness starts for it, over the lane's settings: its own
 * gateway id (see testsSideBySide), and timing a scenario needs shorter than the lane's (a
 * scenario that waits out the supervisor-readiness deadline on purpose). A driver the harness
 * does not start keeps its own.
 */
export type TestDriverSettings = Pick<DriverSettings, 'gatewayId' | 'supervisorReadySeconds'>;

/** How to open the lane's driver for one test, with the test's own settings where the harness starts the driver. */
export function driverLaunch(driver: DriverUnderTest, lane: Lane, cluster: { kubeconfig: k8s.KubeConfig; kubeconfigPath: string }, own: TestDriverSettings = {}): DriverLaunch {
  const { workspaceMode, deployment } = lane.driver;
  const settings: DriverSettings = { ...lane.driver.settings, ...own };
  switch (driver.kind) {
    case 'socket':
      return { kind: 'socket', socket: driver.socket };
    case 'exec':
      return { kind: 'process', command: { argv: [driver.command], shell: true }, kubeconfigPath: cluster.kubeconfigPath };
    case 'harness':
      if (deployment === 'external') return { kind: 'process', command: harnessDriverCommand({ workspaceMode, variant: driver.variant, settings }), kubeconfigPath: cluster.kubeconfigPath };
      return { kind: 'in-process', kubeconfig: cluster.kubeconfig, workspaceMode, variant: driver.variant, settings };
  }
}
