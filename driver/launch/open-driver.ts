/**
 * Opens the driver under test however it is reached — the reference driver in this process, a
 * driver binary started as a process, or a driver someone else serves on a socket — as one
 * `ComputeDriver`, plus what a crash or a report needs of it.
 */
import type * as k8s from '@kubernetes/client-node';
import type { ComputeDriver, DriverVariant, WorkspaceMode } from '../compute-driver.ts';
import { KubernetesDriver } from '../kubernetes/kubernetes-driver.ts';
import { ExternalDriverProcess, grpcDriverClient, type DriverCommand, type DriverSettings } from './external-driver-process.ts';

export type DriverLaunch =
  | { kind: 'in-process'; kubeconfig: k8s.KubeConfig; workspaceMode: WorkspaceMode; variant: DriverVariant; settings: DriverSettings; log?: (line: string) => void }
  | { kind: 'process'; command: DriverCommand; kubeconfigPath: string }
  | { kind: 'socket'; socket: string };

export interface OpenedDriver {
  client: ComputeDriver;
  /** The process behind it, when the harness started one. */
  process?: ExternalDriverProcess;
  /** Runs one reconciliation pass now and resolves when it ended: only a driver in this process can be asked (the others reconcile on their own schedule and at start-up). */
  reconcile?: () => Promise<void>;
  /** Abandons it mid-operation, as a crash would: the process SIGKILLed, the in-process instance halted. */
  crash(): Promise<void>;
  close(): Promise<void>;
}

export async function openDriver(launch: DriverLaunch): Promise<OpenedDriver> {
  switch (launch.kind) {
    case 'in-process': {
      const { kubeconfig, workspaceMode, variant, settings, log } = launch;
      const driver = new KubernetesDriver({ kubeconfig, workspaceMode, variant, ...settings, log });
      return { client: driver, reconcile: () => driver.reconcile(), crash: async () => driver.halt(), close: () => driver.close() };
    }
    case 'process': {
      const process = await ExternalDriverProcess.start({ command: launch.command, kubeconfigPath: launch.kubeconfigPath });
      return { client: process.client, process, crash: () => process.kill('SIGKILL'), close: () => process.stop() };
    }
    case 'socket': {
      const client = new (await grpcDriverClient())(launch.socket);
      return {
        client,
        crash: async () => {
          throw new Error(`the driver at ${launch.socket} is not the harness's to crash and restart`);
        },
        close: () => client.close(),
      };
    }
  }
}
