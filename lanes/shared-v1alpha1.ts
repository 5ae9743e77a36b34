import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

export const sharedV1alpha1: Lane = {
  name: 'shared-v1alpha1',
  aliases: ['v1alpha1'],
  description: 'suspension through spec.replicas; driver in shared mode, in process',
  agentSandbox: agentSandboxRelease('v0.4.6'),
  driver: { workspaceMode: 'shared', deployment: 'in-process', settings: HARNESS_DRIVER_SETTINGS, rbac: DRIVER_RBAC.shared },
  lacks: [],
};
