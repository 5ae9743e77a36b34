/**
 * The set-up of the fault proxy's tests: one embedded cluster per test file (with the real
 * kubectl run against it, cluster/embedded/test-kit.ts) and a FaultProxy in front of it, whose
 * client kubeconfigs the tests hand to @kubernetes/client-node and kubectl. Both the driver's
 * identity and the third party are the cluster's administrator here: RBAC is not what these
 * tests are about. Other rooms' tests put a proxy in front of their own cluster with
 * `proxyInFront` and count faults with `activateTimes`.
 */
import * as k8s from '@kubernetes/client-node';
import { test } from '@playwright/test';
import { request, type RequestOptions } from 'node:https';
import { join } from 'node:path';
import type { EmbeddedCluster, EmbeddedClusterOptions } from '../../cluster/embedded/cluster.ts';
import { KubectlFixture } from '../../cluster/embedded/test-kit.ts';
import { FaultProxy } from './fault-proxy.ts';
import type { ActiveFault, ProxyFaultSpec } from './proxy-fault.ts';

export type { FaultProxy };

/** The cluster's own administrator kubeconfig. */
export function adminKubeconfig(cluster: EmbeddedCluster): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(cluster.kubeconfig());
  return kc;
}

/** A FaultProxy in front of `cluster`, its administrator as both the driver and the third party; the caller closes it. */
export function proxyInFront(cluster: EmbeddedCluster): Promise<FaultProxy> {
  const admin = adminKubeconfig(cluster);
  return FaultProxy.start({ upstream: admin, thirdParty: admin });
}

/** `spec` in force until it has acted `times` times, then healed: a counted fault, as a schedule makes one. */
export function activateTimes(proxy: FaultProxy, spec: ProxyFaultSpec, times: number): ActiveFault {
  const fault: ActiveFault = proxy.activate(spec, () => {
    if (fault.applied >= times) void fault.heal();
  });
  return fault;
}

/** `promise`, or a failure naming `stage` once `ms` pass without it settling. */
export async function within<T>(promise: Promise<T>, stage: string, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${stage}: not within ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export class ProxyFixture {
  proxy!: FaultProxy;
  /** client-node's clients through the proxy as client 0. */
  core!: k8s.CoreV1Api;
  /** client-node straight to the cluster, for the truth behind the proxy. */
  direct!: k8s.CoreV1Api;
  private namespaces = 0;

  private constructor(readonly kubectl: KubectlFixture) {}

  static register(options: Omit<EmbeddedClusterOptions, 'kubeconfigPath'> = {}): ProxyFixture {
    const fixture = new ProxyFixture(KubectlFixture.register(options));
    test.beforeAll(async () => fixture.start());
    test.afterAll(async () => fixture.proxy?.close());
    return fixture;
  }

  adminKubeconfig(): k8s.KubeConfig {
    return adminKubeconfig(this.kubectl.cluster);
  }

  private async start(): Promise<void> {
    this.proxy = await proxyInFront(this.kubectl.cluster);
    this.core = this.proxy.kubeconfig(0).makeApiClient(k8s.CoreV1Api);
    this.direct = this.adminKubeconfig().makeApiClient(k8s.CoreV1Api);
  }

  /** The path of client `client`'s kubeconfig file for kubectl (written beside the cluster's). */
  kubeconfigFile(client: number): string {
    const path = join(this.kubectl.kubeconfigPath, '..', `proxy-client-${client}.kubeconfig`);
    this.proxy.writeKubeconfig(path, client);
    return path;
  }

  /** A namespace of one test's own, made straight on the cluster. */
  async namespace(prefix: string): Promise<string> {
    const name = `${prefix}-${++this.namespaces}`;
    await this.direct.createNamespace({ body: { metadata: { name } } });
    return name;
  }

  /** A raw HTTPS request through the proxy as `kubeconfig` would send it: status, headers and the body's text. */
  async raw(kubeconfig: k8s.KubeConfig, method: string, path: string, body?: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
    const options: RequestOptions & { headers: Record<string, string> } = { headers: {} };
    await kubeconfig.applyToHTTPSOptions(options);
    const url = new URL(kubeconfig.getCurrentCluster()!.server + path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, ca: options.ca, agent: false, headers: { ...options.headers, accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.once('error', reject);
      req.end(payload);
    });
  }
}
