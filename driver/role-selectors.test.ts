import { test, expect } from '@playwright/test';
import { checkRoleSelectors, roleOf, selectorFor, watchSelector, type RoleSelectors } from './role-selectors.ts';

/** A driver that labels its objects its own way. */
const ROLES: RoleSelectors = {
  sandbox: 'example.com/sandbox={id}',
  supervisorPod: 'example.com/sandbox={id},example.com/part=supervisor',
  workloadPod: 'example.com/sandbox={id},example.com/part in (agent,workload),!example.com/ignored',
  generationSecrets: 'example.com/sandbox={id},example.com/kind!=config',
};

test('a role selector is given for one sandbox by its id', () => {
  expect(selectorFor(ROLES, 'supervisorPod', 'abc')).toBe('example.com/sandbox=abc,example.com/part=supervisor');
});

test('an object is matched to its role and sandbox id by its labels; one that plays none is not', () => {
  expect(roleOf(ROLES, 'pods', { 'example.com/sandbox': 'abc', 'example.com/part': 'supervisor' })).toEqual({ role: 'supervisorPod', id: 'abc' });
  expect(roleOf(ROLES, 'pods', { 'example.com/sandbox': 'abc', 'example.com/part': 'agent' })).toEqual({ role: 'workloadPod', id: 'abc' });
  expect(roleOf(ROLES, 'pods', { 'example.com/sandbox': 'abc', 'example.com/part': 'agent', 'example.com/ignored': '' })).toBeUndefined();
  expect(roleOf(ROLES, 'pods', { 'example.com/part': 'supervisor' })).toBeUndefined();
  expect(roleOf(ROLES, 'secrets', { 'example.com/sandbox': 'abc' })).toEqual({ role: 'generationSecrets', id: 'abc' });
  expect(roleOf(ROLES, 'secrets', { 'example.com/sandbox': 'abc', 'example.com/kind': 'config' })).toBeUndefined();
  expect(roleOf(ROLES, 'sandboxes', { 'example.com/sandbox': 'abc' })).toEqual({ role: 'sandbox', id: 'abc' });
});

test('the list/watch selector of a resource is what all its roles share, the id as mere presence', () => {
  expect(watchSelector(ROLES, 'pods')).toBe('example.com/sandbox');
  expect(watchSelector(ROLES, 'secrets')).toBe('example.com/sandbox,example.com/kind!=config');
  expect(watchSelector({ ...ROLES, workloadPod: 'other/id={id}' }, 'pods')).toBeUndefined();
});

test('bad role selectors are refused naming the role and what to fix', () => {
  expect(checkRoleSelectors(ROLES)).toBe(ROLES);
  expect(() => checkRoleSelectors({ ...ROLES, extra: 'a={id}' }, 'roles.yaml')).toThrow('roles.yaml: unknown role "extra"; the roles are sandbox, supervisorPod, workloadPod, generationSecrets');
  expect(() => checkRoleSelectors({ ...ROLES, sandbox: undefined })).toThrow('the role selectors: sandbox must be a label selector string');
  expect(() => checkRoleSelectors({ ...ROLES, sandbox: 'example.com/sandbox=x' })).toThrow('sandbox selector "example.com/sandbox=x": it must contain {id} exactly once, as key={id}');
  expect(() => checkRoleSelectors({ ...ROLES, sandbox: 'a in ({id},b)' })).toThrow('it must contain {id} exactly once');
  expect(() => checkRoleSelectors({ ...ROLES, workloadPod: 'a={id},bad key=1' })).toThrow('"bad key=1": not a label selector requirement');
  expect(() => checkRoleSelectors({ ...ROLES, workloadPod: 'a={id},b=no spaces allowed!' })).toThrow('workloadPod selector');
  expect(() => checkRoleSelectors('sandbox: x')).toThrow('expected a mapping of sandbox, supervisorPod, workloadPod, generationSecrets to label selectors');
});
