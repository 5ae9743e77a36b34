import { timingSafeEqual } from 'node:crypto';
import { ApiError, errors, qualifiedResource } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { RbacAuthorizer, type Decision } from './rbac/authorizer.ts';
import type { Attributes } from './rbac/policy-rules.ts';
import { ServiceAccountTokens } from './service-account-tokens.ts';
import { ADMIN_USER, SYSTEM_MASTERS, type UserInfo } from './user.ts';

/**
 * Authentication and authorization for every HTTP request: the cluster's admin token (a member of
 * system:masters, allowed without asking RBAC: the fast path), ServiceAccount tokens from the
 * TokenRequest API, and RBAC for everyone else, with 401/403 worded as kube-apiserver words them.
 */
export class AccessControl {
  readonly tokens: ServiceAccountTokens;
  readonly rbac: RbacAuthorizer;
  private readonly adminToken: Buffer;

  constructor(store: ObjectStore, adminToken: string) {
    this.tokens = new ServiceAccountTokens(store);
    this.rbac = new RbacAuthorizer(store);
    this.adminToken = Buffer.from(adminToken);
  }

  /** The user behind a bearer token, or undefined when the token is not valid here. */
  userForToken(token: string): UserInfo | undefined {
    const given = Buffer.from(token);
    if (given.length === this.adminToken.length && timingSafeEqual(given, this.adminToken)) return ADMIN_USER;
    return token.includes('.') ? this.tokens.authenticate(token) : undefined;
  }

  /** The user of an `Authorization` header; 401 without a valid bearer token. */
  authenticate(authorization: string | undefined): UserInfo {
    const header = authorization ?? '';
    const user = header.startsWith('Bearer ') ? this.userForToken(header.slice(7).trim()) : undefined;
    if (!user) throw errors.unauthorized();
    return user;
  }

  decide(user: UserInfo, attributes: Attributes): Decision {
    if (user === ADMIN_USER || user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
    return this.rbac.authorize(user, attributes);
  }

  /** Throws 403 Forbidden unless the user may do this. The attributes are built only when RBAC is asked. */
  authorize(user: UserInfo, attributes: Attributes | (() => Attributes)): void {
    if (user === ADMIN_USER) return;
    const resolved = typeof attributes === 'function' ? attributes() : attributes;
    const decision = this.decide(user, resolved);
    if (!decision.allowed) throw forbidden(user, resolved, decision.reason);
  }
}

/** kube-apiserver's forbiddenMessage inside apierrors.NewForbidden. */
export function forbidden(user: UserInfo, a: Attributes, reason: string): ApiError {
  const suffix = reason ? `: ${reason}` : '';
  if (a.kind === 'path') return new ApiError(403, 'Forbidden', `forbidden: User ${JSON.stringify(user.username)} cannot ${a.verb} path ${JSON.stringify(a.path)}${suffix}`, {});
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const why = `User ${JSON.stringify(user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}${suffix}`;
  const subject = qualifiedResource(a.group, a.resource) + (a.name ? ` ${JSON.stringify(a.name)}` : '');
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, { ...(a.name ? { name: a.name } : {}), ...(a.group ? { group: a.group } : {}), kind: a.resource });
}
