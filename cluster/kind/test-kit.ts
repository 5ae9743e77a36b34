/**
 * Stand-ins for the kind, docker and kubectl CLIs, for tests on machines without Docker or
 * kind: small bash scripts in a temp dir that becomes the whole PATH of the provider's
 * processes. Each records its command line in a log and behaves just enough like the real tool:
 *
 * - kind keeps its "clusters" in a state file (`get clusters` lists them, `create cluster`
 *   adds one, `delete cluster` removes it), hands out a given real kubeconfig for `get
 *   kubeconfig`, refuses to `load` an image docker has not built, and writes a file into the
 *   `export logs` directory.
 * - docker answers `info` (or fails as with no daemon), and `build` checks the context has a
 *   Dockerfile and remembers the tag.
 * - kubectl passes `wait` and `apply` through to the real kubectl (apply with the manifest URL
 *   swapped for a local file), and answers `rollout status` itself: the embedded cluster runs
 *   no Deployments.
 *
 * The scripts use only bash builtins, so PATH can hold nothing but the stubs.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

type StubTool = 'kind' | 'docker' | 'kubectl';

const RECORD = `{ printf "%s" "\${0##*/}"; for a in "$@"; do printf ' %s' "$a"; done; printf '\\n'; } >> "$STUB_LOG"`;

const FLAG = `flag() { local want="$1"; shift; while [ $# -gt 0 ]; do if [ "$1" = "$want" ]; then printf '%s' "$2"; return; fi; shift; done; }`;

const KIND = `#!/bin/bash
${RECORD}
${FLAG}
clusters="$STUB_STATE/clusters"
has_cluster() { [ -f "$clusters" ] && while IFS= read -r c; do [ "$c" = "$1" ] && return 0; done < "$clusters"; return 1; }
name="$(flag --name "$@")"
case "$1 $2" in
  "version "*|"version")
    echo "kind v0.27.0 go1.23.6 linux/amd64" ;;
  "get clusters")
    if [ -s "$clusters" ]; then while IFS= read -r c; do echo "$c"; done < "$clusters"; else echo "No kind clusters found." >&2; fi ;;
  "create cluster")
    config="$(flag --config "$@")"
    [ -f "$config" ] || { echo "ERROR: failed to create cluster: open $config: no such file or directory" >&2; exit 1; }
    if has_cluster "$name"; then echo "ERROR: failed to create cluster: node(s) already exist for a cluster with the name \\"$name\\"" >&2; exit 1; fi
    [ -n "$STUB_KIND_CREATE_FAILS" ] && { echo "Creating cluster \\"$name\\" ..." >&2; echo "ERROR: failed to create cluster: $STUB_KIND_CREATE_FAILS" >&2; exit 1; }
    echo "Creating cluster \\"$name\\" ..." >&2
    echo " ✓ Ensuring node image ($(flag --image "$@")) 🖼" >&2
    echo " ✓ Starting control-plane 🕹️" >&2
    echo "$name" >> "$clusters" ;;
  "get kubeconfig")
    has_cluster "$name" || { echo "ERROR: could not locate any control plane nodes for cluster named '$name'" >&2; exit 1; }
    while IFS= read -r line; do printf '%s\\n' "$line"; done < "$STUB_KUBECONFIG" ;;
  "load docker-image")
    has_cluster "$name" || { echo "ERROR: no nodes found for cluster \\"$name\\"" >&2; exit 1; }
    image="$3"; built=""
    [ -f "$STUB_STATE/images" ] && while IFS= read -r i; do [ "$i" = "$image" ] && built=1; done < "$STUB_STATE/images"
    [ -n "$built" ] || { echo "ERROR: image: \\"$image\\" not present locally" >&2; exit 1; }
    echo "Image: \\"$image\\" with ID \\"sha256:0000\\" not yet present on node \\"$name-control-plane\\", loading..." >&2 ;;
  "export logs")
    has_cluster "$name" || { echo "ERROR: unknown cluster \\"$name\\"" >&2; exit 1; }
    [ -d "$3" ] || { echo "ERROR: $3 is not a directory" >&2; exit 1; }
    echo "kind logs of $name" > "$3/kind-version.txt"
    echo "Exported logs for cluster \\"$name\\" to:" >&2; echo "$3" ;;
  "delete cluster")
    echo "Deleting cluster \\"$name\\" ..." >&2
    if [ -f "$clusters" ]; then
      kept=""; while IFS= read -r c; do [ "$c" != "$name" ] && kept+="$c"$'\\n'; done < "$clusters"
      printf '%s' "$kept" > "$clusters"
    fi ;;
  *)
    echo "stub kind: unexpected command: $*" >&2; exit 64 ;;
esac
`;

