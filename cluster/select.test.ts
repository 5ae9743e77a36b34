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

  const existing = await chooseProvider('existing', { env: { KUBECONFIG: '/tmp/a.kubeconfig' }, existing: { context: 'prod' } });
  expect(existing.provider).toBeInstanceOf(ExistingProvider);
  expect(existing.reason).toBe('requested with --cluster existing; kubeconfig /tmp/a.kubeconfig, context prod');
});

test('an unknown --cluster value lists the choices', async () => {
  await expect(chooseProvider('minikube')).rejects.toThrow(new Error('unknown cluster "minikube"; --cluster takes one of: embedded, kind, existing'));
});

test('the default is kind when the kind CLI and a running Docker daemon are there', async () => {
  const choice = await chooseProvider(undefined, { env: await env({}) });
  expect(choice.provider).toBeInstanceOf(KindProvider);
  expect(choice.reason).toBe('the kind CLI and a running Docker daemon were found');
});

test('the default is embedded otherwise, with the reason', async () => {
  const noDaemon = await chooseProvider(undefined, { env: await env({ dockerDaemon: 'down' }) });
  expect(noDaemon.provider).toBeInstanceOf(EmbeddedProvider);
  expect(noDaemon.reason).toBe('no Docker daemon found');

  const noKind = await chooseProvider(undefined, { env: await env({ tools: ['docker', 'kubectl'] }) });
  expect(noKind.provider).toBeInstanceOf(EmbeddedProvider);
  expect(noKind.reason).toBe('no kind CLI on PATH');

  const nothing = await chooseProvider(undefined, { env: await env({ tools: [] }) });
  expect(nothing.reason).toBe('no kind CLI on PATH, no docker CLI on PATH');

  const kindOnly = await chooseProvider(undefined, { env: await env({ tools: ['kind'] }) });
  expect(kindOnly.reason).toBe('no docker CLI on PATH');

  const bothDown = await chooseProvider('', { env: await env({ tools: ['docker'], dockerDaemon: 'down' }) });
  expect(bothDown.provider).toBeInstanceOf(EmbeddedProvider);
  expect(bothDown.reason).toBe('no kind CLI on PATH, no Docker daemon found');
});
