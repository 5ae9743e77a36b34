/** `npm run fault-proxy` (scripts/serve-fault-proxy.ts starts this from its bundle): faults/remote/serve-command.ts. */
import { faultProxyHelp, FaultProxyUsageError, serveFaultProxy } from '../faults/remote/serve-command.ts';

const PROGRAM = 'npm run fault-proxy --';
try {
  process.exit(await serveFaultProxy(process.argv.slice(2), PROGRAM));
} catch (error) {
  if (error instanceof FaultProxyUsageError) {
    process.stderr.write(`error: ${error.message}\n\n${faultProxyHelp(PROGRAM)}`);
    process.exit(2);
  }
  process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exit(1);
}
