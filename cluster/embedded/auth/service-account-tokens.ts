import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { causes, errors } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { isPlainObject, metaTime } from '../types.ts';
import { serviceAccountUser, type UserInfo } from './user.ts';

/** The audience kube-apiserver gives tokens when the request names none (its --api-audiences). */
export const DEFAULT_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

interface Claims {
  iss: string;
  sub: string;
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  jti: string;
  'kubernetes.io': {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
  };
}

/**
 * ServiceAccount tokens as the TokenRequest API issues them: JWTs naming the ServiceAccount (and
 * its uid), an audience and an expiry. Signed with HMAC-SHA256 under a key of this cluster (no
 * client verifies the signature; the server does). A token authenticates only while its
 * ServiceAccount (same uid) and any bound object still exist, so a deleted ServiceAccount's token is 401.
 */
export class ServiceAccountTokens {
  private readonly key = randomBytes(32);

  constructor(private readonly store: ObjectStore) {}

  /** TokenRequest for serviceaccounts/<name>/token: validates the spec, returns the token and its expiry. */
  issue(namespace: string, name: string, spec: TokenRequestSpec = {}): { token: string; expirationTimestamp: string; spec: Required<Pick<TokenRequestSpec, 'audiences' | 'expirationSeconds'>> & TokenRequestSpec } {
    const account = this.store.get('serviceaccounts', namespace, name);
    if (!account) throw errors.notFound('', 'serviceaccounts', name);
    const expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
    const invalid = (detail: string) =>
      errors.invalid('TokenRequest', 'authentication.k8s.io', name, [causes.invalid('spec.expirationSeconds', expirationSeconds, detail)]);
    if (!Number.isInteger(expirationSeconds) || expirationSeconds < MIN_EXPIRATION_SECONDS) throw invalid('may not specify a duration less than 10 minutes');
    if (expirationSeconds > MAX_EXPIRATION_SECONDS) throw invalid('may not specify a duration larger than 2^32 seconds');
    const audiences = spec.audiences?.length ? spec.audiences : [DEFAULT_AUDIENCE];
    const now = Math.floor(Date.now() / 1000);
    const claims: Claims = {
      iss: DEFAULT_AUDIENCE,
      sub: `system:serviceaccount:${namespace}:${name}`,
      aud: audiences,
      exp: now + expirationSeconds,
      iat: now,
      nbf: now,
      jti: randomUUID(),
      'kubernetes.io': { namespace, serviceaccount: { name, uid: account.metadata.uid! } },
    };
    const bound = spec.boundObjectRef;
    if (bound?.name) {
      const kind = bound.kind === 'Pod' ? 'pods' : bound.kind === 'Secret' ? 'secrets' : undefined;
      if (!kind) {
        throw errors.invalid('TokenRequest', 'authentication.k8s.io', name, [causes.unsupported('spec.boundObjectRef.kind', bound.kind, ['Pod', 'Secret'])]);
      }
      const object = this.store.get(kind, namespace, bound.name);
      if (!object || (bound.uid && bound.uid !== object.metadata.uid)) throw errors.notFound('', kind, bound.name);
      claims['kubernetes.io'][bound.kind === 'Pod' ? 'pod' : 'secret'] = { name: bound.name, uid: object.metadata.uid! };
    }
    return {
      token: this.sign(claims),
      expirationTimestamp: metaTime(new Date(claims.exp * 1000)),
      spec: { ...spec, audiences, expirationSeconds },
    };
  }

  /** The user a token authenticates as; undefined when it is not a valid, live token of this cluster. */
  authenticate(token: string, audiences: string[] = [DEFAULT_AUDIENCE]): UserInfo | undefined {
    const claims = this.verify(token);
    if (!claims) return undefined;
    const now = Math.floor(Date.now() / 1000);
    if (claims.exp <= now || claims.nbf > now + 60) return undefined;
    if (!claims.aud.some((a) => audiences.includes(a))) return undefined;
    const { namespace, serviceaccount, pod, secret } = claims['kubernetes.io'];
    if (this.store.get('serviceaccounts', namespace, serviceaccount.name)?.metadata.uid !== serviceaccount.uid) return undefined;
    for (const [resource, ref] of [['pods', pod], ['secrets', secret]] as const) {
      if (ref && this.store.get(resource, namespace, ref.name)?.metadata.uid !== ref.uid) return undefined;
    }
    const extra: Record<string, string[]> = {};
    if (pod) extra['authentication.kubernetes.io/pod-name'] = [pod.name];
    if (pod) extra['authentication.kubernetes.io/pod-uid'] = [pod.uid];
    extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    return serviceAccountUser(namespace, serviceaccount.name, serviceaccount.uid, extra);
  }

  private sign(claims: Claims): string {
    const header = encode({ alg: 'HS256', typ: 'JWT' });
    const payload = encode(claims);
    return `${header}.${payload}.${this.mac(`${header}.${payload}`).toString('base64url')}`;
  }

  private verify(token: string): Claims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const given = Buffer.from(parts[2], 'base64url');
    const expected = this.mac(`${parts[0]}.${parts[1]}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
      return isPlainObject(claims) && isPlainObject(claims['kubernetes.io']) ? (claims as unknown as Claims) : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(data: string): Buffer {
    return createHmac('sha256', this.key).update(data).digest();
  }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
