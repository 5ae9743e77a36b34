import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

/**
 * Two replicas of the driver on one cluster, as OpenShell's HA deployment runs two gateways:
 * each call goes to a replica picked per call (seeded), and each replica reconciles every
 * second, so a replica regularly finds another's create, start or stop in flight and must
 * neither hang on it nor reverse its order. Each test's replicas serve a gateway of that test's
 * own, so tests run side by side (lanes/run/driver-launch.ts, testsSideBySide).
 */
export const ha: Lane = {
  name: 'ha',
  aliases: [],
  description: 'two replicas of the driver as external processes, each reconciling every second; calls routed per call by the seed',
  agentSandbox: agentSandboxRelease('v0.5.0'),
  driver: {
    workspaceMode: 'shared',
    deployment: 'external',
    settings: { ...HARNESS_DRIVER_SETTINGS, reconcileIntervalMs: 1_000 },
    rbac: DRIVER_RBAC.shared,
    replicas: 2,
  },
  lacks: [],
};
