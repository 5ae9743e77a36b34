/**
 * Shared set-up of the kind provider tests: one embedded cluster per test file (what the stub
 * kind hands out as every cluster's kubeconfig, so kubectl apply/wait and the handle run for
 * real), a stand-in release manifest in an AGENT_SANDBOX_MANIFESTS folder with its digest
 * pinned in a table of the test's own, and fresh stubs per test.
 */
import { test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureImageCatalog } from '../../fixtures/images/catalog.ts';
import { sharedV1beta1 } from '../../lanes/shared-v1beta1.ts';
import { EmbeddedCluster } from '../embedded/cluster.ts';
import type { ManifestOptions } from '../manifests/agent-sandbox-manifests.ts';
import type { ProviderOptions } from '../provider.ts';
import { KindProvider, type KindProviderOptions } from './provider.ts';
import { writeStubs, type StubOptions } from './test-stubs.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const NAME = 'sandbox-conformance-shared-v1beta1';
export const CRD_NAME = 'sandboxes.agents.x-k8s.io';
export const fixtureDir = (name: string) => resolve(REPO, 'fixtures/images', name);

/** What kubectl applies in place of the release manifest: one ConfigMap, so the apply is visible. */
export const STAND_IN_MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied-by-kind-provider\n  namespace: agent-sandbox-system\ndata:\n  from: stub\n';

export interface KindTestKit {
  cluster(): EmbeddedCluster;
  /** The stand-in manifest the provider installs (verified by the real resolver). */
  manifestPath(): string;
  /** Sets or removes the CRD's conversion caBundle, as the real controller injects it. */
  setCaBundle(value: string | null): void;
  setup(stubs?: StubOptions, provider?: Omit<KindProviderOptions, 'env' | 'manifests'>): Promise<KindRun>;
}

export interface KindRun {
  dir: string;
  stubs: Awaited<ReturnType<typeof writeStubs>>;
  progress: string[];
  provider: KindProvider;
  kubeconfigPath: string;
  reportDir: string;
  options(extra?: Partial<ProviderOptions>): ProviderOptions;
}

/** Registers the file's beforeAll/afterAll and returns the kit. */
export function kindTestKit(): KindTestKit {
  let root = '';
  let embedded: EmbeddedCluster;
  let manifests: ManifestOptions;
  let runs = 0;

  test.beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kind-provider-test-'));
    embedded = await EmbeddedCluster.start({ kubeconfigPath: join(root, 'embedded.kubeconfig'), node: { images: fixtureImageCatalog }, agentSandbox: sharedV1beta1.agentSandbox.version });
    const envDir = join(root, 'upstream');
    await mkdir(join(envDir, 'v0.5.0'), { recursive: true });
    await writeFile(join(envDir, 'v0.5.0', 'manifest.yaml'), STAND_IN_MANIFEST);
    const sha256 = createHash('sha256').update(STAND_IN_MANIFEST).digest('hex');
    manifests = { env: { AGENT_SANDBOX_MANIFESTS: envDir, XDG_CACHE_HOME: join(root, 'empty-cache') }, releases: { 'v0.5.0': { sha256 } } };
    kit.setCaBundle('Y2EtYnVuZGxl');
  });

  test.afterAll(async () => {
    await embedded?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const kit: KindTestKit = {
    cluster: () => embedded,
    manifestPath: () => join(root, 'upstream', 'v0.5.0', 'manifest.yaml'),
    setCaBundle(value) {
      const api = embedded.api;
      api.patch(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), CRD_NAME, 'merge', { spec: { conversion: { webhook: { clientConfig: { caBundle: value } } } } });
    },
    async setup(stubOptions = {}, providerOptions = {}) {
      const dir = join(root, `run-${++runs}`);
      const stubs = await writeStubs(dir, { kubeconfigPath: join(root, 'embedded.kubeconfig'), ...stubOptions });
      const progress: string[] = [];
      const workDir = join(dir, 'work');
      const reportDir = join(dir, 'reports');
      return {
        dir,
        stubs,
        progress,
        provider: new KindProvider({ env: stubs.env, manifests, pollMs: 50, ...providerOptions }),
        kubeconfigPath: join(workDir, `${NAME}.kubeconfig`),
        reportDir,
        options: (extra = {}) => ({ keep: false, workDir, reportDir, progress: (line: string) => progress.push(line), ...extra }),
      };
    },
  };
  return kit;
}
