/** The driver command's help text: `npm run driver -- --help`. */
export const HELP = `Usage:
  npm run driver -- serve --bind-socket PATH [serve options]
  npm run driver -- <command> [arguments] (--socket PATH | --kubeconfig FILE) [--output json]

Serving
  serve runs the Kubernetes compute driver behind the gRPC service
  openshell.compute.v1.ComputeDriver on a Unix socket, in the foreground. It prints one line,
  "compute driver listening on PATH", once the socket accepts calls, and on Ctrl-C (SIGINT) or
  SIGTERM it stops and removes the socket. A socket file nobody listens on is replaced; a
  socket another process answers on is refused. The socket is made mode 0600 (its owner only:
  the stand-in for OpenShell's same-UID peer check); keep it in a private (0700) directory.
  Driver log lines go to stderr.

  --bind-socket PATH            the Unix socket to listen on (required; --socket is an alias;
                                default: $OPENSHELL_COMPUTE_DRIVER_SOCKET)
  --kubeconfig FILE             the cluster to drive (default: $KUBECONFIG, else ~/.kube/config)
  --mode shared|managed|operator
                                workspace mode (default: shared)
  --namespace NS                shared mode: the namespace sandboxes live in (default: openshell)
  --gateway-id ID               the gateway this driver serves: its objects carry it as the label
                                openshell.ai/gateway-id, and it lists, watches and reconciles only
                                those; managed namespaces are openshell-ID-<workspace> (default: gw)
  --variant reference|suspend-first|headroom-deadline|stale-supervisor-read|watch-trusting-wait|
            resume-skips-wait|conflict-as-success|expired-watch-as-gone|error-as-gone|stale-start-read
                                stop ordering; suspend-first is the pre-#3424 defect, headroom-deadline
                                waits for the supervisor only the API headroom; the rest break only
                                under faults: the fault scenarios catch four, only the search
                                (explore) the last three (docs/faults.md) (default: reference)
  --supervisor-grace N          supervisor Pod terminationGracePeriodSeconds (default: 30)
  --workload-grace N            workload Pod terminationGracePeriodSeconds (default: 30)
  --api-headroom N              seconds of API headroom added to grace periods in deadlines (default: 30)
  --supervisor-ready N          seconds a start waits for the supervisor Pod to become Ready once the
                                sandbox is, before it fails naming that stage (at least 1; default: 30)
  --reconcile-interval S        reconciliation interval in seconds; 0 turns the loop off (default: 30)

Client commands, through the harness's gateway (ids minted, phases derived from conditions,
create/start wait for Ready, stop for Stopped, delete for the watch's deletion): against any
compute driver serving on --socket PATH (default: $OPENSHELL_COMPUTE_DRIVER_SOCKET), or with --kubeconfig FILE
against the Kubernetes driver run in this process (--mode, --namespace, --gateway-id, --variant,
--api-headroom and --supervisor-ready then configure it). Sandboxes are named by name (with --workspace when a name
is used in several) or by id. Output is one line per sandbox; --output json prints JSON.
  capabilities                  the driver's GetCapabilities (name, version, what it supports)
  list                          every sandbox
  get NAME                      one sandbox
  create NAME [create options] -- CMD [ARG...]
                                create a sandbox running CMD; prints it once Ready
  validate NAME [create options] -- CMD [ARG...]
                                check a spec without creating anything
  stop NAME                     stop a sandbox; returns once it is stopped, or with the driver's error
  start NAME                    start a stopped sandbox; returns once it is Ready again
  delete NAME                   delete a sandbox; prints deleted: true|false
  watch                         print the driver's WatchSandboxes events, one JSON line each, until Ctrl-C

  Create options:
  --workspace W                 the sandbox's workspace (default: the driver's)
  --env KEY=VALUE               an environment variable for CMD (repeatable)
  --supervisor-grace N          this sandbox's supervisor grace period, seconds
  --workload-grace N            this sandbox's workload grace period, seconds

  A failing call prints "error: <CODE>: <message>" (CODE as in gRPC: NOT_FOUND,
  ALREADY_EXISTS, INVALID_ARGUMENT, FAILED_PRECONDITION, UNAVAILABLE, DEADLINE_EXCEEDED,
  UNIMPLEMENTED, CANCELLED, INTERNAL) and exits 1.

  -h, --help                    show this help

Exit status: 0 on success, 1 when the driver or the environment fails, 2 for a usage error.

Examples:
  npm run driver -- serve --bind-socket /tmp/k8s-driver.sock --kubeconfig .cluster/embedded/kubeconfig
  npm run driver -- --socket /tmp/k8s-driver.sock create demo --workspace team-a -- sleep infinity
  npm run driver -- --socket /tmp/k8s-driver.sock stop demo --workspace team-a
  npm run driver -- --kubeconfig .cluster/embedded/kubeconfig list --output json

Docs: docs/testing-your-driver.md
`;
