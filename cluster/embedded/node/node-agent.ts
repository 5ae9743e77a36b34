import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, errors } from '../errors.ts';
import type { ExecOptions, ExecResult, ExecSession } from '../api/exec-stream.ts';
import type { NodeBackend, PodLogOptions } from '../api/node-backend.ts';
import type { ObjectApi } from '../registry/object-api.ts';
import type { StoreEvent } from '../store/object-store.ts';
import { type KubeObject, metaTime } from '../types.ts';
import type { DataSource } from './container-env.ts';
import { EventRecorder } from './event-recorder.ts';
import { NodeFaults } from './node-faults.ts';
import type { ImageCatalog } from './images.ts';
import { PodIpAllocator } from './pod-network.ts';
import { PodWorker } from './pod-worker.ts';
import { runCommand } from './process-runtime.ts';
import { Scheduler } from './scheduler.ts';
import { PodFilesystem } from './volumes.ts';
import { PassThrough, type Readable } from 'node:stream';

export interface NodeAgentOptions {
  nodeName?: string;
  images?: ImageCatalog;
  /** First restart back-off (kubelet: 10 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Where Pod roots and PVC data live; a fresh temporary directory by default, removed on stop. */
  stateDir?: string;
}

/** What the cluster hands its node: the loopback block for Pod IPs. */
export interface NodeAgentPlacement {
  addressOctet: number;
}

const HOST_IP = '127.0.0.1';

/**
 * The node: registers a Ready Node, schedules Pods onto it, runs their containers as host
 * processes (PodWorker), serves their logs and exec, and keeps PVC data until the claim goes.
 */
export class NodeAgent implements NodeBackend {
  readonly nodeName: string;
  /** Containers slow to stop, added through the admin endpoint (node-faults.ts). */
  readonly faults = new NodeFaults();
  private readonly workers = new Map<string, PodWorker>();
  /** When the node's relist ticker started (epoch ms), as the kubelet's runs from its start: it times when started containers are seen running (readiness-probe.ts). */
  readonly relistStart = Date.now();
  private readonly ips: PodIpAllocator;
  private readonly events: EventRecorder;
  private scheduler?: Scheduler;
  private unsubscribe?: () => void;
  private stateDir = '';
  private ownsStateDir = false;

  private constructor(
    private readonly api: ObjectApi,
    private readonly options: NodeAgentOptions,
    placement: NodeAgentPlacement,
  ) {
    this.ips = new PodIpAllocator(placement.addressOctet);
    this.nodeName = options.nodeName ?? 'embedded-node';
    this.events = new EventRecorder(api, 'kubelet', this.nodeName);
  }

  static async start(api: ObjectApi, options: NodeAgentOptions, placement: NodeAgentPlacement): Promise<NodeAgent> {
    const agent = new NodeAgent(api, options, placement);
    await agent.boot();
    return agent;
  }

  private async boot(): Promise<void> {
    this.ownsStateDir = !this.options.stateDir;
    this.stateDir = this.options.stateDir ?? (await mkdtemp(join(tmpdir(), 'embedded-node-')));
    this.registerNode();
    this.scheduler = new Scheduler(this.api, this.nodeName, new EventRecorder(this.api, 'default-scheduler', this.nodeName));
    this.unsubscribe = this.api.store.subscribe(this.api.store.currentRevision(), (event) => this.observe(event));
    for (const pod of this.api.store.list('pods')) this.observe({ revision: 0, type: 'ADDED', resource: 'pods', object: pod });
  }

