/**
 * `npm run driver -- …`: the driver command, run as a process (scripts/driver.ts imports this
 * module; the external-driver launcher starts it by this module's path). `serve` runs the
 * Kubernetes driver behind its gRPC socket; every other command is a client.
 */
import { runClientCommand } from './client-commands.ts';
import { parseInvocation } from './options.ts';
import { serve } from './serve.ts';

const invocation = parseInvocation(process.argv.slice(2));
if (invocation.command === 'serve') await serve(invocation);
else await runClientCommand(invocation);
