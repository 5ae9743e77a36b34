import { agentSandboxManifest, type Lane } from './lane.ts';

export const operator: Lane = {
  name: 'operator',
  aliases: [],
  description: 'Agent Sandbox v0.5.0; workspace namespaces created and labelled by an operator fixture before the run; driver in operator mode',
  agentSandbox: { version: 'v0.5.0', apiVersion: 'v1beta1', manifest: agentSandboxManifest('v0.5.0') },
  driver: { workspaceMode: 'operator', deployment: 'in-process' },
  operator: { label: 'openshell.ai/e2e-operator-workspace=true', workspaces: 4 },
  lacks: [],
};
