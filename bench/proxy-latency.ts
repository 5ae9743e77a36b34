/**
 * `npm run bench -- proxy`: what the fault proxy (faults/proxy/) adds to a request with no fault
 * in force. GETs of one Pod against the embedded cluster, directly, through a FaultProxy in
 * front of it, and through one served on its own with a test's session attached to its control
 * socket (faults/remote/: every request waits for the session's verdict, as for a driver started
 * with `external=`), interleaved in the same rounds (http-load.ts timeInterleavedGets); median and
 * p99 of each and the ratios to direct. Cluster and proxy run on this (main) thread, as the harness
 * runs them; the client runs in a worker thread (worker.ts).
 */
import * as k8s from '@kubernetes/client-node';
import { EmbeddedCluster } from '../cluster/embedded/cluster.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultProxy } from '../faults/proxy/fault-proxy.ts';
import { ControlServer } from '../faults/remote/control-server.ts';
import { RemoteFaultProxy } from '../faults/remote/remote-proxy.ts';
import { busyWarning, fmt, progressLog, reportBenchmark, type BenchOptions, type Row } from './common.ts';
import type { Endpoint } from './http-load.ts';
import { runInWorker } from './worker.ts';

const POD_PATH = '/api/v1/namespaces/default/pods/bench-proxy';

/** The proxy's client 0 as an endpoint: its URL, the CA its kubeconfig trusts, its token. */
function proxyEndpoint(proxy: FaultProxy): Endpoint {
  const kubeconfig = proxy.kubeconfig(0);
  return { url: proxy.url, ca: Buffer.from(kubeconfig.getCurrentCluster()!.caData!, 'base64').toString('utf8'), token: kubeconfig.getCurrentUser()!.token };
}

export async function runProxyBenchmark(options: BenchOptions): Promise<void> {
  const progress = progressLog('proxy');
  const busyAtStart = busyWarning();
  const sizes = options.quick ? { warmup: 50, rounds: 300 } : { warmup: 500, rounds: 5_000 };
  progress('starting the embedded cluster and the proxy');
  const cluster = await EmbeddedCluster.start();
  const admin = new k8s.KubeConfig();
  admin.loadFromString(cluster.kubeconfig());
  const proxy = await FaultProxy.start({ upstream: admin, thirdParty: admin });
  const served = await FaultProxy.start({ upstream: admin, thirdParty: admin });
  const dir = await mkdtemp(join(tmpdir(), 'bench-proxy-'));
  const control = await ControlServer.serve(served, join(dir, 'control.sock'));
  const session = await RemoteFaultProxy.connect(control.socketPath);
  // A schedule run's observer: it sees each request and lets it through.
  let seen = 0;
  session.observe(() => void seen++);
  try {
    await admin.makeApiClient(k8s.CoreV1Api).createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'bench-proxy' }, spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] }] } },
    });
    const direct: Endpoint = { url: cluster.url, ca: cluster.certificateAuthority, token: cluster.token };
    const { results } = await runInWorker(
      {
        kind: 'interleaved-gets',
        plan: {
          endpoints: [
            { label: 'direct', endpoint: direct },
            { label: 'proxy', endpoint: proxyEndpoint(proxy) },
            { label: 'session', endpoint: proxyEndpoint(served) },
          ],
          path: POD_PATH,
          warmup: sizes.warmup,
          rounds: sizes.rounds,
        },
      },
      progress,
    );
    const [straight, proxied, remote] = results;
    const ratio = (a: number, b: number) => (a / b).toFixed(2);
    const rows: Row[] = [
      { measure: 'GET one Pod, direct: median', value: fmt.ms(straight.latencyMs.p50) },
      { measure: 'GET one Pod, direct: p99', value: fmt.ms(straight.latencyMs.p99) },
      { measure: 'GET one Pod, through the proxy: median', value: fmt.ms(proxied.latencyMs.p50) },
      { measure: 'GET one Pod, through the proxy: p99', value: fmt.ms(proxied.latencyMs.p99) },
      { measure: 'proxy / direct: median', value: ratio(proxied.latencyMs.p50, straight.latencyMs.p50) },
      { measure: 'proxy / direct: p99', value: ratio(proxied.latencyMs.p99, straight.latencyMs.p99) },
      { measure: 'GET one Pod, through a served proxy with a session: median', value: fmt.ms(remote.latencyMs.p50) },
      { measure: 'GET one Pod, through a served proxy with a session: p99', value: fmt.ms(remote.latencyMs.p99) },
      { measure: 'served proxy with a session / direct: median', value: ratio(remote.latencyMs.p50, straight.latencyMs.p50) },
      { measure: 'served proxy with a session / direct: p99', value: ratio(remote.latencyMs.p99, straight.latencyMs.p99) },
      { measure: "requests the session's observer saw", value: String(seen) },
    ];
    await reportBenchmark({
      name: 'proxy',
      options,
      quickNote: `${sizes.rounds} rounds`,
      subtitle: `${sizes.rounds} interleaved rounds after ${sizes.warmup} warm-up`,
      busyAtStart,
      rows,
      note: 'Time to the last byte, one request at a time over one keep-alive connection per endpoint; the proxy has no fault in force.',
      figures: { sizes, path: POD_PATH, direct: straight.latencyMs, proxy: proxied.latencyMs, servedWithSession: remote.latencyMs, sessionSaw: seen },
    });
  } finally {
    await session.close();
    await control.close();
    await served.close();
    await rm(dir, { recursive: true, force: true });
    await proxy.close();
    await cluster.stop();
  }
}