const DOCKER = `#!/bin/bash
${RECORD}
case "$1" in
  info)
    if [ "$STUB_DOCKER_DAEMON" = "down" ]; then
      echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1
    fi
    echo "27.5.1" ;;
  build)
    [ "$2" = "-t" ] || { echo "stub docker: expected build -t IMAGE CONTEXT" >&2; exit 64; }
    [ -f "$4/Dockerfile" ] || { echo "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory" >&2; exit 1; }
    echo "$3" >> "$STUB_STATE/images"
    echo "#1 naming to docker.io/$3 done" >&2 ;;
  *)
    echo "stub docker: unexpected command: $*" >&2; exit 64 ;;
esac
`;

const KUBECTL = `#!/bin/bash
${RECORD}
args=("$@")
verb=""; skip=""
for a in "$@"; do
  if [ -n "$skip" ]; then skip=""; continue; fi
  case "$a" in --kubeconfig|--context|-n|--namespace) skip=1 ;; -*) ;; *) verb="$a"; break ;; esac
done
case "$verb" in
  rollout)
    echo 'deployment "agent-sandbox-controller" successfully rolled out' ;;
  apply)
    for i in "\${!args[@]}"; do
      if [ "\${args[$i]}" = "-f" ]; then
        url="\${args[$((i + 1))]}"
        [ "$url" = "$STUB_MANIFEST_URL" ] || { echo "stub kubectl: unexpected manifest $url" >&2; exit 64; }
        args[$((i + 1))]="$STUB_MANIFEST"
      fi
    done
    PATH="$STUB_REAL_PATH" exec "$STUB_REAL_KUBECTL" "\${args[@]}" ;;
  *)
    PATH="$STUB_REAL_PATH" exec "$STUB_REAL_KUBECTL" "$@" ;;
esac
`;

const SCRIPTS: Record<StubTool, string> = { kind: KIND, docker: DOCKER, kubectl: KUBECTL };

export interface StubOptions {
  /** Which tools exist (default all three). */
  tools?: StubTool[];
  /** What `kind get kubeconfig` prints. */
  kubeconfigPath?: string;
  /** The manifest URL kubectl expects in `apply -f`, and the local file it applies instead. */
  manifest?: { url: string; file: string };
  dockerDaemon?: 'up' | 'down';
  /** Makes `kind create cluster` fail with this message. */
  kindCreateFails?: string;
  realKubectl?: string;
}

interface Stubs {
  dir: string;
  /** The environment for the provider: PATH is the stubs' directory alone. */
  env: Record<string, string>;
  /** The recorded command lines so far, oldest first. */
  commands(): Promise<string[]>;
}

/** Writes the stub tools into `<root>/bin` and their state into `<root>/state`. */
export async function writeStubs(root: string, options: StubOptions = {}): Promise<Stubs> {
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  await mkdir(bin, { recursive: true });
  await mkdir(state, { recursive: true });
  for (const tool of options.tools ?? (['kind', 'docker', 'kubectl'] as const)) {
    await writeFile(join(bin, tool), SCRIPTS[tool]);
    await chmod(join(bin, tool), 0o755);
  }
  const log = join(root, 'commands.log');
  await writeFile(log, '');
  const env: Record<string, string> = {
    PATH: bin,
    STUB_LOG: log,
    STUB_STATE: state,
    STUB_KUBECONFIG: options.kubeconfigPath ?? '/nonexistent',
    STUB_MANIFEST_URL: options.manifest?.url ?? '',
    STUB_MANIFEST: options.manifest?.file ?? '',
    STUB_DOCKER_DAEMON: options.dockerDaemon ?? 'up',
    STUB_KIND_CREATE_FAILS: options.kindCreateFails ?? '',
    STUB_REAL_KUBECTL: options.realKubectl ?? '/usr/bin/kubectl',
    STUB_REAL_PATH: process.env.PATH ?? '/usr/bin:/bin',
    // A discovery cache of its own, so parallel tests do not share ~/.kube/cache.
    KUBECACHEDIR: join(root, 'kube-cache'),
  };
  return {
    dir: bin,
    env,
    commands: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean),
  };
}
