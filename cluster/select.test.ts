import { expect, test } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedProvider } from './embedded-provider.ts';
import { ExistingProvider } from './existing/existing-provider.ts';
import { KindProvider } from './kind/kind-provider.ts';
import { writeStubs, type StubOptions } from './kind/test-kit.ts';
import { chooseProvider } from './select.ts';

let root: string;
let runs = 0;

test.beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'select-test-'));
});

test.afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

async function env(options: StubOptions) {
  return (await writeStubs(join(root, `run-${++runs}`), options)).env;
}

test('an explicit --cluster is taken as is', async () => {
  const embedded = await chooseProvider('embedded');
  expect(embedded.provider).toBeInstanceOf(EmbeddedProvider);
  expect(embedded.reason).toBe('requested with --cluster embedded');

  // kind is not probed here: its provider reports a missing CLI or daemon when it brings the cluster up.
  const kind = await chooseProvider('kind', { env: await env({ tools: [] }) });
  expect(kind.provider).toBeInstanceOf(KindProvider);
  expect(kind.provider.name).toBe('kind');
  expect(kind.reason).toBe('requested with --cluster kind');

  const kubeconfig = join(root, 'a.kubeconfig');
  const existing = await chooseProvider('existing', { env: { KUBECONFIG: kubeconfig }, existing: { context: 'prod' } });
  expect(existing.provider).toBeInstanceOf(ExistingProvider);
  expect(existing.reason).toBe(`requested with --cluster existing; kubeconfig ${kubeconfig}, context prod`);
});

test('an unknown --cluster value lists the choices', async () => {
  await expect(chooseProvider('minikube')).rejects.toThrow(new Error('unknown cluster "minikube"; --cluster takes one of: embedded, kind, existing'));
});

test('the default is kind when kind (new enough), a running Docker daemon and kubectl are all there', async () => {
  const choice = await chooseProvider(undefined, { env: await env({}) });
  expect(choice.provider).toBeInstanceOf(KindProvider);
  expect(choice.reason).toBe('kind v0.27.0, a running Docker daemon and kubectl were found');
});

test('the default is embedded otherwise, naming each missing piece', async () => {
  const cases: [StubOptions, string][] = [
    [{ dockerDaemon: 'down' }, 'no Docker daemon found'],
    [{ tools: ['docker', 'kubectl'] }, 'no kind CLI on PATH'],
    [{ tools: ['kind', 'docker'] }, 'no kubectl on PATH'],
    [{ kindVersion: 'v0.26.0' }, 'kind v0.26.0 is older than v0.27.0'],
    [{ tools: [] }, 'no kind CLI on PATH, no docker CLI on PATH, no kubectl on PATH'],
    [{ tools: ['kind'] }, 'no docker CLI on PATH, no kubectl on PATH'],
    [{ tools: ['docker'], dockerDaemon: 'down' }, 'no kind CLI on PATH, no Docker daemon found, no kubectl on PATH'],
    [{ kindVersion: 'v0.20.0', dockerDaemon: 'down' }, 'kind v0.20.0 is older than v0.27.0, no Docker daemon found'],
  ];
  for (const [stubs, reason] of cases) {
    const choice = await chooseProvider('', { env: await env(stubs) });
    expect(choice.provider, reason).toBeInstanceOf(EmbeddedProvider);
    expect(choice.reason).toBe(reason);
  }
});
