import { test, expect } from '@playwright/test';
import * as k8s from '@kubernetes/client-node';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { WebSocket } from 'ws';
import { ApiError, errors } from '../errors.ts';
import {
  isWebSocketUpgrade,
  parseExecQuery,
  rejectUpgrade,
  serveExecOverWebSocket,
  type ExecRunner,
} from './exec-stream.ts';

/** Set by the `wait` command once the session's signal fires. */
let aborted = false;

/** A fake container: the command's first word picks the behaviour. */
function fakeContainer([cmd, ...args]: string[]): ExecRunner {
  return async ({ stdin, stdout, stderr, onResize, signal }) => {
    switch (cmd) {
      case 'echo':
        stdout?.write(args.join(' ') + '\n');
        return { exitCode: 0 };
      case 'fail':
        stdout?.write('partial\n');
        stderr?.write('oops\n');
        return { exitCode: Number(args[0]) };
      case 'cat':
        for await (const chunk of stdin ?? []) stdout?.write(chunk);
        stderr?.write('eof\n');
        return { exitCode: 0 };
      case 'flood':
        // No awaiting: the session must still deliver all of it before the status.
        for (let i = 0; i < 200; i++) stdout?.write(Buffer.alloc(1024, 'x'));
        return { exitCode: 0 };
      case 'resize':
        return new Promise((resolve) =>
          onResize((size) => {
            stdout?.write(JSON.stringify(size));
            resolve({ exitCode: 0 });
          }),
        );
      case 'wait':
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ exitCode: 137 });
          }),
        );
      case 'error':
        return { error: errors.internal('boom') };
      default:
        throw new Error(`no such command ${cmd}`);
    }
  };
}

let server: http.Server;
let port: number;
const openSockets = new Set<Socket>();

