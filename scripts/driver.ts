#!/usr/bin/env tsx
/**
 * `npm run driver -- serve --socket PATH …`: the Kubernetes compute driver as an external
 * driver on a Unix socket, in the foreground. `npm run driver -- --socket PATH <command> …`: a
 * small client for any driver on that socket. The command is driver/cli/.
 *
 * `serve` runs the driver from its bundle with the node flags the lanes' external driver has
 * (driver/launch/: ~85 MiB less than through tsx, and V8's --optimize-for-size), as a child this
 * process waits for; signals are passed on, and its exit is this command's. The client commands
 * are short-lived and run here.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { bundledDriverArgv } from '../driver/launch/external-driver-process.ts';

const args = process.argv.slice(2);
let bundled: string[] | undefined;
try {
  if (args[0] === 'serve') bundled = bundledDriverArgv(args);
} catch (error) {
  process.stderr.write(`note: serving from source, not from the driver's bundle (${(error as Error).message})\n`);
}
if (bundled) {
  const [node, ...rest] = bundled;
  const child = spawn(node, rest, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 1)));
} else {
  await import('../driver/cli/main.ts');
}
