import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

export const managed: Lane = {
  name: 'managed',
  aliases: [],
  description: 'driver in managed mode: one namespace per workspace, created by the driver',
  agentSandbox: agentSandboxRelease('v0.5.0'),
  driver: { workspaceMode: 'managed', deployment: 'in-process', settings: HARNESS_DRIVER_SETTINGS, rbac: DRIVER_RBAC.managed },
  lacks: [],
};
