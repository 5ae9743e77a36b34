import { expect, test } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { KIND_CONFIG, KIND_NODE_IMAGE } from './kind-provider.ts';
import { agentSandboxRelease } from '../agent-sandbox-release.ts';
import { CRD_NAME, EXTERNAL_REQUEST, NAME, REPO, V1BETA1_REQUEST, fixtureDir, kindTestKit } from './test-kit.ts';

/**
 * The kind provider's way up and down, against stub kind/docker/kubectl executables (there is
 * no Docker or kind here) over a real embedded cluster. Failures and bad input are in
 * provider-failures.test.ts. One embedded cluster for the file; its tests run in order.
 */

test.describe.configure({ mode: 'default' });
const kit = kindTestKit();

const CA_BUNDLE_READ = `get crd/${CRD_NAME} -o jsonpath={.spec.conversion.strategy} {.spec.conversion.webhook.clientConfig.caBundle}`;

test('up creates the lane cluster into its own kubeconfig, builds and loads the fixture images, installs Agent Sandbox; down deletes it', async () => {
  const { stubs, progress, options, provider, kubeconfigPath, dir } = await kit.setup();
  const handle = await provider.up(V1BETA1_REQUEST, options());
  const kc = `--kubeconfig ${kubeconfigPath} --context embedded`;

  expect(await stubs.commands()).toEqual([
    'kind version',
    'docker info --format {{.ServerVersion}}',
    'kubectl version --client',
    'kind get clusters',
    `kind create cluster --name ${NAME} --image ${KIND_NODE_IMAGE} --config ${KIND_CONFIG} --kubeconfig ${kubeconfigPath} --wait 120s`,
    'docker buildx version',
    `docker buildx build --load -t sandbox-conformance/workload:dev ${fixtureDir('workload')}`,
    `kind load docker-image sandbox-conformance/workload:dev --name ${NAME}`,
    `docker buildx build --load -t sandbox-conformance/supervisor:dev ${fixtureDir('supervisor')}`,
    `kind load docker-image sandbox-conformance/supervisor:dev --name ${NAME}`,
    `kubectl ${kc} apply -f ${kit.manifestPath()}`,
    `kubectl ${kc} wait --for=condition=Established crd/${CRD_NAME} --timeout=120s`,
    `kubectl ${kc} -n agent-sandbox-system rollout status deploy/agent-sandbox-controller --timeout=180s`,
    `kubectl ${kc} ${CA_BUNDLE_READ}`,
  ]);
  expect(await stubs.loaded()).toEqual(['sandbox-conformance/workload:dev', 'sandbox-conformance/supervisor:dev']);
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
    capabilities: ['admission-policy'],
    lacks: [],
  });

  // The handle's kubeconfig reaches the cluster through @kubernetes/client-node.
  const config = new k8s.KubeConfig();
  config.loadFromFile(handle.kubeconfigPath);
  config.setCurrentContext(handle.context!);
  const crd = await config.makeApiClient(k8s.ApiextensionsV1Api).readCustomResourceDefinition({ name: CRD_NAME });
  expect(crd.spec.versions.filter((v) => v.served).map((v) => v.name)).toContain('v1beta1');
  // The apply went through the real kubectl with the handle's --kubeconfig and --context.
  const applied = await config.makeApiClient(k8s.CoreV1Api).readNamespacedConfigMap({ name: 'applied-by-kind-provider', namespace: 'agent-sandbox-system' });
  expect(applied.data).toEqual({ from: 'stub' });

  expect(progress).toEqual([
    `kind: creating cluster ${NAME} (node image ${KIND_NODE_IMAGE}, config ${KIND_CONFIG})`,
    `kind: Creating cluster "${NAME}" ...`,
    `kind: ✓ Ensuring node image (${KIND_NODE_IMAGE}) 🖼`,
    'kind: ✓ Starting control-plane 🕹️',
    `kind: Set kubectl context to "kind-${NAME}"`,
    'kind: building fixture image sandbox-conformance/workload:dev from fixtures/programs/workload',
    `kind: loading sandbox-conformance/workload:dev into ${NAME}`,
    'kind: building fixture image sandbox-conformance/supervisor:dev from fixtures/programs/supervisor',
    `kind: loading sandbox-conformance/supervisor:dev into ${NAME}`,
    `kind: installing Agent Sandbox v0.5.0 (kubectl apply -f ${kit.manifestPath()})`,
    `kind: waiting for crd/${CRD_NAME} to be Established`,
    'kind: waiting for the rollout of agent-sandbox-system/deploy/agent-sandbox-controller',
    `kind: cluster ${NAME} ready with Agent Sandbox v0.5.0`,
  ]);

  // Logs for a failure report, then teardown, each kind command with the run's own kubeconfig.
  const logs = join(dir, 'reports', 'cluster-logs');
  await provider.exportLogs(handle, logs);
  expect(await readFile(join(logs, 'kind-version.txt'), 'utf8')).toBe(`kind logs of ${NAME}\n`);
  await provider.down(handle, options());
  expect((await stubs.commands()).slice(-2)).toEqual([`kind export logs ${logs} --name ${NAME}`, `kind delete cluster --name ${NAME} --kubeconfig ${kubeconfigPath}`]);
  expect(progress.at(-1)).toBe(`kind: deleting cluster ${NAME}`);
  expect(await stubs.clusters()).toEqual([]);

  // The user's kubeconfig and current context were never touched; no ~/.kube/config appeared.
  expect(await readFile(stubs.userKubeconfig, 'utf8')).toBe('# the user’s own kubeconfig: no lane may change it\ncurrent-context: users-cluster\n');
  expect(existsSync(stubs.homeKubeconfig)).toBe(false);
  expect((await stat(kubeconfigPath)).isFile()).toBe(true);
});

