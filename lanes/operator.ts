import { OPERATOR_WORKSPACE_LABEL } from '../driver/kubernetes/names.ts';
import { agentSandboxRelease } from '../cluster/agent-sandbox-release.ts';
import { DRIVER_RBAC } from './driver-rbac.ts';
import { HARNESS_DRIVER_SETTINGS } from './driver-settings.ts';
import type { Lane } from './lane-declaration.ts';

export const operator: Lane = {
  name: 'operator',
  aliases: [],
  description: 'workspace namespaces created and labelled by an operator fixture before the run; driver in operator mode',
  agentSandbox: agentSandboxRelease('v0.5.0'),
  driver: { workspaceMode: 'operator', deployment: 'in-process', settings: HARNESS_DRIVER_SETTINGS, rbac: DRIVER_RBAC.operator },
  operator: { label: OPERATOR_WORKSPACE_LABEL, workspaces: 4 },
  lacks: [],
};
