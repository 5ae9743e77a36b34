import { agentSandboxManifest, type Lane } from './lane.ts';

export const managed: Lane = {
  name: 'managed',
  aliases: [],
  description: 'Agent Sandbox v0.5.0; driver in managed mode: one namespace per workspace, created by the driver',
  agentSandbox: { version: 'v0.5.0', apiVersion: 'v1beta1', manifest: agentSandboxManifest('v0.5.0') },
  driver: { workspaceMode: 'managed', deployment: 'in-process' },
  lacks: [],
};
