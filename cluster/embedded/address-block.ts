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
