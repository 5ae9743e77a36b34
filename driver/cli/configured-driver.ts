import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DRIVER_VARIANTS, type DriverVariant, type WorkspaceMode } from '../compute-driver.ts';
import type { KubernetesDriver } from '../kubernetes/kubernetes-driver.ts';
import { fail, nonNegativeInteger, oneOf, usage, type OptionValues } from './options.ts';

/** The Kubernetes driver for the kubeconfig given (or the default one), configured from the flags. */
export async function configuredDriver(
  values: OptionValues,
  settings: { reconcileIntervalMs?: number; supervisorGraceSeconds?: number; workloadGraceSeconds?: number; log: (line: string) => void },
): Promise<KubernetesDriver> {
  const workspaceMode = oneOf<WorkspaceMode>(values, 'mode', ['shared', 'managed', 'operator']);
  const variant = oneOf<DriverVariant>(values, 'variant', [...DRIVER_VARIANTS]);
  const apiHeadroomSeconds = nonNegativeInteger(values, 'api-headroom');
  const supervisorReadySeconds = nonNegativeInteger(values, 'supervisor-ready');
  // 0 would fail every start before its supervisor could be scheduled.
  if (supervisorReadySeconds === 0) usage('--supervisor-ready must be at least 1 second, got "0"');
  const { reconcileIntervalMs, supervisorGraceSeconds, workloadGraceSeconds, log } = settings;
  if (values.namespace !== undefined && values.namespace.trim() === '') usage('--namespace must not be empty');
  const gatewayId = values['gateway-id'];
  // A label value, and part of managed namespace names (a DNS label): lower-case alphanumerics and '-', at most 20.
  if (gatewayId !== undefined && !/^[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?$/.test(gatewayId)) {
    usage(`--gateway-id must be 1-20 lower-case letters, digits or '-', starting and ending with a letter or digit; got ${JSON.stringify(gatewayId)}`);
  }
  if (values.kubeconfig !== undefined && !existsSync(resolve(values.kubeconfig))) fail(`kubeconfig ${values.kubeconfig} does not exist`);

  // Loaded here, not at the top: commands against a socket do not need the Kubernetes client.
  const k8s = await import('@kubernetes/client-node');
  const { KubernetesDriver } = await import('../kubernetes/kubernetes-driver.ts');
  const kubeconfig = new k8s.KubeConfig();
  if (values.kubeconfig !== undefined) {
    try {
      kubeconfig.loadFromFile(resolve(values.kubeconfig));
    } catch (error) {
      fail(`cannot load kubeconfig ${values.kubeconfig}: ${(error as Error).message}`);
    }
  } else {
    try {
      kubeconfig.loadFromDefault();
    } catch (error) {
      fail(`cannot load the default kubeconfig ($KUBECONFIG or ~/.kube/config): ${(error as Error).message}`);
    }
  }
  const cluster = kubeconfig.getCurrentCluster();
  if (!cluster) fail(`the kubeconfig${values.kubeconfig ? ` ${values.kubeconfig}` : ''} names no current cluster`);

  log(`compute driver: cluster ${cluster.server} (context ${kubeconfig.getCurrentContext()})`);
  try {
    return new KubernetesDriver({
      kubeconfig,
      ...(workspaceMode && { workspaceMode }),
      ...(values.namespace !== undefined && { namespace: values.namespace }),
      ...(gatewayId !== undefined && { gatewayId }),
      ...(variant && { variant }),
      ...(supervisorGraceSeconds !== undefined && { supervisorGraceSeconds }),
      ...(workloadGraceSeconds !== undefined && { workloadGraceSeconds }),
      ...(apiHeadroomSeconds !== undefined && { apiHeadroomSeconds }),
      ...(supervisorReadySeconds !== undefined && { supervisorReadySeconds }),
      ...(reconcileIntervalMs !== undefined && { reconcileIntervalMs }),
      log,
    });
  } catch (error) {
    fail(`cannot start the compute driver: ${(error as Error).message}`);
  }
}
