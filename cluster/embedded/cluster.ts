import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { AccessControl } from './auth/access-control.ts';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './auth/rbac/bootstrap-policy.ts';
import { ApiServer } from './api/http-server.ts';
import { RequestLog } from './api/request-log.ts';
import { AGENT_SANDBOX_WEBHOOK, convertSandbox } from './agent-sandbox/conversion.ts';
import { installAgentSandbox, type AgentSandboxInstallation, type AgentSandboxVersion } from './agent-sandbox/install.ts';
import type { RealismOptions, ResolvedRealism } from './agent-sandbox/realism.ts';
import { claimAddressBlock, type AddressBlock } from './address-block.ts';
import { ValidatingAdmissionPolicyPlugin } from './admission/policy-plugin.ts';
import { PolicyStatusController } from './admission/policy-status-controller.ts';
import { ClusterRoleAggregationController } from './controllers/clusterrole-aggregation-controller.ts';
import { CrdController } from './controllers/crd-controller.ts';
import { EndpointsController } from './controllers/endpoints-controller.ts';
import { ServiceProxy } from './node/service-proxy.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { NamespaceController } from './controllers/namespace-controller.ts';
import type { Controller } from './controllers/controller-base.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { NodeAgent, type NodeAgentOptions } from './node/node-agent.ts';
import { builtinTypes } from './registry/builtin-types.ts';
import { ConversionWebhooks } from './registry/conversion-webhooks.ts';
import { ObjectApi } from './registry/object-api.ts';
import { ResourceRegistry } from './registry/resource-registry.ts';
import { ObjectStore } from './store/object-store.ts';
import { generateServingCertificate } from './tls.ts';

export interface EmbeddedClusterOptions {
  /** Where to write the kubeconfig; omitted = not written (kubeconfig() still returns it). */
  kubeconfigPath?: string;
  /** Replayable history for watches and paginated lists (events); older versions answer 410. */
  historyLimit?: number;
  /** How often idle watches that allow bookmarks receive one. */
  bookmarkIntervalMs?: number;
  port?: number;
  /** Runs a node agent (scheduler, containers as processes, logs, exec); omitted = no node. */
  node?: NodeAgentOptions;
  /** Installs Agent Sandbox (CRDs + controller) with this version's behaviour profile; omitted = not installed. */
  agentSandbox?: AgentSandboxVersion;
  /** Real-cluster timing of the Agent Sandbox controller: on by default, seeded (agent-sandbox/realism.ts). */
  agentSandboxRealism?: RealismOptions;
}

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/**
 * An in-process Kubernetes: store, API server over HTTPS, and the control-plane controllers
 * (garbage collector, namespaces, CRDs). It knows nothing of drivers, lanes or scenarios.
 */
export class EmbeddedCluster {
  readonly store: ObjectStore;
  readonly registry = new ResourceRegistry();
  readonly api: ObjectApi;
  /** Every client request the API server admits, for tests to count and spy on (it changes nothing). */
  readonly requests = new RequestLog();
  readonly webhooks = new ConversionWebhooks();
  readonly token = randomBytes(24).toString('hex');
  readonly access: AccessControl;
  private server?: ApiServer;
  private nodeAgent?: NodeAgent;
  private serviceProxy?: ServiceProxy;
  private addresses?: AddressBlock;
  private agentSandbox?: AgentSandboxInstallation;
  private controllers: Controller[] = [];
  private caCert = '';
  private port = 0;

  private constructor(private readonly options: EmbeddedClusterOptions) {
    this.store = new ObjectStore({ historyLimit: options.historyLimit });
    this.api = new ObjectApi(this.store, this.registry);
    this.access = new AccessControl(this.store, this.token);
    // The conversion webhook Agent Sandbox's controller binary serves, in-process.
    this.webhooks.register(AGENT_SANDBOX_WEBHOOK, convertSandbox);
  }

