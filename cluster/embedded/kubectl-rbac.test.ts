import { test, expect } from '@playwright/test';
import { KubectlFixture } from './test-kit.ts';

/**
 * RBAC with real kubectl: ServiceAccount tokens (`kubectl create token`, TokenRequest), what a
 * token may do under Roles, ClusterRoles and their bindings, `kubectl auth can-i` (also --list)
 * and `auth whoami`, 403 bodies worded as kube-apiserver words them, and the bad cases: a binding
 * to a missing role, a token of a deleted ServiceAccount.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

/** kubectl as the ServiceAccount `name` in `ns`, through a kubeconfig holding its token. */
async function as(ns: string, name: string): Promise<{ ok: (args: string[]) => Promise<string>; fails: (args: string[]) => Promise<string>; run: (args: string[]) => ReturnType<typeof k.run> }> {
  const kubeconfig = await k.serviceAccountKubeconfig(ns, name);
  return {
    ok: (args) => k.ok(args, { kubeconfig }),
    fails: (args) => k.fails(args, { kubeconfig }),
    run: (args) => k.run(args, { kubeconfig }),
  };
}

const user = (ns: string, sa: string) => `User "system:serviceaccount:${ns}:${sa}"`;

test('a ServiceAccount without bindings: discovery and self-review only; 403 wording for the rest', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'nobody']);
  const sa = await as(ns, 'nobody');
  expect(await sa.ok(['api-resources', '--api-group=apps', '-o', 'name'])).toContain('deployments.apps');
  expect(await sa.ok(['version', '-o', 'json'])).toContain('"serverVersion"');
  expect(await sa.fails(['-n', ns, 'get', 'configmaps'])).toBe(
    `Error from server (Forbidden): configmaps is forbidden: ${user(ns, 'nobody')} cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
  );
  expect(await sa.fails(['-n', ns, 'get', 'configmap', 'kube-root-ca'])).toBe(
    `Error from server (Forbidden): configmaps "kube-root-ca" is forbidden: ${user(ns, 'nobody')} cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
  );
  expect(await sa.fails(['get', 'nodes'])).toBe(`Error from server (Forbidden): nodes is forbidden: ${user(ns, 'nobody')} cannot list resource "nodes" in API group "" at the cluster scope`);
  expect(await sa.fails(['-n', ns, 'create', 'deployment', 'web', '--image=nginx'])).toBe(
    `error: failed to create deployment: deployments.apps is forbidden: ${user(ns, 'nobody')} cannot create resource "deployments" in API group "apps" in the namespace "${ns}"`,
  );
  expect(await sa.fails(['get', '--raw', '/metrics'])).toBe(`Error from server (Forbidden): forbidden: ${user(ns, 'nobody')} cannot get path "/metrics"`);
  const whoami = await sa.ok(['auth', 'whoami', '-o', 'json']);
  expect(JSON.parse(whoami).status.userInfo).toMatchObject({ username: `system:serviceaccount:${ns}:nobody`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] });
  expect((await sa.run(['-n', ns, 'auth', 'can-i', 'list', 'pods'])).stdout).toBe('no');
});

