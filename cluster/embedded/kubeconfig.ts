import { stringify } from 'yaml';

export interface KubeconfigOptions {
  server: string;
  caCert: string;
  token: string;
  name?: string;
  namespace?: string;
  /** The kubeconfig's user entry name; default `<name>-admin`. */
  user?: string;
}

/** A kubeconfig that verifies the cluster's own CA and authenticates with its bearer token. */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? 'embedded';
  const user = options.user ?? `${name}-admin`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.server, 'certificate-authority-data': Buffer.from(options.caCert).toString('base64') } }],
    users: [{ name: user, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user, namespace: options.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
