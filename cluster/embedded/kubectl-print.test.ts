import { test, expect } from '@playwright/test';
import { KubectlFixture, tableRows } from './test-kit.ts';

/**
 * What `kubectl get` prints from the server-side Tables: the columns a real cluster prints for
 * Nodes, Events, Deployments, Services, Secrets (and -o wide's priority-1 columns), and custom
 * resources' additionalPrinterColumns. Cells here hold no spaces, so rows split on whitespace.
 */

test.describe.configure({ mode: 'default' });
const k = KubectlFixture.register({ node: { backoffMs: 100, maxBackoffMs: 400 } });

test('nodes: STATUS ROLES AGE VERSION, and -o wide adds addresses, OS and runtime', async () => {
  const rows = tableRows(await k.ok(['get', 'nodes']));
  expect(rows[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
  expect(rows[1]).toEqual(['embedded-node', 'Ready', 'control-plane', expect.stringMatching(/^\d+/), 'v1.32.0+embedded']);
  const wide = tableRows(await k.ok(['get', 'nodes', '-o', 'wide']));
  expect(wide[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
  expect(wide[1].slice(5)).toEqual(['127.0.0.1', '<none>', '<unknown>', '<unknown>', 'embedded://processes']);
});

test('events: LAST SEEN TYPE REASON OBJECT MESSAGE, no NAME column but with -o wide', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'run', 'ev', '--image=busybox:1.36', '--restart=Never', '--command', '--', 'true']);
  await expect.poll(async () => (await k.ok(['-n', ns, 'get', 'events', '--field-selector=reason=Scheduled', '-o', 'name'])).length, { timeout: 30_000 }).toBeGreaterThan(0);
  const out = await k.ok(['get', 'events', '-A', '--field-selector=reason=Scheduled']);
  expect(out.split('\n')[0].split(/\s{2,}/)).toEqual(['NAMESPACE', 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
  const line = out.split('\n').find((l) => l.startsWith(ns))!;
  expect(line.split(/\s{2,}/).slice(2)).toEqual(['Normal', 'Scheduled', 'pod/ev', `Successfully assigned ${ns}/ev to embedded-node`]);
  const wide = await k.ok(['-n', ns, 'get', 'events', '-o', 'wide', '--field-selector=reason=Scheduled']);
  expect(wide.split('\n')[0].split(/\s{2,}/)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
});

test('deployments, services, secrets: their columns, and -o wide', async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  await k.ok(['-n', ns, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
  expect(tableRows(await k.ok(['-n', ns, 'get', 'deployments']))).toEqual([
    ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
    ['web', '0/2', '0', '0', expect.stringMatching(/^\d+s$/)],
  ]);
  expect(tableRows(await k.ok(['-n', ns, 'get', 'deployments', '-o', 'wide']))[1].slice(5)).toEqual(['nginx', 'nginx:1.27', 'app=web']);
  await k.ok(['-n', ns, 'create', 'service', 'nodeport', 'front', '--tcp=80:8080', '--node-port=30080']);
  expect(tableRows(await k.ok(['-n', ns, 'get', 'services', '-o', 'wide']))).toEqual([
    ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'],
    ['front', 'NodePort', expect.stringMatching(/^127\./), '<none>', '80:30080/TCP', expect.stringMatching(/^\d+s$/), 'app=front'],
  ]);
  await k.ok(['-n', ns, 'create', 'secret', 'generic', 'two', '--from-literal=a=1', '--from-literal=b=2']);
  expect(tableRows(await k.ok(['-n', ns, 'get', 'secrets']))).toEqual([
    ['NAME', 'TYPE', 'DATA', 'AGE'],
    ['two', 'Opaque', '2', expect.stringMatching(/^\d+s$/)],
  ]);
});

test("custom resources: the CRD's additionalPrinterColumns, priority 1 only with -o wide", async ({}, testInfo) => {
  const ns = await k.namespace(testInfo);
  const group = `${ns}.example.com`;
  await k.apply(ns, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer}, color: {type: string}}}}}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color, priority: 1}
`);
  await k.ok(['wait', '--for=condition=Established', `crd/gadgets.${group}`, '--timeout=20s']);
  await k.apply(ns, `apiVersion: ${group}/v1\nkind: Gadget\nmetadata: {name: g1}\nspec: {size: 3, color: red}\n`);
  expect(tableRows(await k.ok(['-n', ns, 'get', `gadgets.${group}`]))).toEqual([
    ['NAME', 'SIZE', 'AGE'],
    ['g1', '3', expect.stringMatching(/^\d+s$/)],
  ]);
  expect(tableRows(await k.ok(['-n', ns, 'get', `gadgets.${group}`, '-o', 'wide']))[0]).toEqual(['NAME', 'SIZE', 'AGE', 'COLOR']);
});

test('kubectl explain reaches nested fields of the built-in kinds', async () => {
  const containers = await k.ok(['explain', 'pod.spec.containers']);
  expect(containers).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: containers <\[\]Container>/);
  expect(containers).toContain('The containers of the Pod.');
  for (const field of ['image\t<string>', 'ports\t<[]ContainerPort>', 'env\t<[]EnvVar>', 'resources\t<ResourceRequirements>']) expect(containers).toContain(field);
  expect(await k.ok(['explain', 'deployment.spec.template.spec.containers.ports.containerPort'])).toContain('FIELD: containerPort <integer>');
  expect(await k.ok(['explain', 'node.status.nodeInfo.kubeletVersion'])).toContain('FIELD: kubeletVersion <string>');
  expect(await k.ok(['explain', 'event.involvedObject'])).toContain('FIELD: involvedObject <ObjectReference>');
  expect(await k.ok(['explain', 'configmap.data'])).toContain('FIELD: data <map[string]string>');
  expect(await k.ok(['explain', 'secret.data'])).toContain('FIELD: data <map[string]string>');
  expect(await k.ok(['explain', 'service.spec.ports.targetPort'])).toContain('FIELD: targetPort <IntOrString>');
  expect(await k.ok(['explain', 'namespace.status.phase'])).toContain('FIELD: phase <string>');
  expect(await k.fails(['explain', 'pod.spec.nope'])).toContain('field "nope" does not exist');
});
