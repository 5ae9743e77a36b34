/**
 * Pod IPs from 127.2.0.0/16: loopback addresses bind on Linux without configuration, so
 * every Pod gets its own address and two Pods can listen on the same port.
 */
export class PodIpAllocator {
  private next = 0;
  private readonly taken = new Set<string>();

  allocate(): string {
    for (let tries = 0; tries < 65_000; tries++) {
      const n = this.next++ % 65_000;
      const ip = `127.2.${Math.floor(n / 250)}.${(n % 250) + 2}`;
      if (!this.taken.has(ip)) {
        this.taken.add(ip);
        return ip;
      }
    }
    throw new Error('pod IP range 127.2.0.0/16 exhausted');
  }

  release(ip: string): void {
    this.taken.delete(ip);
  }
}
