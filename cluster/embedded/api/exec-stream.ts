/**
 * Server side of `pods/exec` (and `pods/attach`) over WebSocket, speaking the Kubernetes channel
 * protocols `v5.channel.k8s.io` and `v4.channel.k8s.io` as kubectl (1.30+) and
 * @kubernetes/client-node expect them (kubectl-wire-notes §9):
 *
 * - every frame is binary; byte 0 names the channel: 0 stdin, 1 stdout, 2 stderr, 3 status
 *   (one Status JSON), 4 resize (`{"Width":w,"Height":h}`), and in v5 only 255 "close stream n";
 * - the session ends with the status on channel 3 and then a close frame 1000 — kubectl reports
 *   1006 as an error, so the close frame is not optional.
 *
 * SPDY is not spoken: the server answers such requests with {@link rejectUpgrade}, and kubectl
 * prints the Status message from that answer.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { PassThrough, Writable, type Duplex, type Readable } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { ApiError, errors } from '../errors.ts';
import { queryFlag } from './request-info.ts';

export interface ExecOptions {
  command: string[];
  container?: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface ExecSession {
  stdin: Readable | null;
  stdout: Writable | null;
  stderr: Writable | null;
  onResize(listener: (size: { width: number; height: number }) => void): void;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export type ExecResult = { exitCode: number } | { error: ApiError };
export type ExecRunner = (session: ExecSession) => Promise<ExecResult>;

const V5 = 'v5.channel.k8s.io';
const V4 = 'v4.channel.k8s.io';
/** Preference order: v5 first, since only v5 can end stdin without closing the connection. */
const SUPPORTED = [V5, V4];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;

export function parseExecQuery(url: URL): ExecOptions {
  const q = url.searchParams;
  const flag = (name: string) => queryFlag(url, name);
  const options: ExecOptions = {
    command: q.getAll('command'),
    container: q.get('container') || undefined,
    stdin: flag('stdin'),
    stdout: flag('stdout'),
    stderr: flag('stderr'),
    tty: flag('tty'),
  };
  if (options.command.length === 0) throw errors.badRequest('you must specify at least 1 command');
  // Same check (and wording) as the real server's remotecommand options.
  if (!options.stdin && !options.stdout && !options.stderr) {
    throw errors.badRequest('you must specify at least 1 of stdin, stdout, stderr');
  }
  return options;
}

export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return headerTokens(req.headers.upgrade).includes('websocket');
}

// One shared server: with noServer and no client tracking it holds no sockets or listeners.
const wss = new WebSocketServer({
  noServer: true,
  clientTracking: false,
  handleProtocols: (offered) => SUPPORTED.find((p) => offered.has(p)) ?? false,
});

export function serveExecOverWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: ExecOptions,
  run: ExecRunner,
): void {
  const offered = headerTokens(req.headers['sec-websocket-protocol'], false);
  if (!SUPPORTED.some((p) => offered.includes(p))) {
    // Without an agreed subprotocol kubectl would fall back to SPDY anyway; a 400 with a clear
    // Status is what it (and a human with curl) can make sense of.
    rejectUpgrade(
      socket,
      errors.badRequest(
        `unable to upgrade connection: requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${SUPPORTED.join(' ')}]`,
      ),
    );
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => void runSession(ws, options, run));
}

