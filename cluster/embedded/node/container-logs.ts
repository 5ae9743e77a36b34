import { EventEmitter } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';

interface LogLine {
  time: string;
  text: string;
}

/** Wall-clock nanoseconds, from one monotonic clock so that timestamps never go backwards. */
const WALL_AT_START = BigInt(Date.now()) * 1_000_000n;
const HR_AT_START = process.hrtime.bigint();

/** Nanosecond RFC 3339 timestamps, as the kubelet prefixes lines with `--timestamps`; non-decreasing. */
function timestamp(): string {
  const nanos = WALL_AT_START + (process.hrtime.bigint() - HR_AT_START);
  const seconds = new Date(Number(nanos / 1_000_000n)).toISOString().slice(0, 19);
  return `${seconds}.${String(nanos % 1_000_000_000n).padStart(9, '0')}Z`;
}

/**
 * The output of one run of one container (stdout and stderr interleaved, as the kubelet's log
 * file keeps them). A restart starts a new log; the one before serves `--previous`.
 */
export class ContainerLog extends EventEmitter {
  private readonly lines: LogLine[] = [];
  private partial = '';
  private ended = false;

  append(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const part of parts) this.push(part + '\n');
  }

  end(): void {
    if (this.ended) return;
    if (this.partial) this.push(this.partial);
    this.partial = '';
    this.ended = true;
    this.emit('end');
  }

  get text(): string {
    return this.lines.map((l) => l.text).join('') + this.partial;
  }

  /** A stream for `pods/log`: tail, since, timestamps and limit as the kubelet applies them; with follow it stays open until the run ends. */
  read(options: { follow: boolean; timestamps: boolean; tailLines?: number; sinceSeconds?: number; limitBytes?: number }, signal: AbortSignal): Readable {
    const out = new PassThrough();
    let budget = options.limitBytes ?? Infinity;
    const since = options.sinceSeconds !== undefined ? Date.now() - options.sinceSeconds * 1000 : undefined;
    const write = (line: LogLine): boolean => {
      if (since !== undefined && Date.parse(line.time) < since) return true;
      let text = options.timestamps ? `${line.time} ${line.text}` : line.text;
      if (text.length > budget) text = text.slice(0, budget);
      budget -= text.length;
      if (text) out.write(text);
      return budget > 0;
    };
    let history = this.lines;
    if (options.tailLines !== undefined) history = options.tailLines > 0 ? history.slice(-options.tailLines) : [];
    for (const line of history) {
      if (!write(line)) {
        out.end();
        return out;
      }
    }
    if (!options.follow || this.ended) {
      out.end();
      return out;
    }
    const onLine = (line: LogLine) => {
      if (!write(line)) finish();
    };
    const finish = () => {
      this.off('line', onLine);
      this.off('end', finish);
      signal.removeEventListener('abort', finish);
      out.end();
    };
    this.on('line', onLine);
    this.once('end', finish);
    signal.addEventListener('abort', finish, { once: true });
    return out;
  }

  private push(text: string): void {
    const line = { time: timestamp(), text };
    this.lines.push(line);
    this.emit('line', line);
  }
}
