/**
 * Stand-ins for the kind, docker and kubectl CLIs, for tests on machines without Docker or
 * kind: small bash scripts in a temp dir that becomes the whole PATH of the provider's
 * processes. Each records its command line in a log and behaves just enough like the real tool:
 *
 * - kind keeps its "clusters" in a state file (`get clusters` lists them, `create cluster`
 *   adds one, `delete cluster` removes it). Like kind, `create cluster` and `export
 *   kubeconfig` write the kubeconfig (a given real one) to --kubeconfig, else to the first
 *   $KUBECONFIG entry, else ~/.kube/config; a cluster marked dead gets a server that does not
 *   answer. `load docker-image` refuses an image docker has not built (or fails on request),
 *   `load image-archive` reads the archive `docker save` wrote, `export logs` writes a file.
 * - docker answers `info` (or fails as with no daemon), `buildx version` (or is without
 *   buildx), builds with `buildx build --load` or `build` (checking the context has a
 *   Dockerfile and remembering the tag), and `save`s a built image as a small archive.
 * - kubectl answers `version --client` and `rollout status` itself (the embedded cluster runs
 *   no Deployments) and passes everything else to the real kubectl.
 *
 * Any command whose line starts with STUB_HANG never finishes (until killed), to exercise
 * deadlines. The scripts use only bash builtins, so PATH can hold nothing but the stubs.
 *
 * Below the stubs, the shared set-up of the kind provider tests: one embedded cluster per test file (what the stub
 * kind hands out as every cluster's kubeconfig, so kubectl apply/wait and the handle run for
 * real), a stand-in release manifest in an AGENT_SANDBOX_MANIFESTS folder with its digest
 * pinned in a table of the test's own, and fresh stubs per test.
 */
import { test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_PROGRAMS, FIXTURE_PROGRAMS_ON_EMBEDDED_NODE } from '../../fixtures/programs/catalogue.ts';
import { agentSandboxRelease } from '../agent-sandbox-release.ts';
import type { ClusterRequest, ProviderOptions } from '../cluster-provider.ts';
import { EmbeddedCluster } from '../embedded/cluster.ts';
import type { ManifestOptions } from '../manifests/agent-sandbox-manifests.ts';
import { KindProvider, type KindProviderOptions } from './kind-provider.ts';

export type StubTool = 'kind' | 'docker' | 'kubectl';

// One write per line (a pipeline runs two stubs at once; O_APPEND keeps single writes whole).
const PRELUDE = `stub_line="\${0##*/}"; for a in "$@"; do stub_line+=" $a"; done; printf '%s\\n' "$stub_line" >> "$STUB_LOG"
flag() { local want="$1"; shift; while [ $# -gt 0 ]; do if [ "$1" = "$want" ]; then printf '%s' "$2"; return; fi; shift; done; }
hang() { read -r -t 600 _ <> <(:); exit 1; }
if [ -n "$STUB_HANG" ] && [[ "\${0##*/} $*" == "$STUB_HANG"* ]]; then hang; fi
listed() { [ -f "$1" ] && while IFS= read -r c; do [ "$c" = "$2" ] && return 0; done < "$1"; return 1; }
unlist() { local kept=""; [ -f "$1" ] || return 0; while IFS= read -r c; do [ "$c" != "$2" ] && kept+="$c"$'\\n'; done < "$1"; printf '%s' "$kept" > "$1"; }`;

