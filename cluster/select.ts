import type { ClusterProvider, ProviderName } from './cluster-provider.ts';
import { EmbeddedProvider } from './embedded-provider.ts';
import { ExistingProvider, type ExistingProviderOptions } from './existing/existing-provider.ts';
import { KindProvider, type KindProviderOptions } from './kind/kind-provider.ts';

const PROVIDER_NAMES: readonly ProviderName[] = ['embedded', 'kind', 'existing'];

interface ChooseOptions {
  /** Environment for the kind/docker probes and the kind provider (merged over process.env). */
  env?: Record<string, string | undefined>;
  kind?: Omit<KindProviderOptions, 'env'>;
  existing?: Omit<ExistingProviderOptions, 'env'>;
}

interface ProviderChoice {
  provider: ClusterProvider;
  /** Why this provider, for the caller to print: `cluster: embedded (no Docker daemon found)`. */
  reason: string;
}

/**
 * The cluster provider for `--cluster embedded|kind|existing`. Without a choice: kind when a
 * kind CLI new enough, a running Docker daemon and kubectl are all there, else the embedded
 * cluster, naming each missing piece. An explicit choice is taken as is; its provider reports
 * what is missing when it brings the cluster up.
 */
export async function chooseProvider(requested: string | undefined, options: ChooseOptions = {}): Promise<ProviderChoice> {
  const kind = () => new KindProvider({ ...options.kind, env: options.env });
  switch (requested) {
    case 'embedded':
      return { provider: new EmbeddedProvider(), reason: 'requested with --cluster embedded' };
    case 'kind':
      return { provider: kind(), reason: 'requested with --cluster kind' };
    case 'existing': {
      const provider = new ExistingProvider({ ...options.existing, env: options.env ? { ...process.env, ...options.env } : undefined });
      const files = provider.kubeconfigFiles().join(', ');
      return { provider, reason: `requested with --cluster existing; kubeconfig ${files}${options.existing?.context ? `, context ${options.existing.context}` : ''}` };
    }
    case undefined:
    case '': {
      const provider = kind();
      const availability = await provider.availability();
      if (availability.ok) return { provider, reason: `kind ${availability.kindVersion}, a running Docker daemon and kubectl were found` };
      return { provider: new EmbeddedProvider(), reason: availability.missing.map((p) => p.short).join(', ') };
    }
    default:
      throw new Error(`unknown cluster "${requested}"; --cluster takes one of: ${PROVIDER_NAMES.join(', ')}`);
  }
}
