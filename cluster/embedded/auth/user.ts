/** Who a request comes from, as kube-apiserver's authenticators describe a user. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/**
 * The cluster's own bearer token: a member of system:masters, which kube-apiserver authorizes
 * before RBAC is asked (so the admin never pays for an RBAC evaluation).
 */
export const ADMIN_USER: UserInfo = Object.freeze({ username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] }) as UserInfo;

export const SYSTEM_MASTERS = 'system:masters';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The user a ServiceAccount token authenticates as: its name, uid and the service-account groups. */
export function serviceAccountUser(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
  return {
    username: serviceAccountUsername(namespace, name),
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    ...(extra ? { extra } : {}),
  };
}
