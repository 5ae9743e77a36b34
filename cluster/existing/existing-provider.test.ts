import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { agentSandboxRelease } from '../agent-sandbox-release.ts';
import type { ClusterRequest, ProviderOptions } from '../cluster-provider.ts';
import { EmbeddedCluster } from '../embedded/cluster.ts';
import { admissionPolicyLacks, ExistingProvider } from './existing-provider.ts';

/**
 * The existing-cluster provider against real API servers: an embedded cluster with Agent
 * Sandbox v0.5.0, one without it, a port nothing listens on, and a server that accepts
 * connections but never answers. One set of clusters for the file, its tests in one worker.
 */

test.describe.configure({ mode: 'default' });

/** What the lane runner asks for on the shared lanes (the existing provider installs nothing, so no images). */
const V1BETA1: ClusterRequest = { lane: 'shared-v1beta1', agentSandbox: agentSandboxRelease('v0.5.0'), images: [] };
const V1ALPHA1: ClusterRequest = { lane: 'shared-v1alpha1', agentSandbox: agentSandboxRelease('v0.4.6'), images: [] };

let root: string;
let withSandbox: EmbeddedCluster;
let bare: EmbeddedCluster;
let withSandboxKubeconfig: string;
let bareKubeconfig: string;
let silent: Server;
const sockets = new Set<Socket>();

function kubeconfig(server: string, name: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token: 'none' } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  });
}

test.beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'existing-provider-test-'));
  withSandboxKubeconfig = join(root, 'with-sandbox.kubeconfig');
  bareKubeconfig = join(root, 'bare.kubeconfig');
  [withSandbox, bare] = await Promise.all([
    EmbeddedCluster.start({ kubeconfigPath: withSandboxKubeconfig, agentSandbox: 'v0.5.0' }),
    EmbeddedCluster.start({ kubeconfigPath: bareKubeconfig }),
  ]);
  silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

test.afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await Promise.all([withSandbox?.stop(), bare?.stop()]);
  if (root) await rm(root, { recursive: true, force: true });
});

function options(): { progress: string[]; providerOptions: ProviderOptions } {
  const progress: string[] = [];
  return { progress, providerOptions: { keep: false, workDir: join(root, 'work'), progress: (line) => progress.push(line) } };
}

test('a cluster with the lane\'s Agent Sandbox: a handle on the given kubeconfig, and down() changes nothing', async () => {
  const provider = new ExistingProvider({ kubeconfigPath: withSandboxKubeconfig });
  const { progress, providerOptions } = options();
  const handle = await provider.up(V1BETA1, providerOptions);
  expect(handle).toEqual({
    provider: 'existing',
    lane: 'shared-v1beta1',
    name: 'embedded',
    kubeconfigPath: withSandboxKubeconfig,
    context: 'embedded',
    capabilities: ['admission-policy'],
    lacks: [],
  });
  expect(progress[0]).toBe(`existing: checking the cluster in ${withSandboxKubeconfig} (context embedded) at ${withSandbox.url}`);
  expect(progress[1]).toMatch(/^existing: reached Kubernetes v\d+\.\d+/);
  expect(progress[2]).toBe('existing: sandboxes.agents.x-k8s.io serves v1beta1, v1alpha1; lane shared-v1beta1 uses v1beta1');

  const before = (await withSandbox.api.list(withSandbox.api.target('v1', 'namespaces'), {})).items.map((n) => n.metadata.name).sort();
  await provider.down(handle, providerOptions);
  const after = (await withSandbox.api.list(withSandbox.api.target('v1', 'namespaces'), {})).items.map((n) => n.metadata.name).sort();
  expect(after).toEqual(before);
  expect(progress.at(-1)).toBe('existing: leaving embedded as it was');

  const kc = new k8s.KubeConfig();
  kc.loadFromFile(handle.kubeconfigPath);
  kc.setCurrentContext(handle.context!);
  expect((await kc.makeApiClient(k8s.VersionApi).getCode()).gitVersion).toMatch(/^v1\./);
});

