import { builtinTypes } from './registry/builtin-types.ts';
import { ObjectApi } from './registry/object-api.ts';
import { ResourceRegistry } from './registry/resource-registry.ts';
import { ObjectStore } from './store/object-store.ts';

/** 127.1.0.0/16: never handed out by claimAddressBlock, so a bare registry cannot meet a running cluster's addresses. */
const TEST_ADDRESS_OCTET = 1;

/**
 * For tests of one controller or node part: the store and object API with the built-in kinds
 * and one namespace, without the HTTPS server or any controller around them.
 */
export function bareObjectApi(namespace: string): ObjectApi {
  const registry = new ResourceRegistry();
  for (const type of builtinTypes(TEST_ADDRESS_OCTET)) registry.add(type);
  const api = new ObjectApi(new ObjectStore(), registry);
  api.create(api.target('v1', 'namespaces'), { metadata: { name: namespace } });
  return api;
}
