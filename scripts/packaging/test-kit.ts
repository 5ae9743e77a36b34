/**
 * Installs a packed sandbox-conformance tarball into an empty folder, as a driver repository
 * would, without the network: the folder gets a package.json naming the tarball and a
 * package-lock.json holding exactly the packages the tarball needs, taken from this checkout's
 * lock (same versions, same integrity hashes), so `npm ci --offline` takes them from the npm cache
 * `npm ci` filled here. Without the lock, npm would need the registry's package documents, which
 * the cache of a lockfile install does not hold.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  optional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

interface Lock {
  name: string;
  version: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

/** Where Node would find `name` required from the package at `from` (a lock key): its own node_modules, then each one above. */
function locate(lock: Lock, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const key = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (!base) return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at < 0 ? '' : base.slice(0, at);
  }
}

/** The lock entries `roots` need, transitively (optional ones when the lock has them). */
export function closure(lock: Lock, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (from: string, name: string, optional: boolean) => {
    const key = locate(lock, from, name);
    if (!key) {
      if (optional) return;
      throw new Error(`package-lock.json has no ${name} (needed by ${from || 'the package'})`);
    }
    if (seen.has(key)) return;
    seen.add(key);
    const entry = lock.packages[key];
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(key, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(key, dep, true);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) visit(key, dep, !!entry.peerDependenciesMeta?.[dep]?.optional);
  };
  for (const root of roots) visit('', root, false);
  return [...seen].sort();
}

/** Writes package.json and package-lock.json for `tarball` into `dir`, then `npm ci --offline`; resolves to npm's output. */
export async function installOffline(options: { checkout: string; tarball: string; dir: string; timeoutMs: number }): Promise<string> {
  const lock = JSON.parse(readFileSync(join(options.checkout, 'package-lock.json'), 'utf8')) as Lock;
  const pkg = JSON.parse(readFileSync(join(options.checkout, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string>; peerDependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string> };
  const spec = `file:${options.tarball}`;
  const regular = new Set(closure(lock, Object.keys(pkg.dependencies)));
  const peers = new Set(closure(lock, Object.keys(pkg.peerDependencies)));
  const needed = [...new Set([...regular, ...peers])].sort();
  const packages: Record<string, LockEntry> = {
    '': { name: 'driver-repository', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      dependencies: pkg.dependencies,
      peerDependencies: pkg.peerDependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const key of needed) {
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[key];
    packages[key] = { ...entry, ...(peers.has(key) && !regular.has(key) && { peer: true }) };
  }
  writeFileSync(join(options.dir, 'package.json'), `${JSON.stringify({ name: 'driver-repository', private: true, dependencies: { [pkg.name]: spec } }, null, 2)}\n`);
  writeFileSync(join(options.dir, 'package-lock.json'), `${JSON.stringify({ name: 'driver-repository', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  const installed = await execa('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: options.dir, all: true, reject: false, timeout: options.timeoutMs });
  if (installed.exitCode !== 0) throw new Error(`npm ci --offline of ${options.tarball} failed (exit ${installed.exitCode}):\n${installed.all}`);
  return installed.all ?? '';
}
