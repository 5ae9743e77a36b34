/**
 * The role selectors lanes use unless `--roles FILE` says otherwise: OpenShell's own labels
 * (driver/kubernetes/names.ts), as OpenShell's Kubernetes driver puts them on a sandbox's objects.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { OPENSHELL_ROLES } from '../driver/kubernetes/names.ts';
import { checkRoleSelectors, type RoleSelectors } from '../driver/role-selectors.ts';
import type { Lane } from './lane-declaration.ts';

export { OPENSHELL_ROLES };

/** The lane's role selectors: its own, else OpenShell's. */
export function rolesOf(lane: Lane): RoleSelectors {
  return lane.roles ?? OPENSHELL_ROLES;
}

/**
 * A roles file (YAML): every role mapped to its selector, e.g.
 *   sandbox: example.com/sandbox={id}
 *   supervisorPod: example.com/sandbox={id},example.com/part=supervisor
 *   workloadPod: example.com/sandbox={id},example.com/part=workload
 *   generationSecrets: example.com/sandbox={id},example.com/kind=bootstrap
 */
export function readRolesFile(path: string): RoleSelectors {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--roles ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    throw new Error(`--roles ${path}: not YAML: ${(error as Error).message}`);
  }
  return checkRoleSelectors(value, `--roles ${path}`);
}
