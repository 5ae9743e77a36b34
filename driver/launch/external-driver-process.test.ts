import { expect, test } from '@playwright/test';
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { EmbeddedCluster } from '../../cluster/embedded/cluster.ts';
import { ExternalDriverProcess, harnessDriverCommand, type DriverSettings } from './external-driver-process.ts';

/** The launcher against a real embedded cluster: it returns once GetCapabilities answers, and cleans up after a driver that never serves. */

const SETTINGS: DriverSettings = { namespace: 'openshell', supervisorGraceSeconds: 3, workloadGraceSeconds: 3, apiHeadroomSeconds: 5, reconcileIntervalMs: 0 };

test('started means serving: the driver answers on its socket; stop removes the socket directory', async () => {
  test.setTimeout(120_000);
  const kubeconfigPath = test.info().outputPath('kubeconfig');
  const cluster = await EmbeddedCluster.start({ kubeconfigPath, agentSandbox: 'v0.5.0' });
  try {
    const driver = await ExternalDriverProcess.start({ kubeconfigPath, command: harnessDriverCommand({ workspaceMode: 'shared', variant: 'suspend-first', settings: SETTINGS }) });
    expect(driver.capabilities).toMatchObject({ driverName: 'kubernetes', driverVersion: '0.2.0+suspend-first' });
    expect(await driver.client.getCapabilities()).toEqual(driver.capabilities);
    expect(existsSync(driver.socket)).toBe(true);
    // The socket is its owner's only, in a directory of its own.
    expect(statSync(driver.socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(driver.socket)).mode & 0o777).toBe(0o700);
    await driver.stop();
    expect(existsSync(dirname(driver.socket))).toBe(false);
  } finally {
    await cluster.stop();
  }
});

test('a driver that exits before serving: a clear error with its output, and nothing left behind', async () => {
  test.setTimeout(60_000);
  const missing = test.info().outputPath('no-such-kubeconfig');
  const error = await ExternalDriverProcess.start({ kubeconfigPath: missing, command: harnessDriverCommand({ workspaceMode: 'shared', variant: 'reference', settings: SETTINGS }) }).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.message).toMatch(/^the external driver exited before it served GetCapabilities on (\S+)\/driver\.sock \(exit 1\): error: cannot load the default kubeconfig \(\$KUBECONFIG or ~\/\.kube\/config\): ENOENT: .*no-such-kubeconfig'$/);
  const socketDir = /on (\S+)\/driver\.sock/.exec(error!.message)![1];
  expect(existsSync(socketDir)).toBe(false);
});

test('any command line: started with --bind-socket PATH and KUBECONFIG, its output kept, SIGKILL takes the whole process group', async () => {
  test.setTimeout(60_000);
  const kubeconfigPath = test.info().outputPath('kubeconfig-for-exec');
  // A shell command that is not a compute driver: it prints what it was given, then waits.
  const error = await ExternalDriverProcess.start({ kubeconfigPath, command: { argv: [`sh -c 'echo "args: $*; kubeconfig: $KUBECONFIG"; exit 3' sh`], shell: true } }).then(
    () => undefined,
    (e: Error) => e,
  );
  expect(error?.message).toMatch(/^the external driver exited before it served GetCapabilities on (\S+)\/driver\.sock \(exit 3\): args: --bind-socket \S+\/driver\.sock; kubeconfig: .*kubeconfig-for-exec$/);
});
