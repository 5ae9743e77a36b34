import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

export const external: Lane = {
  name: 'external',
  aliases: [],
  description: 'the driver as an external process behind its gRPC Unix socket',
  agentSandbox: agentSandboxRelease('v0.5.0'),
  driver: { workspaceMode: 'shared', deployment: 'external', settings: HARNESS_DRIVER_SETTINGS, rbac: DRIVER_RBAC.shared },
  lacks: [],
};
