import { agentSandboxManifest, type Lane } from './lane.ts';

export const sharedV1beta1: Lane = {
  name: 'shared-v1beta1',
  aliases: ['v1beta1'],
  description: 'Agent Sandbox v0.5.0 (v1beta1 storage, spec.operatingMode); driver in shared mode, in process',
  agentSandbox: { version: 'v0.5.0', apiVersion: 'v1beta1', manifest: agentSandboxManifest('v0.5.0') },
  driver: { workspaceMode: 'shared', deployment: 'in-process' },
  lacks: [],
};
