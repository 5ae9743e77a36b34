/**
 * Installs an Agent Sandbox release from its verified local manifest with kubectl and waits
 * until it can serve a lane: the Sandbox CRD Established, the controller rolled out, and — for
 * releases that convert between Sandbox versions with a webhook (v0.5.x) — the webhook's
 * caBundle injected into the CRD by the controller. Until then the API server cannot call the
 * webhook, and every v1alpha1 request fails.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { KUBECTL_NOT_FOUND } from './availability.ts';
import type { Commands } from './commands.ts';

const SANDBOX_CRD = 'crd/sandboxes.agents.x-k8s.io';
const CONTROLLER_NAMESPACE = 'agent-sandbox-system';
const CONTROLLER_DEPLOYMENT = 'deploy/agent-sandbox-controller';

export interface InstallTarget {
  kubectl: string;
  kubeconfigPath: string;
  context?: string;
  /** Agent Sandbox version, for messages. */
  version: string;
  manifestPath: string;
  /** Between two looks at the CRD's caBundle (default 2 s). */
  pollMs?: number;
}

/** `{.spec.conversion.strategy} {…caBundle}` of the CRD -> whether the install still waits for the webhook. */
function conversionWebhookPending(jsonpathOutput: string): boolean {
  const [strategy = '', caBundle = ''] = jsonpathOutput.trim().split(/\s+/);
  return strategy === 'Webhook' && caBundle === '';
}

export async function installAgentSandbox(commands: Commands, target: InstallTarget, progress: (line: string) => void): Promise<void> {
  const kubeTarget = ['--kubeconfig', target.kubeconfigPath, ...(target.context ? ['--context', target.context] : [])];
  const kubectl = (step: string, args: string[], limit: 'install' | 'probe' = 'install') =>
    commands.run(target.kubectl, [...kubeTarget, ...args], { step, limit, notFound: KUBECTL_NOT_FOUND });

  progress(`kind: installing Agent Sandbox ${target.version} (kubectl apply -f ${target.manifestPath})`);
  await kubectl(`install Agent Sandbox ${target.version}`, ['apply', '-f', target.manifestPath]);
  progress(`kind: waiting for ${SANDBOX_CRD} to be Established`);
  await kubectl('wait for the Sandbox CRD', ['wait', '--for=condition=Established', SANDBOX_CRD, '--timeout=120s']);
  progress(`kind: waiting for the rollout of ${CONTROLLER_NAMESPACE}/${CONTROLLER_DEPLOYMENT}`);
  await kubectl('wait for the Agent Sandbox controller', ['-n', CONTROLLER_NAMESPACE, 'rollout', 'status', CONTROLLER_DEPLOYMENT, '--timeout=180s']);

  const read = ['get', SANDBOX_CRD, '-o', 'jsonpath={.spec.conversion.strategy} {.spec.conversion.webhook.clientConfig.caBundle}'];
  const deadline = Date.now() + commands.timeouts.install;
  if (!conversionWebhookPending(await kubectl('read the Sandbox CRD conversion', read, 'probe'))) return;
  progress(`kind: waiting for the controller to inject the conversion webhook's caBundle into ${SANDBOX_CRD}`);
  for (;;) {
    await sleep(target.pollMs ?? 2_000);
    if (!conversionWebhookPending(await kubectl('read the Sandbox CRD conversion', read, 'probe'))) return;
    if (Date.now() > deadline) {
      throw new Error(
        `wait for the conversion webhook: ${SANDBOX_CRD} has no spec.conversion.webhook.clientConfig.caBundle after ${commands.timeouts.install / 1000} s (\`${target.kubectl} ${[...kubeTarget, ...read].join(' ')}\`); the controller injects it at start-up: see \`${target.kubectl} ${kubeTarget.join(' ')} -n ${CONTROLLER_NAMESPACE} logs ${CONTROLLER_DEPLOYMENT}\``,
      );
    }
  }
}
