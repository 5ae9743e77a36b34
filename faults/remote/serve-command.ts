/**
 * `npm run fault-proxy` (`sandbox-conformance fault-proxy`): the fault proxy served on its own,
 * in the foreground, for a driver the user starts (`--driver external=`). The driver is started
 * with the kubeconfig this writes; each test that runs a fault schedule opens a session on the
 * control socket (`--fault-proxy SOCKET` on the lane) and drives the faults from there.
 */
import * as k8s from '@kubernetes/client-node';
import { existsSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FaultProxy } from '../proxy/fault-proxy.ts';
import { ControlServer } from './control-server.ts';

export function faultProxyHelp(program: string): string {
  return `Usage: ${program} --control SOCKET --write-kubeconfig FILE [options]

Serves the fault proxy on its own, in the foreground, for a driver you start yourself.
Start your driver with the kubeconfig this writes: its requests reach the cluster through
the proxy. Then run a lane against it with --driver external=<driver socket> --fault-proxy
SOCKET: each test that runs a fault schedule drives the proxy's faults through SOCKET, one
test at a time. Prints one line with "ready", and stops on Ctrl-C (SIGINT) or SIGTERM,
removing SOCKET and the kubeconfig it wrote.

Options:
  --control SOCKET           the control socket (mode 0600) the lane's --fault-proxy names
  --write-kubeconfig FILE    the kubeconfig to start your driver with (mode 0600: it holds
                             the proxy's token for it)
  --kubeconfig FILE          the cluster as the harness reaches it: the proxy's own reads and
                             a third party's writes (default: $KUBECONFIG, else ~/.kube/config)
  --driver-kubeconfig FILE   the credentials your driver's requests go upstream with
                             (default: --kubeconfig)
  -h, --help                 this help

Then, for example:
  my-driver --bind-socket /tmp/drv/driver.sock   # with KUBECONFIG=FILE
  npm run lane -- v1beta1 --cluster existing --driver external=/tmp/drv/driver.sock --fault-proxy SOCKET

Docs: docs/faults.md
`;
}

/** The command's options (its parser's, and the docs test's). */
export const FAULT_PROXY_OPTIONS = {
  control: { type: 'string' },
  'write-kubeconfig': { type: 'string' },
  kubeconfig: { type: 'string' },
  'driver-kubeconfig': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Bad input: the message, and exit status 2. */
export class FaultProxyUsageError extends Error {}

/** A Unix socket path's limit (sun_path), less its terminating NUL. */
const MAX_SOCKET_PATH = 107;

/** Runs the command until a signal; resolves with the exit status. */
export async function serveFaultProxy(argv: string[], program: string, out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: FAULT_PROXY_OPTIONS,
    }));
  } catch (error) {
    throw new FaultProxyUsageError((error as Error).message);
  }
  if (values.help) {
    out(faultProxyHelp(program).trimEnd());
    return 0;
  }
  if (!values.control) throw new FaultProxyUsageError('--control SOCKET is required: the socket the lane reaches the proxy through (--fault-proxy SOCKET)');
  if (!values['write-kubeconfig']) throw new FaultProxyUsageError('--write-kubeconfig FILE is required: the kubeconfig to start your driver with');
  const control = resolve(values.control);
  if (control.length > MAX_SOCKET_PATH) throw new FaultProxyUsageError(`--control ${control}: a Unix socket path has at most ${MAX_SOCKET_PATH} characters; choose a shorter one`);
  if (existsSync(control)) {
    if (await answers(control)) throw new FaultProxyUsageError(`--control ${control}: another fault proxy is serving there; stop it or choose another path`);
    rmSync(control, { force: true }); // left by a proxy that was killed
  }
  const harness = loadKubeconfig(values.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config'), '--kubeconfig');
  const driver = values['driver-kubeconfig'] === undefined ? harness : loadKubeconfig(values['driver-kubeconfig'], '--driver-kubeconfig');
  const kubeconfigOut = resolve(values['write-kubeconfig']);

  const proxy = await FaultProxy.start({ upstream: driver, thirdParty: harness });
  let server: ControlServer | undefined;
  try {
    await proxy.revision(); // the cluster answers, as the harness: a wrong kubeconfig fails here, not in the first test
    server = await ControlServer.serve(proxy, control, (line) => out(`fault proxy: ${line}`));
    proxy.writeKubeconfig(kubeconfigOut, 0);
  } catch (error) {
    await server?.close();
    await proxy.close();
    rmSync(kubeconfigOut, { force: true });
    throw new Error(`the fault proxy could not start: ${(error as Error).message}`);
  }
  out(`fault proxy ready at ${proxy.url} in front of ${harness.getCurrentCluster()?.server}; driver kubeconfig: ${kubeconfigOut}; control socket: ${control}`);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => done(s));
  });
  out(`${signal}: stopping the fault proxy`);
  await server.close();
  await proxy.close();
  rmSync(kubeconfigOut, { force: true });
  return 0;
}

function loadKubeconfig(path: string, flag: string): k8s.KubeConfig {
  if (!existsSync(path)) throw new FaultProxyUsageError(`${flag} ${path}: no such file`);
  const kubeconfig = new k8s.KubeConfig();
  try {
    kubeconfig.loadFromFile(path);
  } catch (error) {
    throw new FaultProxyUsageError(`${flag} ${path}: not a kubeconfig (${(error as Error).message})`);
  }
  if (!kubeconfig.getCurrentCluster()) throw new FaultProxyUsageError(`${flag} ${path}: its current context names no cluster`);
  return kubeconfig;
}

/** Whether something accepts connections on the socket. */
function answers(socket: string): Promise<boolean> {
  return new Promise((done) => {
    const probe = connect(socket);
    probe.once('connect', () => (probe.destroy(), done(true)));
    probe.once('error', () => done(false));
  });
}
