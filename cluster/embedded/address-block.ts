import { createServer, type Server } from 'node:net';

/** A loopback /16 (127.N.0.0) this cluster alone uses for Pod and Service addresses. */
export interface AddressBlock {
  octet: number;
  release(): Promise<void>;
}

const CLAIM_PORT = 47_911;
const claimed = new Set<number>();

/**
 * Claims a free 127.N.0.0/16 for one embedded cluster, so clusters in parallel test workers or
 * lanes never hand out the same Pod or Service address. The claim is a listener on
 * 127.N.255.254:47911: the kernel keeps it exclusive across processes and drops it when the
 * process ends, so a crash cannot leak a block.
 */
export async function claimAddressBlock(): Promise<AddressBlock> {
  const start = 2 + Math.floor(Math.random() * 250);
  for (let i = 0; i < 250; i++) {
    const octet = 2 + ((start - 2 + i) % 250);
    if (claimed.has(octet)) continue;
    const server = await listen(`127.${octet}.255.254`);
    if (!server) continue;
    claimed.add(octet);
    server.unref();
    return {
      octet,
      release: () =>
        new Promise<void>((resolve) => {
          claimed.delete(octet);
          server.close(() => resolve());
        }),
    };
  }
  throw new Error('no free loopback address block 127.N.0.0/16 for an embedded cluster (250 in use)');
}

function listen(host: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(CLAIM_PORT, host, () => resolve(server));
  });
}

/**
 * Addresses of a cluster's block handed out in turn from one part of it: third octets
 * `thirds.first` onwards (`thirds.count` of them), fourth octets likewise. An address is taken
 * until released; the turn goes on past it, so a released address is not reused at once.
 */
export class AddressRange {
  private next = 0;
  private readonly taken = new Set<string>();

  constructor(
    private readonly octet: number,
    /** What the addresses are for, in the error when the range is exhausted. */
    private readonly purpose: string,
    private readonly thirds: { first: number; count: number },
    private readonly fourths: { first: number; count: number },
  ) {}

  allocate(): string {
    const size = this.thirds.count * this.fourths.count;
    for (let tries = 0; tries < size; tries++) {
      const n = this.next++ % size;
      const ip = `127.${this.octet}.${this.thirds.first + Math.floor(n / this.fourths.count)}.${this.fourths.first + (n % this.fourths.count)}`;
      if (!this.taken.has(ip)) {
        this.taken.add(ip);
        return ip;
      }
    }
    const last = this.thirds.first + this.thirds.count - 1;
    throw new Error(`${this.purpose} IP range 127.${this.octet}.${this.thirds.first}.0-127.${this.octet}.${last}.255 exhausted`);
  }

  release(ip: string): void {
    this.taken.delete(ip);
  }
}
