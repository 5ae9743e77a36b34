import { serveDriver } from '../grpc/server.ts';
import { configuredDriver } from './configured-driver.ts';
import { fail, nonNegativeInteger, nonNegativeNumber, type Invocation } from './options.ts';

/**
 * `serve`: the Kubernetes driver behind its gRPC socket, in the foreground, until SIGINT or
 * SIGTERM; prints "compute driver listening on PATH" once the socket accepts calls.
 */
export async function serve({ values }: Invocation): Promise<void> {
  const socket = values.socket!;
  const supervisorGraceSeconds = nonNegativeInteger(values, 'supervisor-grace');
  const workloadGraceSeconds = nonNegativeInteger(values, 'workload-grace');
  const reconcileSeconds = nonNegativeNumber(values, 'reconcile-interval');
  const reconcileIntervalMs = reconcileSeconds === undefined ? undefined : Math.round(reconcileSeconds * 1000);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const driver = await configuredDriver(values, { reconcileIntervalMs, log, supervisorGraceSeconds, workloadGraceSeconds });

  let server;
  try {
    server = await serveDriver(driver, socket);
  } catch (error) {
    await driver.close();
    fail((error as Error).message);
  }
  process.stdout.write(`compute driver listening on ${socket}\n`);
  // Finish whatever a previous run left half-done (a stop interrupted mid-way, say).
  void driver.reconcile().catch((error: Error) => log(`startup reconciliation: ${error.message}`));

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        log(`${signal} again: exiting without waiting`);
        process.exit(1);
      }
      stopping = true;
      log(`${signal}: stopping the compute driver`);
      void (async () => {
        await server.close();
        // The socket is gone now; give the driver a bounded moment to finish a reconciliation.
        await Promise.race([driver.close(), new Promise((done) => setTimeout(done, 10_000).unref())]);
        process.exit(0);
      })();
    });
  }
}