test('a Role and RoleBinding: verbs, resourceNames, subresources; can-i and can-i --list agree', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'driver']);
  await k.ok(['-n', ns, 'create', 'configmap', 'mine', '--from-literal=a=1']);
  await k.ok(['-n', ns, 'create', 'configmap', 'other', '--from-literal=a=1']);
  await k.ok(['-n', ns, 'create', 'role', 'secrets', '--verb=create,list,delete', '--resource=secrets']);
  await k.ok(['-n', ns, 'create', 'role', 'one-cm', '--verb=get,watch,update', '--resource=configmaps', '--resource-name=mine']);
  await k.ok(['-n', ns, 'create', 'role', 'status', '--verb=get,patch', '--resource=deployments/status']);
  for (const role of ['secrets', 'one-cm', 'status']) await k.ok(['-n', ns, 'create', 'rolebinding', role, `--role=${role}`, `--serviceaccount=${ns}:driver`]);
  const sa = await as(ns, 'driver');
  expect(await sa.ok(['-n', ns, 'create', 'secret', 'generic', 's1', '--from-literal=k=v'])).toBe('secret/s1 created');
  expect(await sa.ok(['-n', ns, 'get', 'secrets', '-o', 'name'])).toBe('secret/s1');
  expect(await sa.fails(['-n', ns, 'get', 'secret', 's1'])).toContain(`cannot get resource "secrets" in API group "" in the namespace "${ns}"`);
  expect(await sa.ok(['-n', ns, 'delete', 'secret', 's1', '--wait=false'])).toBe('secret "s1" deleted');
  // resourceNames: the named object only, and no list.
  expect(await sa.ok(['-n', ns, 'get', 'configmap', 'mine', '-o', 'jsonpath={.data.a}'])).toBe('1');
  expect(await sa.fails(['-n', ns, 'get', 'configmap', 'other'])).toContain('configmaps "other" is forbidden');
  expect(await sa.fails(['-n', ns, 'get', 'configmaps'])).toContain('cannot list resource "configmaps"');
  // A subresource rule: deployments/status but not deployments.
  const canI = async (...args: string[]) => (await sa.run(['-n', ns, 'auth', 'can-i', ...args])).stdout;
  expect(await canI('patch', 'deployments', '--subresource=status')).toBe('yes');
  expect(await canI('patch', 'deployments')).toBe('no');
  expect(await canI('update', 'configmap/mine')).toBe('yes');
  expect(await canI('update', 'configmap/other')).toBe('no');
  expect(await canI('delete', 'secrets')).toBe('yes');
  expect(await canI('get', 'secrets')).toBe('no');
  const list = await sa.ok(['-n', ns, 'auth', 'can-i', '--list']);
  expect(list).toMatch(/^secrets\s+\[\]\s+\[\]\s+\[create list delete\]$/m);
  expect(list).toMatch(/^configmaps\s+\[\]\s+\[mine\]\s+\[get watch update\]$/m);
  expect(list).toMatch(/^deployments\.apps\/status\s+\[\]\s+\[\]\s+\[get patch\]$/m);
  // The admin token is still cluster-admin.
  expect((await k.run(['auth', 'can-i', '*', '*'])).stdout).toBe('yes');
});

test('ClusterRoles: through a RoleBinding for one namespace, through a ClusterRoleBinding everywhere; wildcards', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const role = `${ns}-reader`;
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'viewer']);
  await k.ok(['-n', ns, 'create', 'configmap', 'here']);
  await k.apply(ns, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${role}}
rules:
- {apiGroups: ["*"], resources: [pods, configmaps], verbs: ["*"]}
`);
  await k.ok(['-n', ns, 'create', 'rolebinding', 'read-here', `--clusterrole=${role}`, `--serviceaccount=${ns}:viewer`]);
  const sa = await as(ns, 'viewer');
  expect(await sa.ok(['-n', ns, 'get', 'configmaps', '-o', 'name'])).toBe('configmap/here');
  expect(await sa.fails(['-n', 'default', 'get', 'configmaps'])).toContain('in the namespace "default"');
  await k.ok(['create', 'clusterrolebinding', role, `--clusterrole=${role}`, `--serviceaccount=${ns}:viewer`]);
  expect(await sa.ok(['-n', 'default', 'get', 'configmaps', '-o', 'name'])).toBe('');
  expect(await sa.ok(['get', 'pods', '-A', '-o', 'name'])).toBe('');
  expect(await sa.fails(['get', 'secrets', '-A'])).toContain('cannot list resource "secrets" in API group "" at the cluster scope');
});

test('an aggregated ClusterRole collects the rules of the roles its selectors pick', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const aggregate = `${ns}-aggregate`;
  await k.ok(['create', 'clusterrole', aggregate, `--aggregation-rule=aggregate-to=${ns}`]);
  await k.apply(ns, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${ns}-part
  labels: {aggregate-to: ${ns}}
rules:
- {apiGroups: [""], resources: [services], verbs: [list]}
`);
  await expect.poll(async () => JSON.parse(await k.ok(['get', 'clusterrole', aggregate, '-o', 'json'])).rules, { message: 'aggregated rules', timeout: 10_000 }).toEqual([
    { apiGroups: [''], resources: ['services'], verbs: ['list'] },
  ]);
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'agg']);
  await k.ok(['-n', ns, 'create', 'rolebinding', 'agg', `--clusterrole=${aggregate}`, `--serviceaccount=${ns}:agg`]);
  expect((await (await as(ns, 'agg')).run(['-n', ns, 'auth', 'can-i', 'list', 'services'])).stdout).toBe('yes');
});