const KIND = `#!/bin/bash
${PRELUDE}
clusters="$STUB_STATE/clusters"; dead="$STUB_STATE/dead"
name="$(flag --name "$@")"
# Where kind writes a kubeconfig: --kubeconfig, else the first $KUBECONFIG entry, else ~/.kube/config.
target() { local k; k="$(flag --kubeconfig "$@")"; [ -n "$k" ] || k="\${KUBECONFIG%%:*}"; [ -n "$k" ] || k="$HOME/.kube/config"; printf '%s' "$k"; }
write_kubeconfig() {
  local line
  while IFS= read -r line; do
    if listed "$dead" "$name" && [[ "$line" == *"server: "* ]]; then printf '%s\\n' "\${line%%server: *}server: https://127.0.0.1:1"; else printf '%s\\n' "$line"; fi
  done < "$STUB_KUBECONFIG" > "$1"
  echo "Set kubectl context to \\"kind-$name\\"" >&2
}
case "$1 $2" in
  "version "*|"version")
    echo "kind \${STUB_KIND_VERSION:-v0.27.0} go1.23.6 linux/amd64" ;;
  "get clusters")
    if [ -s "$clusters" ]; then while IFS= read -r c; do echo "$c"; done < "$clusters"; else echo "No kind clusters found." >&2; fi ;;
  "create cluster")
    config="$(flag --config "$@")"
    [ -f "$config" ] || { echo "ERROR: failed to create cluster: open $config: no such file or directory" >&2; exit 1; }
    if listed "$clusters" "$name"; then echo "ERROR: failed to create cluster: node(s) already exist for a cluster with the name \\"$name\\"" >&2; exit 1; fi
    echo "Creating cluster \\"$name\\" ..." >&2
    [ -n "$STUB_KIND_CREATE_FAILS" ] && { echo "ERROR: failed to create cluster: $STUB_KIND_CREATE_FAILS" >&2; exit 1; }
    echo " ✓ Ensuring node image ($(flag --image "$@")) 🖼" >&2
    echo "$name" >> "$clusters"
    [ -n "$STUB_KIND_CREATE_HANGS" ] && hang
    echo " ✓ Starting control-plane 🕹️" >&2
    write_kubeconfig "$(target "$@")" ;;
  "export kubeconfig")
    listed "$clusters" "$name" || { echo "ERROR: could not locate any control plane nodes for cluster named '$name'" >&2; exit 1; }
    write_kubeconfig "$(target "$@")" ;;
  "load docker-image")
    listed "$clusters" "$name" || { echo "ERROR: no nodes found for cluster \\"$name\\"" >&2; exit 1; }
    listed "$STUB_STATE/images" "$3" || { echo "ERROR: image: \\"$3\\" not present locally" >&2; exit 1; }
    [ -n "$STUB_KIND_LOAD_FAILS" ] && { echo "ERROR: failed to load image: $STUB_KIND_LOAD_FAILS" >&2; exit 1; }
    echo "$3" >> "$STUB_STATE/loaded" ;;
  "load image-archive")
    listed "$clusters" "$name" || { echo "ERROR: no nodes found for cluster \\"$name\\"" >&2; exit 1; }
    # The whole archive is read (as kind does), so the writer of a pipe finishes cleanly.
    first=""; { IFS= read -r first; while IFS= read -r _; do :; done; } < "$3"
    [[ "$first" == "docker-save-archive "* ]] || { echo "ERROR: failed to load image: not an image archive" >&2; exit 1; }
    echo "\${first#docker-save-archive } (archive)" >> "$STUB_STATE/loaded" ;;
  "export logs")
    listed "$clusters" "$name" || { echo "ERROR: unknown cluster \\"$name\\"" >&2; exit 1; }
    [ -d "$3" ] || { echo "ERROR: $3 is not a directory" >&2; exit 1; }
    echo "kind logs of $name" > "$3/kind-version.txt"
    echo "Exported logs for cluster \\"$name\\" to:" >&2; echo "$3" ;;
  "delete cluster")
    echo "Deleting cluster \\"$name\\" ..." >&2
    unlist "$clusters" "$name"; unlist "$dead" "$name"
    # kind removes the cluster's entry from the kubeconfig it is pointed at (or the user's).
    [ -n "$(flag --kubeconfig "$@")" ] || printf '# kind delete cluster removed kind-%s\\n' "$name" >> "$(target "$@")" ;;
  *)
    echo "stub kind: unexpected command: $*" >&2; exit 64 ;;
esac
`;

const DOCKER = `#!/bin/bash
${PRELUDE}
built() { [ -f "$2/Dockerfile" ] || { echo "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory" >&2; exit 1; }; echo "$1" >> "$STUB_STATE/images"; echo "#1 naming to docker.io/$1 done" >&2; }
case "$1 $2" in
  "info "*)
    if [ "$STUB_DOCKER_DAEMON" = "down" ]; then
      echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1
    fi
    echo "27.5.1" ;;
  "buildx version")
    [ -n "$STUB_NO_BUILDX" ] && { echo "docker: 'buildx' is not a docker command." >&2; exit 1; }
    echo "github.com/docker/buildx v0.20.1 0000000" ;;
  "buildx build")
    [ -n "$STUB_NO_BUILDX" ] && { echo "docker: 'buildx' is not a docker command." >&2; exit 1; }
    [ "$3 $4" = "--load -t" ] || { echo "stub docker: expected buildx build --load -t IMAGE CONTEXT" >&2; exit 64; }
    built "$5" "$6" ;;
  "build -t")
    built "$3" "$4" ;;
  "save "*)
    listed "$STUB_STATE/images" "$2" || { echo "Error response from daemon: reference does not exist" >&2; exit 1; }
    printf 'docker-save-archive %s\\n' "$2"; printf 'layer.tar ...\\n' ;;
  *)
    echo "stub docker: unexpected command: $*" >&2; exit 64 ;;
esac
`;

