/**
 * Test helpers of the embedded cluster: the set-up of the `kubectl-*.test.ts` files (one embedded
 * cluster per test file, the real kubectl binary run against it with the cluster's kubeconfig and
 * a fresh discovery cache, every kubectl process it started killed when the file is done), the
 * set-up of the `client-node-*.test.ts` files (the real @kubernetes/client-node against one
 * embedded cluster per test file), and a bare object API for tests of one controller or node part.
 */
import * as k8s from '@kubernetes/client-node';
import { expect, test, type TestInfo } from '@playwright/test';
import { execa, type ResultPromise } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedCluster, type EmbeddedClusterOptions } from './cluster.ts';
import { ApiError } from './errors.ts';
import { builtinTypes } from './registry/builtin-types.ts';
import { ObjectApi } from './registry/object-api.ts';
import { ResourceRegistry } from './registry/resource-registry.ts';
import { ObjectStore } from './store/object-store.ts';

/**
 * The real kubectl: `$KUBECTL` when set, else `kubectl` from PATH. A version-dispatching
 * kubectl (as some distributions ship) picks the client matching the server's minor, 32.
 */
export const KUBECTL = process.env.KUBECTL || 'kubectl';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface RunOptions {
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  /** Another kubeconfig file than the cluster's own. */
  kubeconfig?: string;
  /** Extra environment (e.g. KUBECTL_REMOTE_COMMAND_WEBSOCKETS). */
  env?: Record<string, string>;
}

export class KubectlFixture {
  cluster!: EmbeddedCluster;
  private dir = '';
  private namespaces = 0;
  private readonly running = new Set<ResultPromise>();

  private constructor(private readonly options: Omit<EmbeddedClusterOptions, 'kubeconfigPath'>) {}

  /** Registers beforeAll/afterAll hooks that start and stop the cluster (with `options`, e.g. a node) for the calling file. */
  static register(options: Omit<EmbeddedClusterOptions, 'kubeconfigPath'> = {}): KubectlFixture {
    const fixture = new KubectlFixture(options);
    test.beforeAll(async () => fixture.start());
    test.afterAll(async () => fixture.stop());
    return fixture;
  }

  get kubeconfigPath(): string {
    return join(this.dir, 'kubeconfig');
  }

  private async start(): Promise<void> {
    this.dir = await mkdtemp(join(tmpdir(), 'kubectl-test-'));
    this.cluster = await EmbeddedCluster.start({ ...this.options, kubeconfigPath: this.kubeconfigPath });
  }

