import { agentSandboxManifest, type Lane } from './lane.ts';

export const external: Lane = {
  name: 'external',
  aliases: [],
  description: 'Agent Sandbox v0.5.0; the driver as an external process behind its gRPC Unix socket',
  agentSandbox: { version: 'v0.5.0', apiVersion: 'v1beta1', manifest: agentSandboxManifest('v0.5.0') },
  driver: { workspaceMode: 'shared', deployment: 'external' },
  lacks: [],
};
