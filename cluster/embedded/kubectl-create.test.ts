import { test, expect } from '@playwright/test';
import { KubectlFixture } from './test-kit.ts';

/**
 * kubectl's imperative `create` subcommands, which write protobuf bodies (the `k8s\0` envelope
 * and each kind's message), against the embedded cluster: each succeeds, and `get -o json` reads
 * back the fields the generator set, with metadata.generation only where Kubernetes keeps one.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register();

async function json(ns: string, ...args: string[]): Promise<any> {
  return JSON.parse(await k.ok(['-n', ns, 'get', ...args, '-o', 'json']));
}

test('namespace, configmap, secret generic, serviceaccount', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect((await json(ns, 'namespace', ns)).status.phase).toBe('Active');
  expect(await k.ok(['-n', ns, 'create', 'configmap', 'cm', '--from-literal=a=1', '--from-literal=empty='])).toBe('configmap/cm created');
  const cm = await json(ns, 'configmap', 'cm');
  expect(cm.data).toEqual({ a: '1', empty: '' });
  expect(cm.metadata.generation).toBeUndefined();
  expect(await k.ok(['-n', ns, 'create', 'secret', 'generic', 's', '--from-literal=user=admin', '--type=example.com/basic'])).toBe('secret/s created');
  const secret = await json(ns, 'secret', 's');
  expect(secret.type).toBe('example.com/basic');
  expect(Buffer.from(secret.data.user, 'base64').toString()).toBe('admin');
  expect(await k.ok(['-n', ns, 'create', 'serviceaccount', 'robot'])).toBe('serviceaccount/robot created');
  expect((await json(ns, 'serviceaccount', 'robot')).metadata.name).toBe('robot');
});

test('deployment, job, cronjob keep a generation', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.ok(['-n', ns, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=8080'])).toBe('deployment.apps/web created');
  const deploy = await json(ns, 'deployment', 'web');
  expect(deploy.metadata.generation).toBe(1);
  expect(deploy.spec.replicas).toBe(3);
  expect(deploy.spec.selector).toEqual({ matchLabels: { app: 'web' } });
  expect(deploy.spec.template.spec.containers).toEqual([{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], resources: {} }]);
  expect(await k.ok(['-n', ns, 'create', 'job', 'once', '--image=busybox:1.36', '--', 'echo', 'hi'])).toBe('job.batch/once created');
  const job = await json(ns, 'job', 'once');
  expect(job.metadata.generation).toBe(1);
  expect(job.spec.template.spec).toMatchObject({ restartPolicy: 'Never', containers: [{ name: 'once', image: 'busybox:1.36', command: ['echo', 'hi'] }] });
  expect(await k.ok(['-n', ns, 'create', 'cronjob', 'tick', '--image=busybox:1.36', '--schedule=*/5 * * * *', '--', 'date'])).toBe('cronjob.batch/tick created');
  const cron = await json(ns, 'cronjob', 'tick');
  expect(cron.spec.schedule).toBe('*/5 * * * *');
  expect(cron.spec.jobTemplate.spec.template.spec.containers[0].command).toEqual(['date']);
});

test('role, rolebinding, clusterrole, clusterrolebinding', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.ok(['-n', ns, 'create', 'role', 'reader', '--verb=get,list', '--resource=pods,secrets', '--resource-name=one'])).toBe('role.rbac.authorization.k8s.io/reader created');
  expect((await json(ns, 'role', 'reader')).rules).toEqual([
    { apiGroups: [''], resources: ['pods', 'secrets'], resourceNames: ['one'], verbs: ['get', 'list'] },
  ]);
  expect(await k.ok(['-n', ns, 'create', 'rolebinding', 'read', '--role=reader', `--serviceaccount=${ns}:robot`, '--user=alice'])).toBe(
    'rolebinding.rbac.authorization.k8s.io/read created',
  );
  const binding = await json(ns, 'rolebinding', 'read');
  expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' });
  expect(binding.subjects).toEqual([
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    { kind: 'ServiceAccount', name: 'robot', namespace: ns },
  ]);
  const role = `${ns}-nodes`;
  expect(await k.ok(['create', 'clusterrole', role, '--verb=get', '--resource=nodes', '--non-resource-url=/healthz'])).toBe(`clusterrole.rbac.authorization.k8s.io/${role} created`);
  expect((await json(ns, 'clusterrole', role)).rules).toEqual([
    { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    { nonResourceURLs: ['/healthz'], verbs: ['get'] },
  ]);
  const aggregated = `${ns}-all`;
  expect(await k.ok(['create', 'clusterrole', aggregated, '--aggregation-rule=team=a'])).toBe(`clusterrole.rbac.authorization.k8s.io/${aggregated} created`);
  expect((await json(ns, 'clusterrole', aggregated)).aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { team: 'a' } }] });
  expect(await k.ok(['create', 'clusterrolebinding', role, `--clusterrole=${role}`, '--group=ops'])).toBe(`clusterrolebinding.rbac.authorization.k8s.io/${role} created`);
  expect((await json(ns, 'clusterrolebinding', role)).subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' }]);
});

