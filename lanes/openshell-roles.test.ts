import { test, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { roleOf } from '../driver/role-selectors.ts';
import { OPENSHELL_ROLES, readRolesFile } from './openshell-roles.ts';

test("OpenShell's labels find the reference driver's objects and their sandbox", () => {
  const base = { 'openshell.ai/managed-by': 'openshell', 'openshell.ai/sandbox-id': 'abc' };
  expect(roleOf(OPENSHELL_ROLES, 'pods', { ...base, 'openshell.ai/boundary-role': 'supervisor' })).toEqual({ role: 'supervisorPod', id: 'abc' });
  expect(roleOf(OPENSHELL_ROLES, 'pods', { ...base, 'openshell.ai/boundary-role': 'workload' })).toEqual({ role: 'workloadPod', id: 'abc' });
  expect(roleOf(OPENSHELL_ROLES, 'secrets', { ...base, 'openshell.ai/component': 'supervisor-bootstrap' })).toEqual({ role: 'generationSecrets', id: 'abc' });
  expect(roleOf(OPENSHELL_ROLES, 'secrets', { ...base, 'openshell.ai/component': 'image-pull' })).toBeUndefined();
  expect(roleOf(OPENSHELL_ROLES, 'sandboxes', base)).toEqual({ role: 'sandbox', id: 'abc' });
});

test('a roles file is YAML with every role; a broken one is a clear error naming the file', () => {
  const path = test.info().outputPath('roles.yaml');
  writeFileSync(path, 'sandbox: e/s={id}\nsupervisorPod: e/s={id},e/p=sup\nworkloadPod: e/s={id},e/p=wl\ngenerationSecrets: e/s={id}\n');
  expect(readRolesFile(path)).toEqual({ sandbox: 'e/s={id}', supervisorPod: 'e/s={id},e/p=sup', workloadPod: 'e/s={id},e/p=wl', generationSecrets: 'e/s={id}' });
  writeFileSync(path, 'sandbox: [\n');
  expect(() => readRolesFile(path)).toThrow(`--roles ${path}: not YAML`);
  writeFileSync(path, 'sandbox: e/s={id}\n');
  expect(() => readRolesFile(path)).toThrow(`--roles ${path}: supervisorPod must be a label selector string`);
  expect(() => readRolesFile(`${path}.missing`)).toThrow(`--roles ${path}.missing: cannot read it (ENOENT)`);
});
