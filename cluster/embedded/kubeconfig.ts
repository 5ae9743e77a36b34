import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  caCert: string;
  token: string;
  name?: string;
  namespace?: string;
}

/** A kubeconfig that verifies the cluster's own CA and authenticates with its bearer token. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? 'embedded';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.server, 'certificate-authority-data': Buffer.from(options.caCert).toString('base64') } }],
    users: [{ name: `${name}-admin`, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: `${name}-admin`, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
