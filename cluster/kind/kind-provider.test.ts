import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_PROGRAMS } from '../../fixtures/programs/catalogue.ts';
import { agentSandboxRelease } from '../agent-sandbox-release.ts';
import type { ClusterRequest, ProviderOptions } from '../cluster-provider.ts';
import { EmbeddedCluster } from '../embedded/cluster.ts';
import { embeddedImageCatalog } from '../embedded-provider.ts';
import { DOCKER_NOT_FOUND, KIND_CONFIG, KIND_NODE_IMAGE, KIND_NOT_FOUND, KUBECTL_NOT_FOUND, KindProvider, NO_FAULT_INJECTION } from './kind-provider.ts';
import { writeStubs, type StubOptions } from './test-kit.ts';

/**
 * Every line of the kind provider, run against stub kind/docker/kubectl executables (there is
 * no Docker or kind here). `kind get kubeconfig` hands out a real embedded cluster's kubeconfig,
 * so the kubeconfig step, `kubectl apply`/`wait` and the handle are exercised for real.
 * One embedded cluster for the file; its tests run in order in one worker.
 */

test.describe.configure({ mode: 'default' });

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const NAME = 'sandbox-conformance-shared-v1beta1';
/** What the lane runner asks for on the shared-v1beta1 lane: Agent Sandbox v0.5.0 and the fixture programs. */
const V1BETA1: ClusterRequest = { lane: 'shared-v1beta1', agentSandbox: agentSandboxRelease('v0.5.0'), images: FIXTURE_PROGRAMS };
const MANIFEST_URL = V1BETA1.agentSandbox.manifest;

let cluster: EmbeddedCluster;
let root: string;
let embeddedKubeconfig: string;
let manifestFile: string;

test.beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kind-provider-test-'));
  embeddedKubeconfig = join(root, 'embedded.kubeconfig');
  cluster = await EmbeddedCluster.start({ kubeconfigPath: embeddedKubeconfig, node: { images: embeddedImageCatalog(FIXTURE_PROGRAMS) }, agentSandbox: V1BETA1.agentSandbox.version });
  // What the stub kubectl applies (through the real kubectl) in place of the release manifest.
  manifestFile = join(root, 'manifest.yaml');
  await writeFile(manifestFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied-by-kind-provider\n  namespace: agent-sandbox-system\ndata:\n  from: stub\n');
});

