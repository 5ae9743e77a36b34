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
import { projectDriverBundle } from '../driver/launch/driver-bundle.ts';
import { serveFromBundle } from '../driver/launch/bundled-driver.ts';

const args = process.argv.slice(2);
let bundled = false;
try {
  if (args[0] === 'serve') {
    projectDriverBundle(); // built here when the sources changed, so a failed build falls back to source
    bundled = true;
  }
} catch (error) {
  process.stderr.write(`note: serving from source, not from the driver's bundle (${(error as Error).message})\n`);
}
if (bundled) serveFromBundle(args);
else await import('../driver/cli/main.ts');
