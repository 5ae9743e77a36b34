import { expect, test } from '@playwright/test';
import { isSuspendedInSpec, sandboxApiVersion, suspensionField } from './agent-sandbox-api.ts';

test('each API version reads suspension from its own field, and only from it', () => {
  expect(isSuspendedInSpec('agents.x-k8s.io/v1alpha1', { replicas: 0 })).toBe(true);
  expect(isSuspendedInSpec('agents.x-k8s.io/v1alpha1', { replicas: 1 })).toBe(false);
  expect(isSuspendedInSpec('agents.x-k8s.io/v1alpha1', {})).toBe(false); // replicas defaults to 1
  expect(isSuspendedInSpec('agents.x-k8s.io/v1alpha1', { operatingMode: 'Suspended' })).toBe(false);
  expect(isSuspendedInSpec('agents.x-k8s.io/v1beta1', { operatingMode: 'Suspended' })).toBe(true);
  expect(isSuspendedInSpec('agents.x-k8s.io/v1beta1', { operatingMode: 'Running' })).toBe(false);
  expect(isSuspendedInSpec('agents.x-k8s.io/v1beta1', { replicas: 0 })).toBe(false);
  expect(isSuspendedInSpec('v1beta1', undefined)).toBe(false);
});

test('messages name the field of the version', () => {
  expect(suspensionField(sandboxApiVersion('v1alpha1'))).toBe('spec.replicas: 0');
  expect(suspensionField(sandboxApiVersion('v1beta1'))).toBe('spec.operatingMode: Suspended');
});

test('an unknown version is a clear error, not a guess', () => {
  expect(() => isSuspendedInSpec('agents.x-k8s.io/v2', {})).toThrow('unknown Agent Sandbox API version "agents.x-k8s.io/v2"; known: agents.x-k8s.io/v1alpha1, agents.x-k8s.io/v1beta1');
});
