import { AddressRange } from '../address-block.ts';

/**
 * Pod IPs from the lower part of the cluster's loopback block (127.N.0.2 to 127.N.199.251):
 * loopback addresses bind on Linux without configuration, so every Pod gets its own address
 * and two Pods can listen on the same port.
 */
export class PodIpAllocator extends AddressRange {
  constructor(octet: number) {
    super(octet, 'pod', { first: 0, count: 200 }, { first: 2, count: 250 });
  }
}
