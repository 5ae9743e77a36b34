import { expect, test } from '@playwright/test';
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterHandle } from '../cluster-provider.ts';
import { DOCKER_NOT_FOUND, KIND_CONFIG, KIND_NODE_IMAGE, KIND_NOT_FOUND, KUBECTL_NOT_FOUND, kindTooOld } from './kind-provider.ts';
import { NAME, STAND_IN_MANIFEST, V1BETA1_REQUEST, fixtureDir, kindTestKit } from './test-kit.ts';

/**
 * The kind provider when something is wrong: missing or too old tools, a manifest that does
 * not match its digest, a step that fails or hangs after the cluster exists, Ctrl-C during
 * `kind create`. Each gets one clear message naming the step and command, and leaves no
 * cluster (unless --keep) and no process behind. Stubs over a real embedded cluster, as in
 * provider.test.ts.
 */

test.describe.configure({ mode: 'default' });
const kit = kindTestKit();

const PROBES = ['kind version', 'docker info --format {{.ServerVersion}}', 'kubectl version --client'];

async function failure(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (e: Error) => e.message,
  );
}

/** Processes still running one of this run's stub tools (a timed-out pipeline must leave none). */
function stubProcesses(dir: string): string[] {
  return execSync('ps -eo args', { stdio: ['ignore', 'pipe', 'pipe'] }).toString().split('\n').filter((l) => l.includes(join(dir, 'bin')));
}

test('kind older than v0.27.0 is refused before anything is created, naming why', async () => {
  const { stubs, options, provider } = await kit.setup({ kindVersion: 'v0.26.0' });
  expect(await failure(provider.up(V1BETA1_REQUEST, options()))).toBe(kindTooOld('v0.26.0'));
  expect(kindTooOld('v0.26.0')).toBe(
    `kind v0.26.0 is too old: the pinned node image ${KIND_NODE_IMAGE} ships containerd 2, into which kind before v0.27.0 cannot load images (kubernetes-sigs/kind#3853); install kind v0.27.0 or newer (https://kind.sigs.k8s.io/docs/user/quick-start/#installation) or use --cluster embedded`,
  );
  expect(await stubs.commands()).toEqual(PROBES);
  expect(await stubs.clusters()).toEqual([]);

  // Newer releases and pre-releases of v0.27.0 itself pass.
  for (const kindVersion of ['v0.27.0', 'v0.29.0', 'v0.27.0-alpha.3+0123456789abcd', 'v1.0.0']) {
    const run = await kit.setup({ kindVersion });
    expect(await run.provider.availability(), kindVersion).toEqual({ ok: true, kindVersion });
  }
});

test('Docker down, kubectl missing, kind missing: every missing piece named, nothing created', async () => {
  const down = await kit.setup({ dockerDaemon: 'down' });
  expect(await failure(down.provider.up(V1BETA1_REQUEST, down.options()))).toBe(
    'no running Docker daemon was found (`docker info` failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?); kind runs its nodes as Docker containers: start Docker or use --cluster embedded',
  );
  expect(await down.stubs.commands()).toEqual(PROBES);

  const noKubectl = await kit.setup({ tools: ['kind', 'docker'] });
  expect(await failure(noKubectl.provider.up(V1BETA1_REQUEST, noKubectl.options()))).toBe(KUBECTL_NOT_FOUND);
  expect(KUBECTL_NOT_FOUND).toBe('the kubectl CLI was not found on PATH (or $KUBECTL); install it (https://kubernetes.io/docs/tasks/tools/) or use --cluster embedded');
  expect(await noKubectl.stubs.commands()).toEqual(PROBES.slice(0, 2));

  const nothing = await kit.setup({ tools: [] });
  expect(await failure(nothing.provider.up(V1BETA1_REQUEST, nothing.options()))).toBe([KIND_NOT_FOUND, DOCKER_NOT_FOUND, KUBECTL_NOT_FOUND].join('\n'));
  for (const run of [down, noKubectl, nothing]) {
    expect(await run.stubs.clusters()).toEqual([]);
    expect(existsSync(join(run.dir, 'work'))).toBe(false);
  }
});

