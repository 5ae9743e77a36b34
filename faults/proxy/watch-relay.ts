/**
 * One watch stream relayed event by event (newline-delimited JSON, as kube-apiserver writes a
 * watch in JSON), so faults can act on it: hold its events (all of them, or from the first one
 * above a revision), release them in order, drop them, or end the stream cleanly after a number
 * of events. A stream never reorders or skips an event it delivers: a real server sends every
 * change in order, so the only way to lose events is to end the stream.
 */
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { KubeRequest } from '../request/kube-request.ts';

/** How a hold ends: its events delivered, delivered and the stream ended, or dropped with the stream ended. */
export type HoldRelease = 'deliver' | 'close' | 'expire';

interface HeldEvent {
  line: string;
  revision?: number;
}

interface Closer {
  token: object;
  remaining: number;
  onClosed: () => void;
}

interface HoldAbove {
  token: object;
  revision: number;
  onHeld: () => void;
}

/** The resourceVersion of a watch event line (a BOOKMARK's too); undefined when it has none. */
export function eventRevision(line: string): number | undefined {
  try {
    const event = JSON.parse(line) as { object?: { metadata?: { resourceVersion?: string } } };
    const value = Number(event.object?.metadata?.resourceVersion);
    return Number.isFinite(value) && event.object?.metadata?.resourceVersion ? value : undefined;
  } catch {
    return undefined;
  }
}

export class RelayedWatch {
  private readonly holds = new Set<object>();
  private held: HeldEvent[] = [];
  private closers: Closer[] = [];
  private holdsAbove: HoldAbove[] = [];
  private readonly endListeners: (() => void)[] = [];
  private upstream?: ClientRequest;
  private partial = '';
  private ended = false;
  /** The resourceVersion of the last event the client got: where it will resume. */
  lastDelivered?: number;

  constructor(
    readonly request: KubeRequest,
    readonly client: number,
    private readonly res: ServerResponse,
  ) {
    // The client went away: nothing more to relay.
    res.once('close', () => this.end());
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The path the stream resumes on (without its query): one client's streams on one collection. */
  get pathname(): string {
    return new URL(this.request.path, 'https://proxy.invalid').pathname;
  }

  /** Sends the stream's head (the upstream's headers) at once, so the client knows it is watching. */
  open(headers: Record<string, string | string[]>): void {
    delete headers['content-length'];
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
  }

  /** Relays the upstream's stream, line by line. */
  follow(upstream: ClientRequest, response: IncomingMessage): void {
    this.upstream = upstream;
    if (this.ended) return void upstream.destroy();
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) if (line.trim()) this.push(line);
    });
    // The upstream ended the stream (its timeout, a restart): the client's stream ends as cleanly.
    response.once('end', () => this.end());
    response.once('error', () => this.end());
  }

  /** One event, from the upstream or made by a fault (stale ADDED events). */
  push(line: string): void {
    if (this.ended) return;
    const revision = eventRevision(line);
    for (const above of this.holdsAbove) {
      if (revision !== undefined && revision > above.revision && !this.holds.has(above.token)) {
        this.holdsAbove = this.holdsAbove.filter((h) => h !== above);
        this.holds.add(above.token);
        above.onHeld();
      }
    }
    if (this.holds.size > 0) this.held.push({ line, revision });
    else this.deliver({ line, revision });
  }

  private deliver(event: HeldEvent): void {
    if (this.ended) return;
    this.res.write(event.line + '\n');
    if (event.revision !== undefined) this.lastDelivered = event.revision;
    for (const closer of [...this.closers]) {
      if (--closer.remaining > 0) continue;
      this.closers = this.closers.filter((c) => c !== closer);
      closer.onClosed();
      this.end();
    }
  }

  /** Holds every event from now on until `release(token)`. */
  hold(token: object): void {
    this.holds.add(token);
  }

  /** Holds events from the first one whose resourceVersion is above `revision` on; `onHeld` when that happens. */
  holdAbove(token: object, revision: number, onHeld: () => void): void {
    this.holdsAbove.push({ token, revision, onHeld });
  }

  /**
   * Ends `token`'s hold; returns how many events it delivered or dropped. What another hold still
   * holds stays held: `close` then ends the stream with those undelivered, as `expire` does.
   */
  release(token: object, how: HoldRelease): number {
    this.holdsAbove = this.holdsAbove.filter((h) => h.token !== token);
    if (!this.holds.delete(token)) return 0;
    const count = this.held.length;
    if (how === 'expire') {
      this.held = [];
      this.end();
      return count;
    }
    if (this.holds.size === 0) {
      const held = this.held;
      this.held = [];
      for (const event of held) this.deliver(event);
    }
    if (how === 'close') this.end();
    return count;
  }

  /** The highest resourceVersion among held events (what an expired stream's client never saw). */
  get heldRevision(): number | undefined {
    return this.held.reduce<number | undefined>((max, e) => (e.revision !== undefined && (max === undefined || e.revision > max) ? e.revision : max), undefined);
  }

  /** Ends the stream cleanly after `events` more delivered events (at once for 0). */
  closeAfter(token: object, events: number, onClosed: () => void): void {
    if (events <= 0) {
      onClosed();
      this.end();
      return;
    }
    this.closers.push({ token, remaining: events, onClosed });
  }

  cancelClose(token: object): void {
    this.closers = this.closers.filter((c) => c.token !== token);
  }

  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  /** Ends the client's stream cleanly (the chunked body's end) and the upstream's. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.upstream?.destroy();
    if (!this.res.writableEnded) this.res.end();
    for (const listener of this.endListeners.splice(0)) listener();
  }
}