test.beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on('connection', (socket) => {
    openSockets.add(socket);
    socket.on('close', () => openSockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    if (!isWebSocketUpgrade(req)) {
      rejectUpgrade(socket, errors.badRequest('exec over SPDY is not supported; use a WebSocket client'));
      return;
    }
    try {
      const options = parseExecQuery(new URL(req.url ?? '/', 'http://localhost'));
      serveExecOverWebSocket(req, socket, head, options, fakeContainer(options.command));
    } catch (err) {
      rejectUpgrade(socket, err instanceof ApiError ? err : errors.internal(String(err)));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

test.afterEach(async () => {
  // Every session must end with its socket closed by the server side too.
  await expect.poll(() => openSockets.size, { timeout: 5000 }).toBe(0);
});

test.afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
});

test.describe('@kubernetes/client-node Exec', () => {
  function kubeConfig(): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc;
  }

  async function exec(command: string[], input?: string) {
    const out = collector();
    const err = collector();
    let status: k8s.V1Status | undefined;
    const ws = await new k8s.Exec(kubeConfig()).exec(
      'default',
      'p',
      'main',
      command,
      out.stream,
      err.stream,
      input === undefined ? null : Readable.from([input]),
      false,
      (s) => (status = s),
    );
    await new Promise((resolve) => ws.on('close', resolve));
    return { stdout: out.text(), stderr: err.text(), status, protocol: ws.protocol };
  }

  test('exit 0: stdout and a Success status', async () => {
    const r = await exec(['echo', 'hello', 'world']);
    expect(r.protocol).toBe('v5.channel.k8s.io');
    expect(r.stdout).toBe('hello world\n');
    expect(r.stderr).toBe('');
    expect(r.status).toEqual({ metadata: {}, status: 'Success' });
  });

  test('exit 3: stderr and a NonZeroExitCode status', async () => {
    const r = await exec(['fail', '3']);
    expect(r.stdout).toBe('partial\n');
    expect(r.stderr).toBe('oops\n');
    expect(r.status).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [fail 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  test('stdin passes through and ends with the v5 close signal', async () => {
    const r = await exec(['cat'], 'hello-stdin\n');
    expect(r.stdout).toBe('hello-stdin\n');
    expect(r.stderr).toBe('eof\n');
    expect(r.status?.status).toBe('Success');
  });

  test('a runner error becomes its Status', async () => {
    const r = await exec(['error']);
    expect(r.status).toMatchObject({ status: 'Failure', reason: 'InternalError', message: 'Internal error occurred: boom', code: 500 });
  });
});

test.describe('raw WebSocket, as kubectl 1.32 sends it', () => {
  interface Frame {
    channel: number;
    data: string;
    binary: boolean;
  }

  /** Opens the exec WebSocket and records every frame until the connection closes. */
  function open(query: string, protocols: string[] = ['v5.channel.k8s.io']) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/namespaces/default/pods/x/exec?${query}`, protocols);
    const frames: Frame[] = [];
    ws.on('message', (data: Buffer, binary) => frames.push({ channel: data[0], data: data.subarray(1).toString(), binary }));
    const opened = new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<{ code: number }>((resolve) => ws.once('close', (code) => resolve({ code })));
    return { ws, frames, opened, closed };
  }

  test('echo: stdout frame, Success status, close 1000', async () => {
    const s = open('command=echo&command=hi&container=main&stderr=true&stdout=true');
    await s.opened;
    expect(s.ws.protocol).toBe('v5.channel.k8s.io');
    expect((await s.closed).code).toBe(1000);
    expect(s.frames).toEqual([
      { channel: 1, data: 'hi\n', binary: true },
      { channel: 3, data: '{"metadata":{},"status":"Success"}', binary: true },
    ]);
  });

  test('non-zero exit: the ExitCode cause kubectl reads its exit code from', async () => {
    const s = open('command=fail&command=4&container=main&stderr=true&stdout=true');
    expect((await s.closed).code).toBe(1000);
    expect(s.frames.map((f) => f.channel)).toEqual([1, 2, 3]);
    const status = JSON.parse(s.frames[2].data);
    expect(status.reason).toBe('NonZeroExitCode');
    expect(status.details.causes).toEqual([{ reason: 'ExitCode', message: '4' }]);
  });

  test('stdin frames then [0xFF, 0x00] end stdin without closing the connection', async () => {
    const s = open('command=cat&container=main&stdin=true&stdout=true&stderr=true');
    await s.opened;
    s.ws.send(Buffer.from([0x04, ...Buffer.from('{"Width":100,"Height":30}\n')])); // ignored by `cat`
    s.ws.send(Buffer.from([0x00, ...Buffer.from('hello-')]));
    s.ws.send(Buffer.from([0x00, ...Buffer.from('stdin\n')]));
    s.ws.send(Buffer.from([0xff, 0x00]));
    expect((await s.closed).code).toBe(1000);
    const text = (channel: number) => s.frames.filter((f) => f.channel === channel).map((f) => f.data).join('');
    expect(text(1)).toBe('hello-stdin\n'); // the two stdin frames may be coalesced on the way
    expect(text(2)).toBe('eof\n');
    expect(s.frames.at(-1)).toEqual({ channel: 3, data: '{"metadata":{},"status":"Success"}', binary: true });
  });

  test('large stdin survives backpressure (the socket is paused, not buffered without bound)', async () => {
    const s = open('command=cat&stdin=true&stdout=true');
    await s.opened;
    for (let i = 0; i < 64; i++) s.ws.send(Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64 * 1024, 'y')]));
    s.ws.send(Buffer.from([0xff, 0x00]));
    expect((await s.closed).code).toBe(1000);
    const out = s.frames.filter((f) => f.channel === 1).reduce((n, f) => n + f.data.length, 0);
    expect(out).toBe(64 * 64 * 1024);
  });

  test('tty: resize on channel 4 reaches the runner; no stderr channel', async () => {
    const s = open('command=resize&container=main&stdin=true&stdout=true&tty=true');
    await s.opened;
    s.ws.send(Buffer.from([0x04, ...Buffer.from('{"Width":100,"Height":30}\n')]));
    expect((await s.closed).code).toBe(1000);
    expect(s.frames.map((f) => [f.channel, f.data])).toEqual([
      [1, '{"width":100,"height":30}'],
      [3, '{"metadata":{},"status":"Success"}'],
    ]);
  });

  test('all output arrives before the status, even when the runner did not wait for it', async () => {
    const s = open('command=flood&stdout=true');
    expect((await s.closed).code).toBe(1000);
    const status = s.frames.findIndex((f) => f.channel === 3);
    expect(status).toBe(s.frames.length - 1);
    expect(s.frames.slice(0, status).reduce((n, f) => n + f.data.length, 0)).toBe(200 * 1024);
  });

  test('v4 is negotiated when v5 is not offered; its stdin ends when the client closes', async () => {
    aborted = false;
    const s = open('command=wait&stdin=true&stdout=true', ['v4.channel.k8s.io', 'v3.channel.k8s.io']);
    await s.opened;
    expect(s.ws.protocol).toBe('v4.channel.k8s.io');
    // v4 knows no close signal: 0xFF is ignored, the session keeps going.
    s.ws.send(Buffer.from([0xff, 0x00]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(aborted).toBe(false);
    s.ws.close(1000);
    await s.closed;
    await expect.poll(() => aborted).toBe(true);
    expect(s.frames).toEqual([]);
  });

  test('v5 is preferred over v4', async () => {
    const s = open('command=echo&stdout=true', ['v4.channel.k8s.io', 'v5.channel.k8s.io']);
    await s.opened;
    expect(s.ws.protocol).toBe('v5.channel.k8s.io');
    await s.closed;
  });

  test('the runner is told when the client goes away abruptly', async () => {
    aborted = false;
    const s = open('command=wait&stdout=true');
    await s.opened;
    s.ws.terminate();
    await expect.poll(() => aborted).toBe(true);
  });
});

test.describe('refused upgrades', () => {
  /** Sends a raw upgrade request and returns the (non-101) HTTP answer. */
  function request(method: string, path: string, headers: Record<string, string | string[]>) {
    return new Promise<{ status: number; contentType?: string; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false });
      req.on('upgrade', () => reject(new Error('unexpected upgrade')));
      req.on('response', async (res) => {
        let body = '';
        for await (const chunk of res) body += chunk;
        resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body });
      });
      req.on('error', reject);
      req.end();
    });
  }

  const wsHeaders = {
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Version': '13',
    'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
  };

  test('no acceptable subprotocol: 400 with a Status body', async () => {
    const r = await request('GET', '/exec?command=echo&stdout=true', {
      ...wsHeaders,
      'Sec-WebSocket-Protocol': 'channel.k8s.io, v3.channel.k8s.io',
    });
    expect(r.status).toBe(400);
    expect(r.contentType).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'unable to upgrade connection: requested protocol(s) are not supported: [channel.k8s.io v3.channel.k8s.io]; supports [v5.channel.k8s.io v4.channel.k8s.io]',
      reason: 'BadRequest',
      code: 400,
    });
  });

  test('SPDY fallback POST: rejectUpgrade answers with the Status kubectl prints', async () => {
    const r = await request('POST', '/exec?command=echo&stdout=true', {
      'Content-Length': '0',
      Connection: 'Upgrade',
      Upgrade: 'SPDY/3.1',
      'X-Stream-Protocol-Version': ['v5.channel.k8s.io', 'v4.channel.k8s.io'],
    });
    expect(r.status).toBe(400);
    expect(r.contentType).toBe('application/json');
    expect(JSON.parse(r.body)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'BadRequest',
      message: 'exec over SPDY is not supported; use a WebSocket client',
      code: 400,
    });
  });

  test('a query without a command is refused before the handshake', async () => {
    const r = await request('GET', '/exec?stdout=true', { ...wsHeaders, 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).message).toBe('you must specify at least 1 command');
  });
});

test.describe('helpers', () => {
  test('parseExecQuery keeps command order and reads flags', () => {
    const url = new URL('http://x/exec?command=sh&command=-c&command=exit+3&container=main&stdin=1&stdout=true&tty=false');
    expect(parseExecQuery(url)).toEqual({
      command: ['sh', '-c', 'exit 3'],
      container: 'main',
      stdin: true,
      stdout: true,
      stderr: false,
      tty: false,
    });
    expect(() => parseExecQuery(new URL('http://x/exec?command=ls'))).toThrow(
      'you must specify at least 1 of stdin, stdout, stderr',
    );
  });

  test('isWebSocketUpgrade looks at the Upgrade header only', () => {
    const req = (upgrade?: string) => ({ headers: upgrade ? { upgrade } : {} }) as http.IncomingMessage;
    expect(isWebSocketUpgrade(req('websocket'))).toBe(true);
    expect(isWebSocketUpgrade(req('WebSocket'))).toBe(true);
    expect(isWebSocketUpgrade(req('SPDY/3.1'))).toBe(false);
    expect(isWebSocketUpgrade(req())).toBe(false);
  });
});

function collector() {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}