test('a manifest that does not match its pinned sha256 stops up before any cluster is created', async () => {
  const { stubs, options, provider, dir } = await kit.setup();
  await writeFile(kit.manifestPath(), `${STAND_IN_MANIFEST}# edited\n`);
  try {
    const message = await failure(provider.up(V1BETA1_REQUEST, options()));
    expect(message).toMatch(
      new RegExp(`^lane shared-v1beta1 needs Agent Sandbox v0.5.0: Agent Sandbox v0.5.0 manifest.yaml: ${kit.manifestPath()} does not match the pinned sha256\n  expected [0-9a-f]{64}\n  got      [0-9a-f]{64}\nAGENT_SANDBOX_MANIFESTS must hold the release asset itself`),
    );
    expect(await stubs.commands()).toEqual(PROBES);
    expect(existsSync(join(dir, 'work'))).toBe(false);
  } finally {
    await writeFile(kit.manifestPath(), STAND_IN_MANIFEST);
  }
});

test('kind create failing: the step, the command and kind’s words; what it left is deleted', async () => {
  const { stubs, options, provider, kubeconfigPath } = await kit.setup({ kindCreateFails: `command "docker run --name ${NAME}-control-plane" failed with error: exit status 125` });
  expect(await failure(provider.up(V1BETA1_REQUEST, options()))).toBe(
    [
      `create the kind cluster ${NAME}: \`kind create cluster --name ${NAME} --image ${KIND_NODE_IMAGE} --config ${KIND_CONFIG} --kubeconfig ${kubeconfigPath} --wait 120s\` failed (exit code 1):`,
      `Creating cluster "${NAME}" ...`,
      `ERROR: failed to create cluster: command "docker run --name ${NAME}-control-plane" failed with error: exit status 125`,
      `deleted cluster ${NAME}`,
    ].join('\n'),
  );
  // No logs to export from a cluster that never came to be.
  expect((await stubs.commands()).filter((c) => c.startsWith('kind export'))).toEqual([]);
  expect((await stubs.commands()).at(-1)).toBe(`kind delete cluster --name ${NAME} --kubeconfig ${kubeconfigPath}`);
});

test('a failure after the cluster exists exports its logs to the report folder and deletes it; a hung pipeline is stopped whole', async () => {
  const { stubs, options, provider, reportDir, dir, kubeconfigPath } = await kit.setup({ kindLoadFails: 'ctr: not found', hang: 'docker save' }, { timeouts: { load: 1_000 } });
  const lines = (await failure(provider.up(V1BETA1_REQUEST, options()))).split('\n');
  // In between: whatever the pipeline said before it was stopped (kind may see the archive end early).
  expect(lines[0]).toBe(
    `load sandbox-conformance/workload:dev into ${NAME} as an archive: \`docker save sandbox-conformance/workload:dev | kind load image-archive /dev/stdin --name ${NAME}\` did not finish within 1 s and was stopped${lines.length > 3 ? ':' : ''}`,
  );
  expect(lines.slice(-2)).toEqual([`cluster logs: ${join(reportDir, 'cluster-logs')}`, `deleted cluster ${NAME}`]);
  expect(await readFile(join(reportDir, 'cluster-logs', 'kind-version.txt'), 'utf8')).toBe(`kind logs of ${NAME}\n`);
  expect((await stubs.commands()).slice(-2)).toEqual([`kind export logs ${join(reportDir, 'cluster-logs')} --name ${NAME}`, `kind delete cluster --name ${NAME} --kubeconfig ${kubeconfigPath}`]);
  expect(await stubs.clusters()).toEqual([]);
  // Both sides of the pipe are gone, not only its shell.
  await expect.poll(() => stubProcesses(dir), { timeout: 10_000 }).toEqual([]);
});