test('priorityclass, quota, poddisruptionbudget, ingress, service clusterip', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const pc = `${ns}-low`;
  expect(await k.ok(['create', 'priorityclass', pc, '--value=0', '--description=lowest', '--preemption-policy=Never'])).toBe(`priorityclass.scheduling.k8s.io/${pc} created`);
  // value has no omitempty in Go: a zero stays.
  expect(await json(ns, 'priorityclass', pc)).toMatchObject({ value: 0, description: 'lowest', preemptionPolicy: 'Never' });
  expect(await k.ok(['-n', ns, 'create', 'quota', 'small', '--hard=pods=10,requests.cpu=500m'])).toBe('resourcequota/small created');
  expect((await json(ns, 'resourcequota', 'small')).spec.hard).toEqual({ pods: '10', 'requests.cpu': '500m' });
  expect(await k.ok(['-n', ns, 'create', 'poddisruptionbudget', 'keep', '--selector=app=web', '--max-unavailable=25%'])).toBe('poddisruptionbudget.policy/keep created');
  expect((await json(ns, 'pdb', 'keep')).spec).toEqual({ maxUnavailable: '25%', selector: { matchLabels: { app: 'web' } } });
  expect(await k.ok(['-n', ns, 'create', 'ingress', 'front', '--rule=example.com/api*=api:8080,tls=cert'])).toBe('ingress.networking.k8s.io/front created');
  const ingress = await json(ns, 'ingress', 'front');
  expect(ingress.spec.rules).toEqual([{ host: 'example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 8080 } } } }] } }]);
  expect(ingress.spec.tls).toEqual([{ hosts: ['example.com'], secretName: 'cert' }]);
  expect(await k.ok(['-n', ns, 'create', 'service', 'clusterip', 'api', '--tcp=80:8080'])).toBe('service/api created');
  const svc = await json(ns, 'service', 'api');
  expect(svc.spec.ports).toEqual([{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
  expect(svc.spec.selector).toEqual({ app: 'api' });
  expect(svc.spec.clusterIP).toMatch(/^127\./);
  expect(svc.metadata.generation).toBeUndefined();
});

test('kubectl run writes a Pod in protobuf; a Pod has no generation at 1.32', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  expect(await k.ok(['-n', ns, 'run', 'once', '--image=busybox:1.36', '--restart=Never', '--env=A=1', '--labels=app=once', '--', 'sleep', '5'])).toBe('pod/once created');
  const pod = await json(ns, 'pod', 'once');
  expect(pod.metadata.labels).toEqual({ app: 'once' });
  expect(pod.metadata.generation).toBeUndefined();
  expect(pod.spec.containers[0]).toMatchObject({ name: 'once', image: 'busybox:1.36', args: ['sleep', '5'], env: [{ name: 'A', value: '1' }] });
  expect(pod.spec.restartPolicy).toBe('Never');
});

test('creating an existing object again: AlreadyExists, nothing changed', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'configmap', 'cm', '--from-literal=a=1']);
  expect(await k.fails(['-n', ns, 'create', 'configmap', 'cm', '--from-literal=a=2'])).toBe('error: failed to create configmap: configmaps "cm" already exists');
  expect((await json(ns, 'configmap', 'cm')).data).toEqual({ a: '1' });
});
