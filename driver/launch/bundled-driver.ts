/**
 * The driver run from its bundle (driver-bundle.ts) with the driver's node flags: how the harness
 * starts its external driver, how `npm run driver -- serve` (scripts/driver.ts) and the package's
 * `sandbox-conformance driver serve` serve, so all of them measure the same process. Through the
 * bundle a driver process is ready on ~0.55 CPU-s, through the compiled modules on ~1.05
 * (@kubernetes/client-node's ~830 of them), and `--driver exec=` starts one per test.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { projectDriverBundle } from './driver-bundle.ts';

/**
 * V8's `--optimize-for-size` ("favor memory size over execution speed"). Measured with
 * `npm run bench -- driver-scale`, both in one run, 3 rounds of 100 sandboxes at once: peak RSS
 * 132–138 MiB with it, 203–246 MiB without; each round's wall time the same (117/117/161 s vs
 * 122/116/164 s: the cluster sets it); the driver's CPU time 41% higher (109 s vs 77 s over the
 * rounds), which the lanes' few sandboxes at a time do not notice. `--max-semi-space-size=4`
 * instead made the peak worse (268 MiB).
 */
const DRIVER_NODE_FLAGS = ['--optimize-for-size'];

/** `node <flags> <bundle> …args`. */
export function bundledDriverArgv(args: string[]): string[] {
  return [process.execPath, ...DRIVER_NODE_FLAGS, projectDriverBundle().file, ...args];
}

/**
 * `serve` as a child of this process: 1. started from the bundle, its output this process's;
 * 2. SIGINT, SIGTERM and SIGHUP passed on to it; 3. this process exits as it exits (128 + the
 * signal's number when a signal ended it), so whoever started this one sees the driver's own end.
 */
export function serveFromBundle(args: string[]): void {
  // 1.
  const [node, ...rest] = bundledDriverArgv(args);
  const child = spawn(node, rest, { stdio: 'inherit' });
  // 2.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  // 3.
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 1)));
}