test('a step that hangs is stopped at its deadline, naming the step and the command; --keep keeps the cluster', async () => {
  const { stubs, options, provider, reportDir, kubeconfigPath } = await kit.setup({ hang: 'docker buildx build' }, { timeouts: { build: 1_000 } });
  const message = await failure(provider.up(V1BETA1_REQUEST, options({ keep: true })));
  expect(message).toBe(
    [
      `build fixture image sandbox-conformance/workload:dev: \`docker buildx build --load -t sandbox-conformance/workload:dev ${fixtureDir('workload')}\` did not finish within 1 s and was stopped`,
      `cluster logs: ${join(reportDir, 'cluster-logs')}`,
      `kept cluster ${NAME} (--keep); kubeconfig ${kubeconfigPath}; delete it with \`kind delete cluster --name ${NAME}\``,
    ].join('\n'),
  );
  expect(await stubs.clusters()).toEqual([NAME]);
  expect((await stubs.commands()).filter((c) => c.startsWith('kind delete'))).toEqual([]);
});

test('the cluster is registered for clean-up before kind create starts; Ctrl-C during create stops it, and down deletes what it made', async () => {
  const { stubs, options, provider, kubeconfigPath, dir } = await kit.setup({ kindCreateHangs: true });
  const interrupt = new AbortController();
  const registered: { handle: ClusterHandle; commandsSoFar: string }[] = [];
  const onCluster = (handle: ClusterHandle) => registered.push({ handle, commandsSoFar: readFileSync(join(dir, 'commands.log'), 'utf8') });
  const up = failure(provider.up(V1BETA1_REQUEST, options({ signal: interrupt.signal, onCluster })));
  // kind create is running and has made the cluster when the user presses Ctrl-C.
  await expect.poll(() => stubs.clusters(), { timeout: 30_000 }).toEqual([NAME]);
  interrupt.abort();
  expect(await up).toMatch(new RegExp(`^create the kind cluster ${NAME}: \`kind create cluster .*\` was stopped \\(interrupted\\)`));

  expect(registered).toHaveLength(1);
  expect(registered[0].commandsSoFar).toContain('kind get clusters');
  expect(registered[0].commandsSoFar).not.toContain('kind create');
  expect(registered[0].handle).toMatchObject({ provider: 'kind', name: NAME, kubeconfigPath });
  // up() left the teardown to whoever interrupted it: no log export, no delete of its own.
  expect((await stubs.commands()).filter((c) => c.startsWith('kind export') || c.startsWith('kind delete'))).toEqual([]);

  await provider.down(registered[0].handle, options());
  expect(await stubs.clusters()).toEqual([]);
});

test('a caBundle that never comes fails the install at its deadline, naming what was read and where to look', async () => {
  const { options, provider, reportDir, kubeconfigPath } = await kit.setup({}, { timeouts: { install: 3_000 } });
  kit.setCaBundle(null);
  try {
    const kc = `--kubeconfig ${kubeconfigPath} --context embedded`;
    expect(await failure(provider.up(V1BETA1_REQUEST, options()))).toBe(
      [
        `wait for the conversion webhook: crd/sandboxes.agents.x-k8s.io has no spec.conversion.webhook.clientConfig.caBundle after 3 s (\`${join(reportDir, '..', 'bin', 'kubectl')} ${kc} get crd/sandboxes.agents.x-k8s.io -o jsonpath={.spec.conversion.strategy} {.spec.conversion.webhook.clientConfig.caBundle}\`); the controller injects it at start-up: see \`${join(reportDir, '..', 'bin', 'kubectl')} ${kc} -n agent-sandbox-system logs deploy/agent-sandbox-controller\``,
        `cluster logs: ${join(reportDir, 'cluster-logs')}`,
        `deleted cluster ${NAME}`,
      ].join('\n'),
    );
  } finally {
    kit.setCaBundle('Y2EtYnVuZGxl');
  }
});