test.afterAll(async () => {
  await cluster?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

let runs = 0;
async function setup(options: StubOptions = {}) {
  const dir = join(root, `run-${++runs}`);
  const stubs = await writeStubs(dir, { kubeconfigPath: embeddedKubeconfig, manifest: { url: MANIFEST_URL, file: manifestFile }, ...options });
  const progress: string[] = [];
  const providerOptions = (keep = false): ProviderOptions => ({ keep, workDir: join(dir, 'work'), progress: (line) => progress.push(line) });
  return { dir, stubs, progress, providerOptions, provider: new KindProvider({ env: stubs.env }) };
}

const fixtureDir = (name: string) => resolve(REPO, 'fixtures/programs', name);

test('up creates the lane cluster, builds and loads the fixture images, installs Agent Sandbox; down deletes it', async () => {
  const { stubs, progress, providerOptions, provider, dir } = await setup();
  const handle = await provider.up(V1BETA1, providerOptions());
  const kubeconfigPath = join(dir, 'work', `${NAME}.kubeconfig`);
  const kc = ['--kubeconfig', kubeconfigPath, '--context', 'embedded'].join(' ');

  expect(await stubs.commands()).toEqual([
    'kind version',
    'docker info --format {{.ServerVersion}}',
    'kind get clusters',
    `kind create cluster --name ${NAME} --image ${KIND_NODE_IMAGE} --config ${KIND_CONFIG} --wait 120s`,
    `kind get kubeconfig --name ${NAME}`,
    `docker build -t sandbox-conformance/workload:dev ${fixtureDir('workload')}`,
    `kind load docker-image sandbox-conformance/workload:dev --name ${NAME}`,
    `docker build -t sandbox-conformance/supervisor:dev ${fixtureDir('supervisor')}`,
    `kind load docker-image sandbox-conformance/supervisor:dev --name ${NAME}`,
    `kubectl ${kc} apply -f https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.5.0/manifest.yaml`,
    `kubectl ${kc} wait --for=condition=Established crd/sandboxes.agents.x-k8s.io --timeout=120s`,
    `kubectl ${kc} -n agent-sandbox-system rollout status deploy/agent-sandbox-controller --timeout=180s`,
  ]);
  // The node image is pinned by digest, and the config is the one in the repo.
  expect(KIND_NODE_IMAGE).toMatch(/^kindest\/node:v1\.\d+\.\d+@sha256:[0-9a-f]{64}$/);
  expect(KIND_CONFIG).toBe(resolve(REPO, 'cluster/kind/kind-config.yaml'));
  expect(await readFile(KIND_CONFIG, 'utf8')).toContain('apiVersion: kind.x-k8s.io/v1alpha4');

  expect(handle).toEqual({
    provider: 'kind',
    lane: 'shared-v1beta1',
    name: NAME,
    kubeconfigPath,
    context: 'embedded',
    capabilities: [],
    lacks: [{ capability: 'fault-injection', reason: 'kind clusters have no fault injection; scenarios that deny Secret deletion need the embedded cluster' }],
  });
  expect(NO_FAULT_INJECTION).toBe(handle.lacks[0].reason);
  expect((await stat(kubeconfigPath)).mode & 0o777).toBe(0o600);

  // The handle's kubeconfig reaches the cluster through @kubernetes/client-node.
  const config = new k8s.KubeConfig();
  config.loadFromFile(handle.kubeconfigPath);
  config.setCurrentContext(handle.context!);
  const crd = await config.makeApiClient(k8s.ApiextensionsV1Api).readCustomResourceDefinition({ name: 'sandboxes.agents.x-k8s.io' });
  expect(crd.spec.versions.filter((v) => v.served).map((v) => v.name)).toContain('v1beta1');
  // The apply went through the real kubectl with the handle's --kubeconfig and --context.
  const applied = await config.makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ name: 'applied-by-kind-provider', namespace: 'agent-sandbox-system' });
  expect(applied.data).toEqual({ from: 'stub' });

  expect(progress).toEqual([
    `kind: creating cluster ${NAME} (node image ${KIND_NODE_IMAGE}, config ${KIND_CONFIG})`,
    `kind: Creating cluster "${NAME}" ...`,
    `kind: ✓ Ensuring node image (${KIND_NODE_IMAGE}) 🖼`,
    'kind: ✓ Starting control-plane 🕹️',
    `kind: writing the kubeconfig of ${NAME} to ${kubeconfigPath}`,
    `kind: building fixture image sandbox-conformance/workload:dev from ${fixtureDir('workload')}`,
    `kind: loading sandbox-conformance/workload:dev into ${NAME}`,
    `kind: building fixture image sandbox-conformance/supervisor:dev from ${fixtureDir('supervisor')}`,
    `kind: loading sandbox-conformance/supervisor:dev into ${NAME}`,
    `kind: installing Agent Sandbox v0.5.0 (kubectl apply -f ${MANIFEST_URL})`,
    'kind: waiting for crd/sandboxes.agents.x-k8s.io to be Established',
    'kind: waiting for the rollout of agent-sandbox-system/deploy/agent-sandbox-controller',
    `kind: cluster ${NAME} ready with Agent Sandbox v0.5.0`,
  ]);

  // Logs for a failure report, then teardown.
  const logs = join(dir, 'reports', 'cluster-logs');
  await provider.exportLogs(handle, logs);
  expect(await readFile(join(logs, 'kind-version.txt'), 'utf8')).toBe(`kind logs of ${NAME}\n`);
  await provider.down(handle, providerOptions(false));
  const commands = await stubs.commands();
  expect(commands.slice(-2)).toEqual([`kind export logs ${logs} --name ${NAME}`, `kind delete cluster --name ${NAME}`]);
  expect(progress.at(-1)).toBe(`kind: deleting cluster ${NAME}`);
});

test('get-or-create: a second up reuses the cluster (no create), and --keep leaves it in place', async () => {
  const { stubs, progress, providerOptions, provider } = await setup();
  const first = await provider.up(V1BETA1, providerOptions(true));
  await provider.down(first, providerOptions(true));
  const afterFirst = (await stubs.commands()).length;
  expect((await stubs.commands()).filter((c) => c.startsWith('kind delete'))).toEqual([]);
  expect(progress.at(-1)).toBe(`kind: keeping cluster ${NAME} (--keep); kubeconfig ${first.kubeconfigPath}; delete it with \`kind delete cluster --name ${NAME}\``);

  // As after a crash or a --keep run: the cluster is still listed, so it is used as it is.
  const second = await provider.up(V1BETA1, providerOptions(false));
  const again = (await stubs.commands()).slice(afterFirst);
  expect(again.slice(0, 4)).toEqual(['kind version', 'docker info --format {{.ServerVersion}}', 'kind get clusters', `kind get kubeconfig --name ${NAME}`]);
  expect(again.filter((c) => c.startsWith('kind create'))).toEqual([]);
  // Images are rebuilt and reloaded (cheap when unchanged), Agent Sandbox re-applied (idempotent).
  expect(again.filter((c) => c.startsWith('docker build') || c.startsWith('kind load')).length).toBe(4);
  expect(again.some((c) => c.includes(' apply -f '))).toBe(true);
  expect(progress).toContain(`kind: reusing cluster ${NAME} (it already exists; delete it with \`kind delete cluster --name ${NAME}\` for a fresh one)`);
  expect(second).toEqual(first);

  await provider.down(second, providerOptions(false));
  expect((await stubs.commands()).at(-1)).toBe(`kind delete cluster --name ${NAME}`);
});

