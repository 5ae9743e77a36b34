import { agentSandboxManifest, type Lane } from './lane.ts';

export const sharedV1alpha1: Lane = {
  name: 'shared-v1alpha1',
  aliases: ['v1alpha1'],
  description: 'Agent Sandbox v0.4.6 (v1alpha1, spec.replicas); driver in shared mode, in process',
  agentSandbox: { version: 'v0.4.6', apiVersion: 'v1alpha1', manifest: agentSandboxManifest('v0.4.6') },
  driver: { workspaceMode: 'shared', deployment: 'in-process' },
  lacks: [],
};