  static async start(options: EmbeddedClusterOptions = {}): Promise<EmbeddedCluster> {
    const cluster = new EmbeddedCluster(options);
    await cluster.boot();
    return cluster;
  }

  private async boot(): Promise<void> {
    this.addresses = await claimAddressBlock();
    for (const type of builtinTypes(this.addresses.octet)) this.registry.add(type);
    const namespaces = this.api.target('v1', 'namespaces');
    for (const name of INITIAL_NAMESPACES) this.api.create(namespaces, { metadata: { name } });
    this.api.validatingAdmission = new ValidatingAdmissionPolicyPlugin(this.api);
    for (const role of bootstrapClusterRoles()) this.api.create(this.api.target('rbac.authorization.k8s.io/v1', 'clusterroles'), role);
    for (const binding of bootstrapClusterRoleBindings()) this.api.create(this.api.target('rbac.authorization.k8s.io/v1', 'clusterrolebindings'), binding);
    this.controllers = [
      new GarbageCollector(this.api),
      new NamespaceController(this.api),
      new CrdController(this.api, this.webhooks),
      new EndpointsController(this.api),
      new ClusterRoleAggregationController(this.api),
      new PolicyStatusController(this.api),
    ];
    const tls = await generateServingCertificate();
    this.caCert = tls.cert;
    this.server = new ApiServer(this.api, this.requests, { access: this.access, tls, bookmarkIntervalMs: this.options.bookmarkIntervalMs });
    this.port = await this.server.listen('127.0.0.1', this.options.port ?? 0);
    if (this.options.node) {
      this.nodeAgent = await NodeAgent.start(this.api, this.options.node, { addressOctet: this.addresses.octet });
      this.server.setNodeBackend(this.nodeAgent);
      this.server.setFaultHooks('node-faults', this.nodeAgent.faults);
      this.serviceProxy = new ServiceProxy(this.api);
      this.serviceProxy.start();
    }
    if (this.options.agentSandbox) {
      this.agentSandbox = await installAgentSandbox(this, this.options.agentSandbox, { realism: this.options.agentSandboxRealism });
      this.server.setFaultHooks('controller-faults', this.agentSandbox.controller.faultHooks);
    }
    if (this.options.kubeconfigPath) {
      await mkdir(dirname(this.options.kubeconfigPath), { recursive: true });
      await writeFile(this.options.kubeconfigPath, this.kubeconfig(), { mode: 0o600 });
    }
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get certificateAuthority(): string {
    return this.caCert;
  }

  /** The Agent Sandbox controller's realism as resolved (its seed reproduces the run); undefined when not installed. */
  get agentSandboxRealism(): ResolvedRealism | undefined {
    return this.agentSandbox?.controller.realism;
  }

  /** When the node's relist ticker started (epoch ms; node-agent.ts); undefined without a node. */
  get nodeRelistStart(): number | undefined {
    return this.nodeAgent?.relistStart;
  }

  kubeconfig(): string {
    return renderKubeconfig({ server: this.url, caCert: this.caCert, token: this.token });
  }

  /**
   * A kubeconfig that acts as a ServiceAccount (it must exist): a token from the TokenRequest API
   * (`expirationSeconds`, default 24 h), so RBAC decides what it may do. The same can be had from any
   * cluster through the public API (TokenRequest, cluster/service-account-kubeconfig.ts).
   */
  kubeconfigForServiceAccount(namespace: string, name: string, options: { expirationSeconds?: number } = {}): string {
    const { token } = this.access.tokens.issue(namespace, name, { expirationSeconds: options.expirationSeconds ?? 24 * 3600 });
    return renderKubeconfig({ server: this.url, caCert: this.caCert, token, user: `system:serviceaccount:${namespace}:${name}`, namespace });
  }

  async stop(): Promise<void> {
    this.agentSandbox?.stop();
    await this.serviceProxy?.stop();
    await this.nodeAgent?.stop();
    for (const controller of this.controllers) controller.stop();
    await this.server?.close();
    await this.addresses?.release();
  }
}
