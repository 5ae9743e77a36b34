import { createHash } from 'node:crypto';
import * as https from 'node:https';
import * as k8s from '@kubernetes/client-node';

/** Idle keep-alive connections kept for reuse; busier moments open more and let them go. */
const MAX_IDLE_SOCKETS = 16;
/**
 * An idle connection is closed after this long (the agent's socket timeout only ends free
 * sockets): well before a server's keep-alive timeout (Node's 5 s, the embedded API server's),
 * so a request is not sent on a connection the server is closing at that moment.
 */
const IDLE_SOCKET_MS = 2_000;

/**
 * client-node's authentication, with one keep-alive connection pool per driver instance.
 *
 * client-node 1.x hands every request an `https.Agent` of its own (its KubeConfig builds one
 * per request), so every GET of every waiting call opened, handshook and dropped a TLS
 * connection of its own: with a hundred sandboxes in flight, hundreds of connections at once,
 * the driver's memory and CPU growing with them. This keeps everything client-node applies —
 * headers, tokens, exec and OIDC credentials, the TLS material of the kubeconfig — and only
 * swaps that per-request agent for one pooled keep-alive agent made from the same TLS options
 * (made again if they change, e.g. a rotated client certificate). Client-node has no option for
 * it, hence this wrapper. A proxied cluster keeps client-node's agent as made.
 */
export class PooledConnections implements k8s.SecurityAuthentication {
  private agent?: https.Agent;
  private fingerprint?: string;

  constructor(private readonly config: k8s.KubeConfig) {}

  getName(): string {
    return 'pooled-connections';
  }

  async applySecurityAuthentication(context: k8s.RequestContext): Promise<void> {
    await this.config.applySecurityAuthentication(context);
    this.pool(context);
  }

  /** Swaps the agent client-node made for `context` for the pooled one (made from the same TLS options). */
  pool(context: k8s.RequestContext): void {
    const made = context.getAgent();
    if (!(made instanceof https.Agent) || this.config.getCurrentCluster()?.proxyUrl) return;
    const options = made.options;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([options.ca, options.cert, options.key, options.pfx, options.passphrase, options.servername, options.rejectUnauthorized].map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : v ?? null))))
      .digest('hex');
    if (fingerprint !== this.fingerprint) {
      this.agent?.destroy();
      this.agent = new https.Agent({ ...options, keepAlive: true, maxFreeSockets: MAX_IDLE_SOCKETS, timeout: IDLE_SOCKET_MS });
      this.fingerprint = fingerprint;
    }
    context.setAgent(this.agent!);
  }

  /** A client of `apiClientType` (CoreV1Api, KubernetesObjectApi, ...) whose requests share the pool. */
  client<T>(apiClientType: new (configuration: k8s.Configuration) => T): T {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    return new apiClientType(k8s.createConfiguration({ baseServer: new k8s.ServerConfiguration(cluster.server, {}), authMethods: { default: this } }));
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
    this.fingerprint = undefined;
  }
}

/**
 * A KubeConfig whose API clients (`makeApiClient`, `KubernetesObjectApi.makeApiClient`) share
 * one keep-alive connection pool, as the driver's do: for the harness's own many short reads in
 * a test worker, which otherwise open and handshake a TLS connection each (both ends paying
 * for it). Watches, logs and exec keep their own connections. `close()` ends the pool.
 */
export class PooledKubeConfig extends k8s.KubeConfig {
  private readonly connections = new PooledConnections(this);

  override async applySecurityAuthentication(context: k8s.RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    this.connections.pool(context);
  }

  close(): void {
    this.connections.close();
  }
}
