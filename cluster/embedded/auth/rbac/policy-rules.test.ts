import { expect, test } from '@playwright/test';
import { ruleAllows, type Attributes, type PolicyRule } from './policy-rules.ts';

/** RBAC rule matching, case by case: wildcards, subresources, resourceNames, non-resource paths. */

const pods = (verb: string, extra: Partial<Extract<Attributes, { kind: 'resource' }>> = {}): Attributes => ({ kind: 'resource', verb, group: '', resource: 'pods', namespace: 'ns', ...extra });

const cases: [string, PolicyRule, Attributes, boolean][] = [
  ['exact verb, group and resource', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, pods('get'), true],
  ['another verb', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, pods('list'), false],
  ['another group', { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, pods('get'), false],
  ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, pods('deletecollection'), true],
  ['apiGroups *', { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, pods('get', { group: 'apps', resource: 'deployments' }), true],
  ['resources *, also a subresource', { verbs: ['create'], apiGroups: [''], resources: ['*'] }, pods('create', { subresource: 'exec' }), true],
  ['the resource does not grant its subresource', { verbs: ['create'], apiGroups: [''], resources: ['pods'] }, pods('create', { subresource: 'exec' }), false],
  ['resource/subresource', { verbs: ['create'], apiGroups: [''], resources: ['pods/exec'] }, pods('create', { subresource: 'exec' }), true],
  ['*/subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/status'] }, pods('get', { subresource: 'status' }), true],
  ['*/subresource is not the resource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/status'] }, pods('get'), false],
  ['resourceNames: the named object', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, pods('get', { name: 'a' }), true],
  ['resourceNames: another object', { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, pods('get', { name: 'b' }), false],
  ['resourceNames: a list without a name', { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, pods('list'), false],
  ['no verbs grants nothing', { apiGroups: ['*'], resources: ['*'] }, pods('get'), false],
  ['a resource rule does not grant a path', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { kind: 'path', verb: 'get', path: '/version' }, false],
  ['path exact', { verbs: ['get'], nonResourceURLs: ['/version'] }, { kind: 'path', verb: 'get', path: '/version' }, true],
  ['path prefix *', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, { kind: 'path', verb: 'get', path: '/apis/apps/v1' }, true],
  ['path prefix does not match the bare prefix', { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, { kind: 'path', verb: 'get', path: '/apis' }, false],
  ['path *', { verbs: ['*'], nonResourceURLs: ['*'] }, { kind: 'path', verb: 'post', path: '/metrics' }, true],
];

for (const [name, rule, attributes, allowed] of cases) {
  test(`${name}: ${allowed ? 'allowed' : 'denied'}`, () => {
    expect(ruleAllows(rule, attributes)).toBe(allowed);
  });
}