test('a binding to a missing role grants nothing and says why; nothing breaks', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'orphan']);
  await k.ok(['-n', ns, 'create', 'rolebinding', 'dangling', '--role=does-not-exist', `--serviceaccount=${ns}:orphan`]);
  const sa = await as(ns, 'orphan');
  expect(await sa.fails(['-n', ns, 'get', 'pods'])).toBe(
    `Error from server (Forbidden): pods is forbidden: ${user(ns, 'orphan')} cannot list resource "pods" in API group "" in the namespace "${ns}": RBAC: role.rbac.authorization.k8s.io "does-not-exist" not found`,
  );
  const list = await sa.run(['-n', ns, 'auth', 'can-i', '--list']);
  expect(list.stderr).toContain('Warning: the list may be incomplete: role.rbac.authorization.k8s.io "does-not-exist" not found');
  // Once the role exists, the same binding grants it.
  await k.ok(['-n', ns, 'create', 'role', 'does-not-exist', '--verb=list', '--resource=pods']);
  expect(await sa.ok(['-n', ns, 'get', 'pods', '-o', 'name'])).toBe('');
});

test('kubectl create token; the token of a deleted ServiceAccount is 401, also after it is recreated', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'temp']);
  const token = await k.ok(['-n', ns, 'create', 'token', 'temp', '--duration=1h']);
  expect(token.split('.')).toHaveLength(3);
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  expect(claims.sub).toBe(`system:serviceaccount:${ns}:temp`);
  expect(claims.exp - claims.iat).toBe(3600);
  const withToken = (args: string[]) => k.run(['--token', token, ...args]);
  expect((await withToken(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout).toBe(`system:serviceaccount:${ns}:temp`);
  await k.ok(['-n', ns, 'delete', 'serviceaccount', 'temp']);
  const gone = await withToken(['-n', ns, 'get', 'pods']);
  expect(gone.exitCode).toBe(1);
  expect(gone.stderr).toContain('error: You must be logged in to the server (Unauthorized)');
  await k.ok(['-n', ns, 'create', 'serviceaccount', 'temp']);
  expect((await withToken(['-n', ns, 'get', 'pods'])).stderr).toContain('Unauthorized');
  expect(await k.fails(['-n', ns, 'create', 'token', 'temp', '--duration=5m'])).toBe(
    'error: failed to create token: TokenRequest.authentication.k8s.io "temp" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
  );
  expect(await k.fails(['-n', ns, 'create', 'token', 'missing'])).toBe('error: failed to create token: serviceaccounts "missing" not found');
});

test('RBAC objects are validated: rules need verbs, bindings keep their roleRef', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const noVerbs = await k.fails(['-n', ns, 'apply', '-f', '-'], {
    input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: bad}\nrules:\n- {apiGroups: [""], resources: [pods]}\n',
  });
  expect(noVerbs).toBe('The Role "bad" is invalid: rules[0].verbs: Required value: verbs must contain at least one value');
  await k.ok(['-n', ns, 'create', 'rolebinding', 'rb', '--role=a', '--user=u']);
  const moved = await k.fails(['-n', ns, 'patch', 'rolebinding', 'rb', '--type=merge', '-p', '{"roleRef":{"name":"b"}}']);
  expect(moved).toContain('The RoleBinding "rb" is invalid: roleRef: Invalid value: ');
  expect(moved).toContain('cannot change roleRef');
});