const KUBECTL = `#!/bin/bash
${PRELUDE}
verb=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in --kubeconfig|--context|-n|--namespace) skip=1 ;; -*) ;; *) verb="$a"; break ;; esac
done
case "$verb" in
  version)
    echo "Client Version: v1.32.2" ;;
  rollout)
    echo 'deployment "agent-sandbox-controller" successfully rolled out' ;;
  *)
    export PATH="$STUB_REAL_PATH"
    exec "$STUB_REAL_KUBECTL" "$@" ;;
esac
`;

const SCRIPTS: Record<StubTool, string> = { kind: KIND, docker: DOCKER, kubectl: KUBECTL };

export interface StubOptions {
  /** Which tools exist (default all three). */
  tools?: StubTool[];
  /** The kubeconfig kind writes for a cluster (a real one, e.g. an embedded cluster's). */
  kubeconfigPath?: string;
  /** What `kind version` reports (default v0.27.0). */
  kindVersion?: string;
  dockerDaemon?: 'up' | 'down';
  /** docker without the buildx plugin. */
  noBuildx?: boolean;
  /** Makes `kind create cluster` fail with this message (before it adds the cluster, as kind cleans up). */
  kindCreateFails?: string;
  /** Makes `kind create cluster` hang once the cluster exists (to interrupt it). */
  kindCreateHangs?: boolean;
  /** Makes `kind load docker-image` fail with this message. */
  kindLoadFails?: string;
  /** Commands whose line starts with this never finish, e.g. `docker buildx build`. */
  hang?: string;
  /** Clusters that exist before the run; a dead one's API server does not answer. */
  existingClusters?: { name: string; dead?: boolean }[];
}