  /** Stops every container at once (SIGKILL) and removes the node's files. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.scheduler?.stop();
    await Promise.allSettled([...this.workers].map(([uid, worker]) => this.release(uid, worker)));
    if (this.ownsStateDir) await rm(this.stateDir, { recursive: true, force: true });
  }

  private registerNode(): void {
    const target = this.api.target('v1', 'nodes');
    if (this.api.store.get('nodes', undefined, this.nodeName)) return;
    const stamp = metaTime();
    const node = this.api.create(target, {
      metadata: { name: this.nodeName, labels: { 'kubernetes.io/hostname': this.nodeName, 'kubernetes.io/os': 'linux', 'node-role.kubernetes.io/control-plane': '' } },
      spec: {},
    }).object;
    this.api.update(target, this.nodeName, {
      ...node,
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: stamp, lastTransitionTime: stamp }],
        addresses: [{ type: 'InternalIP', address: HOST_IP }, { type: 'Hostname', address: this.nodeName }],
        capacity: { cpu: '2', memory: '24Gi', pods: '1000' },
        allocatable: { cpu: '2', memory: '24Gi', pods: '1000' },
        nodeInfo: { kubeletVersion: 'v1.32.0+embedded', containerRuntimeVersion: 'embedded://processes', operatingSystem: 'linux', architecture: process.arch === 'x64' ? 'amd64' : process.arch },
      },
    }, { subresource: 'status' });
  }

  private observe(event: StoreEvent): void {
    if (event.resource === 'persistentvolumeclaims' && event.type === 'DELETED') {
      void rm(this.pvcDir(event.object.metadata.namespace!, event.object.metadata.name!), { recursive: true, force: true });
      return;
    }
    if (event.resource !== 'pods') return;
    const pod = event.object;
    const uid = pod.metadata.uid!;
    const worker = this.workers.get(uid);
    if (event.type === 'DELETED') {
      // Released after graceful termination, or force-deleted: stop whatever still runs, then free the Pod's IP and files.
      if (worker) void this.release(uid, worker);
      return;
    }
    if ((pod.spec as { nodeName?: string }).nodeName !== this.nodeName) return;
    if (worker) return worker.observe(pod);
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') {
      // A finished Pod that is deleted has nothing left to stop.
      if (pod.metadata.deletionTimestamp) this.api.finalizeGracefulDeletion(this.api.target('v1', 'pods', pod.metadata.namespace), pod.metadata.name!, uid);
      return;
    }
    this.startWorker(pod);
  }

  private startWorker(pod: KubeObject): void {
    const uid = pod.metadata.uid!;
    const ip = this.ips.allocate();
    const fs = new PodFilesystem(join(this.stateDir, 'pods', `${pod.metadata.namespace}_${pod.metadata.name}_${uid}`), (ns, claim) => this.pvcDir(ns, claim));
    const worker = new PodWorker(pod, ip, fs, {
      api: this.api,
      events: this.events,
      images: this.options.images ?? {},
      data: this.dataSource(pod.metadata.namespace!),
      nodeName: this.nodeName,
      hostIP: HOST_IP,
      backoffMs: this.options.backoffMs ?? 10_000,
      maxBackoffMs: this.options.maxBackoffMs ?? 300_000,
      faults: this.faults,
      relistStart: this.relistStart,
    });
    this.workers.set(uid, worker);
    if (pod.metadata.deletionTimestamp) worker.observe(pod);
  }

  /** A finished Pod keeps its IP, files and logs until its object is gone, as on a real node. */
  private async release(uid: string, worker: PodWorker): Promise<void> {
    worker.kill();
    await worker.done;
    this.workers.delete(uid);
    this.ips.release(worker.podIP);
    await worker.fs.remove();
  }

  private pvcDir(namespace: string, claim: string): string {
    return join(this.stateDir, 'pvcs', namespace, claim);
  }

  private dataSource(namespace: string): DataSource {
    return (kind, name) => {
      const object = this.api.store.get(kind === 'Secret' ? 'secrets' : 'configmaps', namespace, name);
      if (!object) return undefined;
      const result: Record<string, string> = {};
      for (const [key, value] of Object.entries((object.data ?? {}) as Record<string, string>)) result[key] = kind === 'Secret' ? Buffer.from(value, 'base64').toString('utf8') : value;
      for (const [key, value] of Object.entries((object.binaryData ?? {}) as Record<string, string>)) result[key] = Buffer.from(value, 'base64').toString('utf8');
      return result;
    };
  }

  // ---- NodeBackend: what the API server asks of the node ----

  logs(pod: KubeObject, options: PodLogOptions, signal: AbortSignal): Readable {
    const worker = this.workers.get(pod.metadata.uid!);
    const log = worker?.logs(options.container, options.previous);
    if (!log) {
      if (options.previous) throw errors.badRequest(`previous terminated container "${options.container}" in pod "${pod.metadata.name}" not found`);
      const empty = new PassThrough();
      empty.end();
      if (!worker) return empty;
      throw errors.badRequest(`container "${options.container}" in pod "${pod.metadata.name}" is waiting to start: ContainerCreating`);
    }
    return log.read(options, signal);
  }

  async exec(pod: KubeObject, options: ExecOptions & { container: string }, session: ExecSession): Promise<ExecResult> {
    const spec = this.workers.get(pod.metadata.uid!)?.execSpec(options.container);
    if (!spec) return { error: new ApiError(400, 'BadRequest', `container not found ("${options.container}")`) };
    const exit = await runCommand({ ...spec, argv: options.command }, { stdin: session.stdin, stdout: session.stdout, stderr: session.stderr, signal: session.signal });
    return { exitCode: exit.exitCode };
  }
}
