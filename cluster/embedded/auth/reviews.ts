import { causes, errors, type StatusCause } from '../errors.ts';
import { isPlainObject, type KubeObject } from '../types.ts';
import type { AccessControl } from './access-control.ts';
import type { Attributes, PolicyRule } from './rbac/policy-rules.ts';
import { ADMIN_USER, SYSTEM_MASTERS, type UserInfo } from './user.ts';

const AUTHZ = 'authorization.k8s.io';
const AUTHN = 'authentication.k8s.io';

/** The create-only resources answered here rather than stored, by `<plural>.<group>`. */
export const REVIEW_RESOURCES = new Set([`selfsubjectaccessreviews.${AUTHZ}`, `selfsubjectrulesreviews.${AUTHZ}`, `subjectaccessreviews.${AUTHZ}`, `tokenreviews.${AUTHN}`, `selfsubjectreviews.${AUTHN}`]);

type Body = Record<string, unknown>;

function object(value: unknown): Body {
  return isPlainObject(value) ? value : {};
}

function reviewed(body: Body, status: Body): KubeObject {
  return { kind: body.kind as string, apiVersion: body.apiVersion as string, metadata: { ...object(body.metadata) }, spec: object(body.spec), status };
}

/**
 * The review APIs `kubectl auth can-i`, `kubectl auth whoami` and token-checking components call:
 * SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview, TokenReview,
 * SelfSubjectReview, and the TokenRequest subresource serviceaccounts/<name>/token.
 * `body` has passed the object checks (apiVersion and kind set).
 */
export class ReviewApi {
  constructor(private readonly access: AccessControl) {}

  create(plural: string, body: Body, user: UserInfo): KubeObject {
    const spec = object(body.spec);
    switch (plural) {
      case 'selfsubjectaccessreviews':
        return reviewed(body, this.accessStatus(user, attributesOf(body.kind as string, spec)));
      case 'subjectaccessreviews': {
        const subject: UserInfo = { username: String(spec.user ?? ''), uid: spec.uid as string | undefined, groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [] };
        if (!subject.username && subject.groups.length === 0) throw invalid(body.kind as string, [causes.required('spec.user')].map((c) => ({ ...c, message: 'Required value: at least one of user or group must be specified' })));
        return reviewed(body, this.accessStatus(subject, attributesOf(body.kind as string, spec)));
      }
      case 'selfsubjectrulesreviews':
        return reviewed(body, this.rulesStatus(user, typeof spec.namespace === 'string' && spec.namespace ? spec.namespace : undefined));
      case 'tokenreviews': {
        if (typeof spec.token !== 'string' || !spec.token) throw invalid(body.kind as string, [{ ...causes.required('spec.token'), message: 'Required value: token must not be empty' }]);
        const found = this.access.userForToken(spec.token);
        return reviewed(body, found ? { authenticated: true, user: userInfo(found), audiences: spec.audiences ?? [] } : { authenticated: false, error: 'invalid bearer token' });
      }
      case 'selfsubjectreviews':
        return { kind: body.kind as string, apiVersion: body.apiVersion as string, metadata: { ...object(body.metadata) }, status: { userInfo: userInfo(user) } };
      default:
        throw errors.noRoute();
    }
  }

  /** POST serviceaccounts/<name>/token (`kubectl create token NAME`). */
  createToken(namespace: string, name: string, body: Body): KubeObject {
    const spec = object(body.spec);
    const issued = this.access.tokens.issue(namespace, name, {
      audiences: Array.isArray(spec.audiences) ? (spec.audiences as string[]) : undefined,
      expirationSeconds: typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : undefined,
      boundObjectRef: isPlainObject(spec.boundObjectRef) ? (spec.boundObjectRef as never) : undefined,
    });
    return {
      kind: 'TokenRequest',
      apiVersion: `${AUTHN}/v1`,
      metadata: { name, namespace, creationTimestamp: null as never },
      spec: issued.spec,
      status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
    };
  }

  private accessStatus(user: UserInfo, attributes: Attributes): Body {
    const decision = this.access.decide(user, attributes);
    return { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
  }

  private rulesStatus(user: UserInfo, namespace: string | undefined): Body {
    if (user === ADMIN_USER || user.groups.includes(SYSTEM_MASTERS)) {
      // The privileged-group authorizer's own rules, ahead of whatever RBAC adds.
      return { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };
    }
    const { rules, errors: problems } = this.access.rbac.rulesFor(user, namespace);
    const resourceRules = rules.filter((r) => (r.resources ?? []).length).map(resourceRule);
    const nonResourceRules = rules.filter((r) => (r.nonResourceURLs ?? []).length).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs }));
    return { resourceRules, nonResourceRules, incomplete: problems.length > 0, ...(problems.length ? { evaluationError: problems.join(', ') } : {}) };
  }
}

function resourceRule(rule: PolicyRule): Body {
  return { verbs: rule.verbs ?? [], apiGroups: rule.apiGroups ?? [], resources: rule.resources ?? [], ...(rule.resourceNames?.length ? { resourceNames: rule.resourceNames } : {}) };
}

function userInfo(user: UserInfo): Body {
  return { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) };
}

function invalid(kind: string, list: StatusCause[]) {
  return errors.invalid(kind, kind === 'TokenReview' ? AUTHN : AUTHZ, '', list);
}

/** The spec's resourceAttributes or nonResourceAttributes: exactly one must be given. */
function attributesOf(kind: string, spec: Body): Attributes {
  const resource = isPlainObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const path = isPlainObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  if (resource && path) throw invalid(kind, [causes.invalid('spec.nonResourceAttributes', path, 'cannot be specified in combination with resourceAttributes')]);
  if (path) return { kind: 'path', verb: String(path.verb ?? ''), path: String(path.path ?? '') };
  if (!resource) throw invalid(kind, [{ ...causes.required('spec.resourceAttributes'), message: 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified' }]);
  const text = (key: string) => (typeof resource[key] === 'string' && resource[key] ? (resource[key] as string) : undefined);
  return {
    kind: 'resource',
    verb: text('verb') ?? '',
    group: text('group') ?? '',
    resource: text('resource') ?? '',
    subresource: text('subresource'),
    namespace: text('namespace'),
    name: text('name'),
  };
}