test('a ready cluster is reused (its kubeconfig exported to the run’s file, /readyz answered); --keep leaves it in place', async () => {
  const { stubs, progress, options, provider, kubeconfigPath } = await kit.setup({ existingClusters: [{ name: NAME }] });
  const handle = await provider.up(V1BETA1_REQUEST, options({ keep: true }));
  const commands = await stubs.commands();
  expect(commands.slice(3, 6)).toEqual([
    'kind get clusters',
    `kind export kubeconfig --name ${NAME} --kubeconfig ${kubeconfigPath}`,
    `kubectl --kubeconfig ${kubeconfigPath} get --raw /readyz`,
  ]);
  expect(commands.filter((c) => c.startsWith('kind create') || c.startsWith('kind delete'))).toEqual([]);
  // Images are rebuilt and reloaded (cheap when unchanged), Agent Sandbox re-applied (idempotent).
  expect(commands.filter((c) => c.includes('build --load') || c.startsWith('kind load')).length).toBe(4);
  expect(commands.some((c) => c.includes(' apply -f '))).toBe(true);
  expect(progress[0]).toBe(`kind: reusing cluster ${NAME} (it already exists and is ready; delete it with \`kind delete cluster --name ${NAME}\` for a fresh one)`);
  expect(handle.context).toBe('embedded');

  await provider.down(handle, options({ keep: true }));
  expect(progress.at(-1)).toBe(`kind: keeping cluster ${NAME} (--keep); kubeconfig ${kubeconfigPath}; delete it with \`kind delete cluster --name ${NAME}\``);
  expect(await stubs.clusters()).toEqual([NAME]);
  expect(await readFile(stubs.userKubeconfig, 'utf8')).toContain('current-context: users-cluster');
});

test('a cluster that exists but does not answer /readyz is deleted and created afresh', async () => {
  const { stubs, progress, options, provider, kubeconfigPath } = await kit.setup({ existingClusters: [{ name: NAME, dead: true }] });
  await provider.up(V1BETA1_REQUEST, options());
  const commands = await stubs.commands();
  expect(commands.slice(3, 8)).toEqual([
    'kind get clusters',
    `kind export kubeconfig --name ${NAME} --kubeconfig ${kubeconfigPath}`,
    `kubectl --kubeconfig ${kubeconfigPath} get --raw /readyz`,
    `kind delete cluster --name ${NAME} --kubeconfig ${kubeconfigPath}`,
    `kind create cluster --name ${NAME} --image ${KIND_NODE_IMAGE} --config ${KIND_CONFIG} --kubeconfig ${kubeconfigPath} --wait 120s`,
  ]);
  expect(progress[0]).toMatch(new RegExp(`^kind: cluster ${NAME} exists but does not answer /readyz \\(.+\\); deleting it to create it afresh$`));
  expect(await stubs.clusters()).toEqual([NAME]);
});