test('the current KUBECONFIG is the default; several files are merged into one for the scenarios', async () => {
  const other = join(root, 'other.kubeconfig');
  await writeFile(other, kubeconfig('https://127.0.0.1:1', 'elsewhere'));
  const single = await new ExistingProvider({ env: { KUBECONFIG: withSandboxKubeconfig } }).up(V1BETA1, options().providerOptions);
  expect(single.kubeconfigPath).toBe(withSandboxKubeconfig);

  const { progress, providerOptions } = options();
  const merged = await new ExistingProvider({ env: { KUBECONFIG: `${withSandboxKubeconfig}:${other}` } }).up(V1BETA1, providerOptions);
  // The first file's current-context wins, as with kubectl.
  expect(merged.context).toBe('embedded');
  expect(merged.kubeconfigPath).toBe(join(root, 'work', 'existing.kubeconfig'));
  expect(progress[0]).toBe(`existing: merged ${withSandboxKubeconfig}:${other} into ${merged.kubeconfigPath}`);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(await readFile(merged.kubeconfigPath, 'utf8'));
  expect(kc.getContexts().map((c) => c.name).sort()).toEqual(['elsewhere', 'embedded']);

  // Without KUBECONFIG: ~/.kube/config under $HOME.
  const home = join(root, 'someones-home');
  expect(new ExistingProvider({ env: { HOME: home } }).kubeconfigFiles()).toEqual([join(home, '.kube', 'config')]);
});

test('a kubeconfig that does not exist', async () => {
  const missing = join(root, 'nope', 'kubeconfig');
  await expect(new ExistingProvider({ kubeconfigPath: missing }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(`kubeconfig ${missing} does not exist`),
  );
  await expect(new ExistingProvider({ env: { HOME: join(root, 'nobody') } }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(`kubeconfig ${join(root, 'nobody', '.kube', 'config')} does not exist`),
  );
});

test('a context that is not in the kubeconfig', async () => {
  await expect(new ExistingProvider({ kubeconfigPath: withSandboxKubeconfig, context: 'prod' }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(`kubeconfig ${withSandboxKubeconfig} has no context "prod"; contexts: embedded`),
  );
});

test('an unreachable server (nothing listens)', async () => {
  const path = join(root, 'unreachable.kubeconfig');
  await writeFile(path, kubeconfig('https://127.0.0.1:1', 'gone'));
  await expect(new ExistingProvider({ kubeconfigPath: path }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(`the cluster in ${path} (context gone) is unreachable: request to https://127.0.0.1:1/version failed, reason: connect ECONNREFUSED 127.0.0.1:1`),
  );
});

test('a server that never answers: unreachable after the short timeout', async () => {
  const port = (silent.address() as { port: number }).port;
  const path = join(root, 'silent.kubeconfig');
  await writeFile(path, kubeconfig(`https://127.0.0.1:${port}`, 'silent'));
  const started = Date.now();
  await expect(new ExistingProvider({ kubeconfigPath: path, timeoutMs: 300 }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(`the cluster in ${path} (context silent) is unreachable: no answer within 300 ms`),
  );
  expect(Date.now() - started).toBeLessThan(5_000);
});

test('a cluster without the Sandbox CRD: install instructions for the lane\'s release', async () => {
  await expect(new ExistingProvider({ kubeconfigPath: bareKubeconfig }).up(V1BETA1, options().providerOptions)).rejects.toThrow(
    new Error(
      `Agent Sandbox is not installed in the cluster in ${bareKubeconfig} (context embedded): CustomResourceDefinition sandboxes.agents.x-k8s.io was not found; ` +
        'install Agent Sandbox v0.5.0 for lane shared-v1beta1 with: kubectl --context embedded apply -f https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.5.0/manifest.yaml',
    ),
  );
});

test('a release that does not match the lane: the v1alpha1 lane on a cluster serving v1beta1', async () => {
  await expect(new ExistingProvider({ kubeconfigPath: withSandboxKubeconfig }).up(V1ALPHA1, options().providerOptions)).rejects.toThrow(
    new Error(
      `the Agent Sandbox installed in the cluster in ${withSandboxKubeconfig} (context embedded) serves v1beta1, v1alpha1 of sandboxes.agents.x-k8s.io, so the driver would use v1beta1; ` +
        'lane shared-v1alpha1 tests v1alpha1: install Agent Sandbox v0.4.6 for lane shared-v1alpha1 with: kubectl --context embedded apply -f https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.4.6/manifest.yaml',
    ),
  );
});

test('fault injection needs ValidatingAdmissionPolicy and its binding served (Kubernetes 1.30+); otherwise the lane lacks it, saying why', () => {
  expect(admissionPolicyLacks(['validatingadmissionpolicies', 'validatingadmissionpolicies/status', 'validatingadmissionpolicybindings', 'validatingwebhookconfigurations'], 'v1.32.2')).toEqual([]);
  const reason = 'Kubernetes v1.29.4 does not serve admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (GA in 1.30), which the harness injects faults with';
  expect(admissionPolicyLacks(['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'], 'v1.29.4')).toEqual([{ capability: 'admission-policy', reason }]);
  expect(admissionPolicyLacks(undefined, 'v1.29.4')).toEqual([{ capability: 'admission-policy', reason }]);
});
