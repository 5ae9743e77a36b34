import { request } from 'node:http';
import { connect } from 'node:net';
import { runCommand, type ProcessSpec } from './process-runtime.ts';

export interface Probe {
  exec?: { command: string[] };
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: string; httpHeaders?: { name: string; value: string }[] };
  tcpSocket?: { port: number | string; host?: string };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface ProbeTarget {
  podIP: string;
  ports: { name?: string; containerPort: number }[];
  /** Environment and working directory for exec probes. */
  exec: Omit<ProcessSpec, 'argv'>;
}

function resolvePort(port: number | string, target: ProbeTarget): number {
  if (typeof port === 'number') return port;
  const named = target.ports.find((p) => p.name === port);
  if (!named) throw new Error(`port "${port}" is not named in the container`);
  return named.containerPort;
}

/** One probe attempt, as the kubelet runs it: exec exit 0, HTTP 200-399, or a TCP connect succeeds. */
export async function runProbe(probe: Probe, target: ProbeTarget): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec) {
    const abort = AbortSignal.timeout(timeoutMs);
    const exit = await runCommand({ ...target.exec, argv: probe.exec.command }, { signal: abort });
    return exit.exitCode === 0;
  }
  if (probe.httpGet) {
    const get = probe.httpGet;
    const port = resolvePort(get.port, target);
    return new Promise((resolve) => {
      const req = request(
        { host: get.host ?? target.podIP, port, path: get.path ?? '/', method: 'GET', timeout: timeoutMs, headers: Object.fromEntries((get.httpHeaders ?? []).map((h) => [h.name, h.value])) },
        (res) => {
          res.resume();
          resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    });
  }
  if (probe.tcpSocket) {
    const port = resolvePort(probe.tcpSocket.port, target);
    return new Promise((resolve) => {
      const socket = connect({ host: probe.tcpSocket!.host ?? target.podIP, port, timeout: timeoutMs });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(false));
    });
  }
  return true;
}