test('without buildx the images are built with plain docker build; a failing kind load falls back to docker save | kind load image-archive', async () => {
  const { stubs, progress, options, provider } = await kit.setup({ noBuildx: true, kindLoadFails: 'ctr: content digest sha256:0123: not found' });
  await provider.up(V1BETA1_REQUEST, options());
  const commands = await stubs.commands();
  expect(commands.filter((c) => c.startsWith('docker'))).toEqual([
    'docker info --format {{.ServerVersion}}',
    'docker buildx version',
    `docker build -t sandbox-conformance/workload:dev ${fixtureDir('workload')}`,
    'docker save sandbox-conformance/workload:dev',
    `docker build -t sandbox-conformance/supervisor:dev ${fixtureDir('supervisor')}`,
    'docker save sandbox-conformance/supervisor:dev',
  ]);
  expect(commands.filter((c) => c.startsWith('kind load'))).toEqual([
    `kind load docker-image sandbox-conformance/workload:dev --name ${NAME}`,
    `kind load image-archive /dev/stdin --name ${NAME}`,
    `kind load docker-image sandbox-conformance/supervisor:dev --name ${NAME}`,
    `kind load image-archive /dev/stdin --name ${NAME}`,
  ]);
  // What reached the node is what docker save wrote, through the pipe.
  expect(await stubs.loaded()).toEqual(['sandbox-conformance/workload:dev (archive)', 'sandbox-conformance/supervisor:dev (archive)']);
  expect(progress).toContain('kind: docker buildx is not installed; building the fixture images with plain `docker build`');
  expect(progress).toContain(
    'kind: `kind load docker-image` failed; loading sandbox-conformance/workload:dev as an archive instead (docker save | kind load image-archive). It said: ERROR: failed to load image: ctr: content digest sha256:0123: not found',
  );
});

test('after installing a release with webhook conversion, up waits until the controller has injected the caBundle', async () => {
  const { stubs, progress, options, provider, kubeconfigPath } = await kit.setup();
  kit.setCaBundle(null);
  try {
    const up = provider.up(V1BETA1_REQUEST, options());
    const waiting = `kind: waiting for the controller to inject the conversion webhook's caBundle into crd/${CRD_NAME}`;
    await expect.poll(() => progress.includes(waiting), { timeout: 30_000 }).toBe(true);
    expect(progress.at(-1)).toBe(waiting);
    kit.setCaBundle('Y2EtYnVuZGxl');
    await up;
    expect(progress.at(-1)).toBe(`kind: cluster ${NAME} ready with Agent Sandbox v0.5.0`);
    // At least one look without a caBundle and the last with it.
    const reads = (await stubs.commands()).filter((c) => c === `kubectl --kubeconfig ${kubeconfigPath} --context embedded ${CA_BUNDLE_READ}`);
    expect(reads.length).toBeGreaterThanOrEqual(2);
  } finally {
    kit.setCaBundle('Y2EtYnVuZGxl');
  }
});

test('each lane gets its own cluster, named after the lane', async () => {
  const { stubs, options, provider } = await kit.setup();
  const handle = await provider.up(EXTERNAL_REQUEST, options());
  expect(handle.name).toBe('sandbox-conformance-external');
  expect(handle.lane).toBe('external');
  expect((await stubs.commands()).find((c) => c.startsWith('kind create'))).toContain('--name sandbox-conformance-external ');
  await provider.down(handle, options());
  expect(await stubs.clusters()).toEqual([]);
});

test('a lane on Agent Sandbox v0.5.4 gets a cluster of its own and the release\'s sandbox.yaml, verified, through the resolver', async () => {
  const { stubs, progress, options, provider } = await kit.setup();
  // What the lane runner asks for on `npm run lane -- v1beta1 --agent-sandbox v0.5.4`.
  const handle = await provider.up({ ...V1BETA1_REQUEST, lane: 'shared-v1beta1-v0.5.4', agentSandbox: agentSandboxRelease('v0.5.4') }, options());
  expect(handle.name).toBe('sandbox-conformance-shared-v1beta1-v0.5.4');
  const kc = `--kubeconfig ${handle.kubeconfigPath} --context embedded`;
  expect(kit.manifestPath('v0.5.4')).toMatch(/\/v0\.5\.4\/sandbox\.yaml$/);
  expect((await stubs.commands()).filter((c) => c.includes(' apply -f '))).toEqual([`kubectl ${kc} apply -f ${kit.manifestPath('v0.5.4')}`]);
  expect(progress).toContain(`kind: installing Agent Sandbox v0.5.4 (kubectl apply -f ${kit.manifestPath('v0.5.4')})`);
  expect(progress.at(-1)).toBe('kind: cluster sandbox-conformance-shared-v1beta1-v0.5.4 ready with Agent Sandbox v0.5.4');
  await provider.down(handle, options());
});

test('the fixture image build contexts the provider uses exist, and their base image is pinned by digest', async () => {
  for (const name of ['workload', 'supervisor']) {
    const dockerfile = await readFile(join(fixtureDir(name), 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-[a-z-]+@sha256:[0-9a-f]{64}$/m);
  }
});
