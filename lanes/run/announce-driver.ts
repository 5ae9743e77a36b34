/** The line a lane prints before its scenarios: which driver it tests, by its own GetCapabilities. */
import * as k8s from '@kubernetes/client-node';
import { openDriver } from '../../driver/launch/open-driver.ts';
import type { Lane } from '../lane-declaration.ts';
import { driverLaunch } from './driver-launch.ts';
import type { DriverUnderTest } from './lane-run.ts';

/** Starts (or reaches) the driver once, asks GetCapabilities, and stops it again: `driver: kubernetes 0.2.0 (…)`. */
export async function announceDriver(driver: DriverUnderTest, lane: Lane, kubeconfigPath: string): Promise<{ line: string; name: string; version: string }> {
  const kubeconfig = new k8s.KubeConfig();
  kubeconfig.loadFromFile(kubeconfigPath);
  const opened = await openDriver(driverLaunch(driver, lane, { kubeconfig, kubeconfigPath }));
  try {
    const caps = await opened.client.getCapabilities({ deadline: Date.now() + 30_000 });
    const supports = [caps.supportsSandboxAuthentication && 'sandbox authentication', caps.driverReportsRuntimeReadiness && 'runtime readiness', caps.gatewayManagesLifecycle && 'gateway-managed lifecycle'].filter(Boolean);
    return { line: `driver: ${caps.driverName} ${caps.driverVersion}${supports.length ? ` (reports ${supports.join(', ')})` : ''}`, name: caps.driverName, version: caps.driverVersion };
  } finally {
    await opened.close();
  }
}
