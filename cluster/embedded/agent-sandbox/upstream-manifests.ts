/**
 * The real Agent Sandbox release manifests, for tests that compare the simulation with them.
 * They are not part of the project: AGENT_SANDBOX_MANIFESTS names a folder holding
 * <version>/manifest.yaml (the core asset is called sandbox.yaml from v0.5.2 on). Without it
 * such tests skip, saying so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../types.ts';
import { SANDBOX_CRD_NAME } from './names.ts';

export const MANIFESTS_ENV = 'AGENT_SANDBOX_MANIFESTS';
export const NO_MANIFESTS = `${MANIFESTS_ENV} is not set: it names the folder with the real release manifests (<version>/manifest.yaml or sandbox.yaml)`;

export function manifestsAvailable(): boolean {
  return !!process.env[MANIFESTS_ENV];
}

/** All documents of the release's core manifest; a clear error when the file is not there. */
export function upstreamManifest(version: string): KubeObject[] {
  const dir = process.env[MANIFESTS_ENV];
  if (!dir) throw new Error(NO_MANIFESTS);
  const file = ['sandbox.yaml', 'manifest.yaml'].map((name) => join(dir, version, name)).find((f) => existsSync(f));
  if (!file) throw new Error(`${MANIFESTS_ENV}=${dir} has no ${version}/sandbox.yaml or ${version}/manifest.yaml`);
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => !!d);
}

export function upstreamSandboxCrd(version: string): KubeObject {
  const crd = upstreamManifest(version).find((d) => d.kind === 'CustomResourceDefinition' && d.metadata.name === SANDBOX_CRD_NAME);
  if (!crd) throw new Error(`the ${version} manifest has no CustomResourceDefinition ${SANDBOX_CRD_NAME}`);
  return crd;
}