  private async stop(): Promise<void> {
    for (const child of this.running) child.kill('SIGKILL');
    await Promise.allSettled([...this.running]);
    await this.cluster?.stop();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  /** Starts kubectl and leaves it running (`get -w`, `wait`); it is killed at the end of the file at the latest. */
  spawn(args: string[], options: RunOptions = {}): ResultPromise {
    const child = execa(KUBECTL, ['--cache-dir', join(this.dir, 'cache'), ...args], {
      env: { ...options.env, KUBECONFIG: options.kubeconfig ?? this.kubeconfigPath },
      input: options.input,
      reject: false,
      // A safety net against a hung kubectl, not an assertion: waits use kubectl's own --timeout.
      timeout: 45_000,
    });
    this.running.add(child);
    void child.finally(() => this.running.delete(child));
    return child;
  }

  /** Runs kubectl to completion; a non-zero exit is a result, not an exception. */
  async run(args: string[], options: RunOptions = {}): Promise<KubectlResult> {
    const { stdout, stderr, exitCode } = await this.spawn(args, options);
    return { stdout: String(stdout), stderr: String(stderr), exitCode: exitCode ?? -1 };
  }

  /** Runs kubectl, expects exit code 0, returns stdout. */
  async ok(args: string[], options: RunOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    expect(result.exitCode, `kubectl ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return result.stdout;
  }

  /** Runs kubectl, expects it to fail with exit code 1, returns stderr. */
  async fails(args: string[], options: RunOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    expect(result.exitCode, `kubectl ${args.join(' ')} should fail\n${result.stdout}`).toBe(1);
    return result.stderr;
  }

  /** `kubectl apply -f -` of a manifest in a namespace; returns stdout. */
  apply(namespace: string, manifest: string): Promise<string> {
    return this.ok(['-n', namespace, 'apply', '-f', '-'], { input: manifest });
  }

  /** A namespace of the test's own (`kubectl create namespace`, a protobuf body). */
  async namespace(testInfo: TestInfo): Promise<string> {
    const slug = testInfo.title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const name = `t${++this.namespaces}-${slug}`.slice(0, 50).replace(/-+$/, '');
    expect(await this.ok(['create', 'namespace', name])).toBe(`namespace/${name} created`);
    return name;
  }

  /** A kubeconfig for the same server whose bearer token is wrong. */
  async wrongTokenKubeconfig(): Promise<string> {
    const path = join(this.dir, 'wrong-token.kubeconfig');
    await writeFile(path, this.cluster.kubeconfig().replace(this.cluster.token, 'not-the-token'), { mode: 0o600 });
    return path;
  }

  /** A kubeconfig acting as a ServiceAccount (a TokenRequest token), written beside the cluster's own. */
  async serviceAccountKubeconfig(namespace: string, name: string): Promise<string> {
    const path = join(this.dir, `sa-${namespace}-${name}.kubeconfig`);
    await writeFile(path, this.cluster.kubeconfigForServiceAccount(namespace, name), { mode: 0o600 });
    return path;
  }

  /**
   * Counts watch requests on `resource` in `namespace` (through the cluster's request log) so a
   * test can make its change only once a waiting kubectl is really watching. `opened()` resolves
   * at the first one.
   */
  watchCounter(resource: string, namespace: string): { opened: () => Promise<void> } {
    let watches = 0;
    const stop = this.cluster.requests.listen((request) => {
      if (request.verb === 'watch' && request.plural === resource && request.namespace === namespace) watches++;
    });
    return {
      opened: async () => {
        await expect.poll(() => watches, { message: `a watch on ${resource} in ${namespace}`, timeout: 30_000 }).toBeGreaterThan(0);
        stop();
      },
    };
  }
}

/** Splits `kubectl get` table output into rows of cells (cells in these tests contain no spaces). */
export function tableRows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/));
}

/** The names printed by `-o name` (`pod/a` -> `a`), sorted. */
export function names(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(line.indexOf('/') + 1))
    .sort();
}

/** A minimal Pod manifest with one container `main` (kubectl logs/exec need at least one). */
export function podManifest(name: string, options: { labels?: Record<string, string>; image?: string } = {}): string {
  const labels = Object.entries(options.labels ?? {}).map(([k, v]) => `\n    ${k}: "${v}"`).join('');
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}${labels ? `\n  labels:${labels}` : ''}
spec:
  containers:
  - name: main
    image: ${options.image ?? 'busybox:1.36'}
`;
}

// ---- the real @kubernetes/client-node, for the client-node-*.test.ts files -------------------

/**
 * One embedded cluster per test file with client-node's API clients on it: the typed APIs, the
 * generic KubernetesObjectApi, custom objects and apiextensions. Every test works in its own
 * namespace (`namespace(prefix)`).
 */
export class ClientNodeFixture {
  cluster!: EmbeddedCluster;
  kc!: k8s.KubeConfig;
  core!: k8s.CoreV1Api;
  apps!: k8s.AppsV1Api;
  custom!: k8s.CustomObjectsApi;
  objects!: k8s.KubernetesObjectApi;
  extensions!: k8s.ApiextensionsV1Api;
  private namespaces = 0;

  private constructor() {}

  /** Registers beforeAll/afterAll hooks that start and stop the cluster for the calling file. */
  static register(): ClientNodeFixture {
    const fixture = new ClientNodeFixture();
    test.beforeAll(async () => fixture.start());
    test.afterAll(async () => fixture.cluster?.stop());
    return fixture;
  }

  private async start(): Promise<void> {
    this.cluster = await EmbeddedCluster.start();
    this.kc = new k8s.KubeConfig();
    this.kc.loadFromString(this.cluster.kubeconfig());
    this.core = this.kc.makeApiClient(k8s.CoreV1Api);
    this.apps = this.kc.makeApiClient(k8s.AppsV1Api);
    this.custom = this.kc.makeApiClient(k8s.CustomObjectsApi);
    this.objects = k8s.KubernetesObjectApi.makeApiClient(this.kc);
    this.extensions = this.kc.makeApiClient(k8s.ApiextensionsV1Api);
  }

  /** A new namespace for one test. */
  async namespace(prefix: string): Promise<string> {
    const name = `${prefix}-${process.pid}-${++this.namespaces}`;
    await this.core.createNamespace({ body: { metadata: { name } } });
    return name;
  }
}

/** The Content-Type each patch strategy is sent with. */
export const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
export const strategicPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
export const applyPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

type Status = { kind?: string; status?: string; code?: number; reason?: string; message?: string; details?: Record<string, unknown> };

/** Awaits a call that must fail with an ApiException; returns its code and the decoded Status body. */
export async function failure(call: Promise<unknown>): Promise<{ code: number; status: Status }> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    if (!(error instanceof k8s.ApiException)) throw error;
    const body = (error as k8s.ApiException<unknown>).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as Status;
    return { code: (error as k8s.ApiException<unknown>).code, status };
  }
  throw new Error(`expected the call to fail, it returned ${JSON.stringify(result)}`);
}

/** A 404 from a read means gone; anything else is returned as the object. */
export async function readOrGone<T>(read: () => Promise<T>): Promise<T | 'gone'> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof k8s.ApiException && (error as k8s.ApiException<unknown>).code === 404) return 'gone';
    throw error;
  }
}

