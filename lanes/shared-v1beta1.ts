import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

export const sharedV1beta1: Lane = {
  name: 'shared-v1beta1',
  aliases: ['v1beta1'],
  description: 'suspension through spec.operatingMode; driver in shared mode, in process',
  agentSandbox: agentSandboxRelease('v0.5.0'),
  driver: { workspaceMode: 'shared', deployment: 'in-process', settings: HARNESS_DRIVER_SETTINGS, rbac: DRIVER_RBAC.shared },
  lacks: [],
};