test('each lane gets its own cluster, named after the lane', async () => {
  const { stubs, providerOptions, provider } = await setup();
  const handle = await provider.up({ ...V1BETA1, lane: 'external' }, providerOptions());
  expect(handle.name).toBe('sandbox-conformance-external');
  expect(handle.lane).toBe('external');
  expect((await stubs.commands()).find((c) => c.startsWith('kind create'))).toContain('--name sandbox-conformance-external ');
  await provider.down(handle, providerOptions());
});

test('without the kind CLI: a clear error, and nothing is created', async () => {
  const { stubs, providerOptions, provider } = await setup({ tools: ['docker', 'kubectl'] });
  await expect(provider.up(V1BETA1, providerOptions())).rejects.toThrow(
    new Error('the kind CLI was not found on PATH; install it (https://kind.sigs.k8s.io) or use --cluster embedded'),
  );
  expect(KIND_NOT_FOUND).toBe('the kind CLI was not found on PATH; install it (https://kind.sigs.k8s.io) or use --cluster embedded');
  expect(await stubs.commands()).toEqual(['docker info --format {{.ServerVersion}}']);
});

test('without a running Docker daemon: a clear error naming what docker said', async () => {
  const { stubs, providerOptions, provider } = await setup({ dockerDaemon: 'down' });
  await expect(provider.up(V1BETA1, providerOptions())).rejects.toThrow(
    new Error(
      'no running Docker daemon was found (`docker info` failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); kind runs its nodes as Docker containers: start Docker or use --cluster embedded',
    ),
  );
  expect((await stubs.commands()).filter((c) => !['kind version', 'docker info --format {{.ServerVersion}}'].includes(c))).toEqual([]);
});

test('without the docker CLI, or with neither kind nor docker: every missing piece is named', async () => {
  const noDocker = await setup({ tools: ['kind', 'kubectl'] });
  await expect(noDocker.provider.up(V1BETA1, noDocker.providerOptions())).rejects.toThrow(new Error(DOCKER_NOT_FOUND));
  const neither = await setup({ tools: ['kubectl'] });
  await expect(neither.provider.up(V1BETA1, neither.providerOptions())).rejects.toThrow(new Error(`${KIND_NOT_FOUND}\n${DOCKER_NOT_FOUND}`));
});

test('without kubectl: the cluster comes up, then a clear error at the Agent Sandbox install', async () => {
  const { stubs, providerOptions, provider } = await setup({ tools: ['kind', 'docker'] });
  await expect(provider.up(V1BETA1, providerOptions())).rejects.toThrow(
    new Error('the kubectl CLI was not found on PATH; install it (https://kubernetes.io/docs/tasks/tools/) or use --cluster embedded'),
  );
  expect(KUBECTL_NOT_FOUND).toContain('kubectl CLI was not found on PATH');
  expect((await stubs.commands()).at(-1)).toBe(`kind load docker-image sandbox-conformance/supervisor:dev --name ${NAME}`);
});

test('a failing step reports the command and the tail of its output', async () => {
  const { providerOptions, provider } = await setup({ kindCreateFails: 'command "docker run --name sandbox-conformance-shared-v1beta1-control-plane" failed with error: exit status 125' });
  const error = await provider.up(V1BETA1, providerOptions()).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.message).toBe(
    [
      `\`kind create cluster --name ${NAME} --image ${KIND_NODE_IMAGE} --config ${KIND_CONFIG} --wait 120s\` failed (exit code 1):`,
      `Creating cluster "${NAME}" ...`,
      'ERROR: failed to create cluster: command "docker run --name sandbox-conformance-shared-v1beta1-control-plane" failed with error: exit status 125',
    ].join('\n'),
  );
});