interface WatchEvent {
  type: string;
  object: { kind?: string; code?: number; reason?: string; message?: string; metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown }; [k: string]: unknown };
}

/** A running client-node Watch collecting its events; `stop()` aborts it and waits for `done`. */
export interface RunningWatch {
  events: WatchEvent[];
  /** Resolves with the error given to `done` (null for a clean end of stream). */
  done: Promise<unknown>;
  ended(): boolean;
  stop(): Promise<void>;
}

export async function startWatch(kc: k8s.KubeConfig, path: string, params: Record<string, string | number | boolean | undefined>): Promise<RunningWatch> {
  const events: WatchEvent[] = [];
  let ended = false;
  let resolveDone!: (err: unknown) => void;
  const done = new Promise<unknown>((resolve) => (resolveDone = resolve));
  const controller = await new k8s.Watch(kc).watch(
    path,
    params,
    (type, object) => events.push({ type, object }),
    (err) => {
      ended = true;
      resolveDone(err);
    },
  );
  return {
    events,
    done,
    ended: () => ended,
    async stop() {
      controller.abort();
      await done;
    },
  };
}

/** An object's resourceVersion as a number, to compare orders. */
export function rv(object: { metadata?: { resourceVersion?: string } } | undefined): number {
  return Number(object?.metadata?.resourceVersion);
}

/** A Pod with one long-sleeping container `main`. */
export function podBody(name: string, extra: Partial<k8s.V1PodSpec> = {}, labels?: Record<string, string>): k8s.V1Pod {
  return {
    metadata: { name, labels },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }], ...extra },
  };
}

// ---- a bare object API, for tests of one controller or node part ------------------------------

/** 127.1.0.0/16: never handed out by claimAddressBlock, so a bare registry cannot meet a running cluster's addresses. */
const TEST_ADDRESS_OCTET = 1;

/**
 * For tests of one controller or node part: the store and object API with the built-in kinds
 * and one namespace, without the HTTPS server or any controller around them.
 */
export function bareObjectApi(namespace: string): ObjectApi {
  const registry = new ResourceRegistry();
  for (const type of builtinTypes(TEST_ADDRESS_OCTET)) registry.add(type);
  const api = new ObjectApi(new ObjectStore(), registry);
  api.create(api.target('v1', 'namespaces'), { metadata: { name: namespace } });
  return api;
}

/** The ApiError a call throws, so a test checks code and message together; fails the test when it throws none. */
export function refusal(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused with an ApiError');
}