export function rejectUpgrade(socket: Duplex, error: ApiError): void {
  // A reset from the client while we answer must not become an uncaught 'error'.
  socket.on('error', () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(error.toStatus());
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${error.code} ${STATUS_CODES[error.code] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      'Cache-Control: no-cache, private\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' +
      body,
  );
}

async function runSession(ws: WebSocket, options: ExecOptions, run: ExecRunner): Promise<void> {
  const closeSignal = ws.protocol === V5;
  const gone = new AbortController();
  const stdin = options.stdin ? new PassThrough() : null;
  const stdout = options.stdout ? channelWriter(ws, STDOUT) : null;
  // With a TTY stdout and stderr are one stream; kubectl does not even ask for stderr then.
  const stderr = options.stderr && !options.tty ? channelWriter(ws, STDERR) : null;

  const resizeListeners: ((size: { width: number; height: number }) => void)[] = [];
  let lastSize: { width: number; height: number } | undefined;

  ws.on('error', () => {}); // protocol errors end in 'close' too; nothing more to do here
  ws.on('close', () => {
    // v4 has no way to end stdin but closing the connection.
    stdin?.end();
    gone.abort();
  });
  ws.on('message', (data) => {
    const frame = toBuffer(data);
    if (frame.length === 0) return;
    const payload = frame.subarray(1);
    switch (frame[0]) {
      case STDIN:
        if (stdin && stdin.writable && payload.length > 0 && !stdin.write(payload)) {
          // Backpressure: stop reading the socket until the command has consumed its input.
          // (Frames already parsed still arrive while paused; one drain listener is enough.)
          if (!ws.isPaused) {
            ws.pause();
            stdin.once('drain', () => ws.resume());
          }
        }
        break;
      case RESIZE:
        for (const size of parseResize(payload)) {
          lastSize = size;
          for (const listener of resizeListeners) listener(size);
        }
        break;
      case CLOSE:
        if (closeSignal && payload[0] === STDIN) stdin?.end();
        break;
      // Anything else (e.g. stdout frames from a confused client) is ignored, as the real server does.
    }
  });

  let result: ExecResult;
  try {
    result = await run({
      stdin,
      stdout,
      stderr,
      signal: gone.signal,
      onResize(listener) {
        resizeListeners.push(listener);
        // kubectl sends the first size before anything else; a late listener must still see it.
        if (lastSize) listener(lastSize);
      },
    });
  } catch (err) {
    result = { error: err instanceof ApiError ? err : errors.internal(err instanceof Error ? err.message : String(err)) };
  }

  // Everything written to stdout/stderr must reach the client before the status frame; frames
  // go out in send order, so it is enough to let both writers hand over their last chunk.
  await Promise.all([stdout, stderr].map((w) => w && endAndWait(w)));
  stdin?.destroy();
  if (ws.readyState !== ws.OPEN) return;
  ws.resume(); // the close handshake needs the client's close frame read
  ws.send(Buffer.concat([Buffer.from([STATUS]), Buffer.from(JSON.stringify(statusFor(result, options.command)))]));
  ws.close(1000);
}

/**
 * The Status as the kubelet writes it: a bare metav1.Status (no kind), and for a non-zero exit
 * the NonZeroExitCode reason with an ExitCode cause, which is where kubectl takes its exit code from.
 */
function statusFor(result: ExecResult, command: string[]): object {
  if ('error' in result) return result.error.toStatus();
  if (result.exitCode === 0) return { metadata: {}, status: 'Success' };
  const code = result.exitCode;
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** A Writable whose chunks become frames on one channel; chunks after the client left are dropped. */
function channelWriter(ws: WebSocket, channel: number): Writable {
  const writer = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (chunk.length === 0 || ws.readyState !== ws.OPEN) return done();
      // The callback fires once the frame is handed to the socket: that is our backpressure.
      // Send errors are ignored because the 'close' handler already tells the runner.
      ws.send(Buffer.concat([Buffer.from([channel]), chunk]), () => done());
    },
  });
  // A runner writing after the session ended must not crash the server with an unhandled 'error'.
  writer.on('error', () => {});
  return writer;
}

function endAndWait(writer: Writable): Promise<void> {
  return new Promise((resolve) => {
    if (writer.writableFinished || writer.destroyed) return resolve();
    writer.once('finish', resolve).once('close', resolve);
    if (!writer.writableEnded) writer.end();
  });
}

/**
 * Go's JSON decoding (what the real server uses) is case-insensitive and reads a stream of
 * values: kubectl sends `{"Width":..,"Height":..}\n`, client-node `{"height":..,"width":..}`,
 * possibly several in one frame.
 */
function parseResize(payload: Buffer): { width: number; height: number }[] {
  const sizes: { width: number; height: number }[] = [];
  for (const text of payload.toString('utf8').match(/\{[^{}]*\}/g) ?? []) {
    try {
      const raw = JSON.parse(text) as Record<string, unknown>;
      const pick = (key: string) => Number(raw[key] ?? raw[key[0].toUpperCase() + key.slice(1)] ?? 0);
      sizes.push({ width: pick('width'), height: pick('height') });
    } catch {
      // A malformed resize is not worth ending the session over.
    }
  }
  return sizes;
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Comma-separated header tokens, trimmed (and lower-cased unless `lower` is false). */
function headerTokens(header: string | string[] | undefined, lower = true): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((t) => (lower ? t.trim().toLowerCase() : t.trim()))
    .filter(Boolean);
}
