import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

export interface ServiceAccountKubeconfigOptions {
  /** Token lifetime; the API server may shorten it. Default 24 h. */
  expirationSeconds?: number;
  audiences?: string[];
}

/**
 * A kubeconfig that acts as a ServiceAccount, made through the public API on any cluster (kind,
 * an existing one, the embedded one): a TokenRequest (`serviceaccounts/<name>/token`, what
 * `kubectl create token` calls) with the caller's credentials, and the caller's cluster entry
 * (server and CA) with that token as the user. RBAC then decides what the holder may do.
 */
export async function serviceAccountKubeconfig(
  adminKubeconfig: string,
  namespace: string,
  name: string,
  options: ServiceAccountKubeconfigOptions = {},
): Promise<string> {
  const admin = new KubeConfig();
  admin.loadFromString(adminKubeconfig);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster: set current-context to the cluster the ServiceAccount lives in');
  const request = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: options.expirationSeconds ?? 24 * 3600, audiences: options.audiences ?? [] } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`the TokenRequest for ServiceAccount ${namespace}/${name} returned no token`);
  const user = `system:serviceaccount:${namespace}:${name}`;
  const result = new KubeConfig();
  result.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user, namespace }],
    currentContext: user,
  });
  return result.exportConfig();
}
