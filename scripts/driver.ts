#!/usr/bin/env tsx
/**
 * `npm run driver -- serve --socket PATH …`: the Kubernetes compute driver as an external
 * driver on a Unix socket, in the foreground. `npm run driver -- --socket PATH <command> …`: a
 * small client for any driver on that socket. The command is driver/cli/.
 */
import '../driver/cli/main.ts';