export interface Stubs {
  dir: string;
  /** The environment for the provider: PATH is the stubs' directory alone; HOME and KUBECONFIG are the test's own. */
  env: Record<string, string>;
  /** The user's kubeconfig ($KUBECONFIG), which nothing may change, and ~/.kube/config, which must not appear. */
  userKubeconfig: string;
  homeKubeconfig: string;
  /** The recorded command lines so far, oldest first. */
  commands(): Promise<string[]>;
  /** The clusters kind knows now. */
  clusters(): Promise<string[]>;
  /** What kind loaded into nodes (`IMAGE` or `IMAGE (archive)`). */
  loaded(): Promise<string[]>;
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

/** Writes the stub tools into `<root>/bin`, their state into `<root>/state`, and a home of their own. */
export async function writeStubs(root: string, options: StubOptions = {}): Promise<Stubs> {
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  const home = join(root, 'home');
  await mkdir(bin, { recursive: true });
  await mkdir(state, { recursive: true });
  await mkdir(join(home, '.kube'), { recursive: true });
  const tools = options.tools ?? (['kind', 'docker', 'kubectl'] as const);
  for (const tool of tools) {
    await writeFile(join(bin, tool), SCRIPTS[tool]);
    await chmod(join(bin, tool), 0o755);
  }
  const log = join(root, 'commands.log');
  await writeFile(log, '');
  const existing = options.existingClusters ?? [];
  await writeFile(join(state, 'clusters'), existing.map((c) => `${c.name}\n`).join(''));
  await writeFile(join(state, 'dead'), existing.filter((c) => c.dead).map((c) => `${c.name}\n`).join(''));
  const userKubeconfig = join(home, 'user.kubeconfig');
  await writeFile(userKubeconfig, '# the user’s own kubeconfig: no lane may change it\ncurrent-context: users-cluster\n');
  const env: Record<string, string> = {
    PATH: bin,
    HOME: home,
    KUBECONFIG: userKubeconfig,
    // The provider's kubectl: the stub (or, without a kubectl stub, nothing the provider could find).
    KUBECTL: tools.includes('kubectl') ? join(bin, 'kubectl') : '',
    STUB_LOG: log,
    STUB_STATE: state,
    STUB_KUBECONFIG: options.kubeconfigPath ?? join(root, 'no-kubeconfig'),
    STUB_KIND_VERSION: options.kindVersion ?? '',
    STUB_DOCKER_DAEMON: options.dockerDaemon ?? 'up',
    STUB_NO_BUILDX: options.noBuildx ? '1' : '',
    STUB_KIND_CREATE_FAILS: options.kindCreateFails ?? '',
    STUB_KIND_CREATE_HANGS: options.kindCreateHangs ? '1' : '',
    STUB_KIND_LOAD_FAILS: options.kindLoadFails ?? '',
    STUB_HANG: options.hang ?? '',
    STUB_REAL_KUBECTL: process.env.KUBECTL || 'kubectl',
    STUB_REAL_PATH: process.env.PATH ?? '',
    // A discovery cache of its own, so parallel tests do not share ~/.kube/cache.
    KUBECACHEDIR: join(root, 'kube-cache'),
  };
  return {
    dir: bin,
    env,
    userKubeconfig,
    homeKubeconfig: join(home, '.kube', 'config'),
    commands: () => lines(log),
    clusters: () => lines(join(state, 'clusters')),
    loaded: () => lines(join(state, 'loaded')),
  };
}

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const NAME = 'sandbox-conformance-shared-v1beta1';
/** What the lane runner asks a provider for on the shared-v1beta1 and external lanes: Agent Sandbox v0.5.0 and the fixture programs. */
export const V1BETA1_REQUEST: ClusterRequest = { lane: 'shared-v1beta1', agentSandbox: agentSandboxRelease('v0.5.0'), images: FIXTURE_PROGRAMS };
export const EXTERNAL_REQUEST: ClusterRequest = { ...V1BETA1_REQUEST, lane: 'external' };
export const CRD_NAME = 'sandboxes.agents.x-k8s.io';
export const fixtureDir = (name: string) => resolve(REPO, 'fixtures/programs', name);

/** What kubectl applies in place of the release manifest: one ConfigMap, so the apply is visible. */
export const STAND_IN_MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied-by-kind-provider\n  namespace: agent-sandbox-system\ndata:\n  from: stub\n';

export interface KindTestKit {
  cluster(): EmbeddedCluster;
  /** The stand-in manifest the provider installs for a release (verified by the real resolver): v0.5.0's `manifest.yaml` by default, v0.5.4's `sandbox.yaml`. */
  manifestPath(version?: 'v0.5.0' | 'v0.5.4'): string;
  /** Sets or removes the CRD's conversion caBundle, as the real controller injects it. */
  setCaBundle(value: string | null): void;
  setup(stubs?: StubOptions, provider?: Omit<KindProviderOptions, 'env' | 'manifests'>): Promise<KindRun>;
}

export interface KindRun {
  dir: string;
  stubs: Awaited<ReturnType<typeof writeStubs>>;
  progress: string[];
  provider: KindProvider;
  kubeconfigPath: string;
  reportDir: string;
  options(extra?: Partial<ProviderOptions>): ProviderOptions;
}

/** Registers the file's beforeAll/afterAll and returns the kit. */
export function kindTestKit(): KindTestKit {
  let root = '';
  let embedded: EmbeddedCluster;
  let manifests: ManifestOptions;
  let runs = 0;

  test.beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'kind-provider-test-'));
    embedded = await EmbeddedCluster.start({ kubeconfigPath: join(root, 'embedded.kubeconfig'), node: { images: FIXTURE_PROGRAMS_ON_EMBEDDED_NODE }, agentSandbox: V1BETA1_REQUEST.agentSandbox.version });
    const envDir = join(root, 'upstream');
    // The release asset's name changed at v0.5.2 (manifest.yaml -> sandbox.yaml): one of each.
    for (const [version, asset] of [['v0.5.0', 'manifest.yaml'], ['v0.5.4', 'sandbox.yaml']]) {
      await mkdir(join(envDir, version), { recursive: true });
      await writeFile(join(envDir, version, asset), STAND_IN_MANIFEST);
    }
    const sha256 = createHash('sha256').update(STAND_IN_MANIFEST).digest('hex');
    manifests = { env: { AGENT_SANDBOX_MANIFESTS: envDir, XDG_CACHE_HOME: join(root, 'empty-cache') }, releases: { 'v0.5.0': { sha256 }, 'v0.5.4': { sha256 } } };
    kit.setCaBundle('Y2EtYnVuZGxl');
  });

  test.afterAll(async () => {
    await embedded?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const kit: KindTestKit = {
    cluster: () => embedded,
    manifestPath: (version = 'v0.5.0') => join(root, 'upstream', version, version === 'v0.5.0' ? 'manifest.yaml' : 'sandbox.yaml'),
    setCaBundle(value) {
      const api = embedded.api;
      api.patch(api.target('apiextensions.k8s.io/v1', 'customresourcedefinitions'), CRD_NAME, 'merge', { spec: { conversion: { webhook: { clientConfig: { caBundle: value } } } } });
    },
    async setup(stubOptions = {}, providerOptions = {}) {
      const dir = join(root, `run-${++runs}`);
      const stubs = await writeStubs(dir, { kubeconfigPath: join(root, 'embedded.kubeconfig'), ...stubOptions });
      const progress: string[] = [];
      const workDir = join(dir, 'work');
      const reportDir = join(dir, 'reports');
      return {
        dir,
        stubs,
        progress,
        provider: new KindProvider({ env: stubs.env, manifests, pollMs: 50, ...providerOptions }),
        kubeconfigPath: join(workDir, `${NAME}.kubeconfig`),
        reportDir,
        options: (extra = {}) => ({ keep: false, workDir, reportDir, progress: (line: string) => progress.push(line), ...extra }),
      };
    },
  };
  return kit;
}
