/**
 * Pod IPs from the lower part of the cluster's loopback block (127.N.0.2 to 127.N.199.251):
 * loopback addresses bind on Linux without configuration, so every Pod gets its own address
 * and two Pods can listen on the same port.
 */
export class PodIpAllocator {
  private next = 0;
  private readonly taken = new Set<string>();

  constructor(private readonly octet: number) {}

  allocate(): string {
    for (let tries = 0; tries < 50_000; tries++) {
      const n = this.next++ % 50_000;
      const ip = `127.${this.octet}.${Math.floor(n / 250)}.${(n % 250) + 2}`;
      if (!this.taken.has(ip)) {
        this.taken.add(ip);
        return ip;
      }
    }
    throw new Error(`pod IP range 127.${this.octet}.0.0-127.${this.octet}.199.255 exhausted`);
  }

  release(ip: string): void {
    this.taken.delete(ip);
  }
}
