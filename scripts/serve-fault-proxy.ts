#!/usr/bin/env tsx
/**
 * `npm run fault-proxy -- --control SOCKET --write-kubeconfig FILE` (scripts/fault-proxy-main.ts),
 * run from its bundle (lanes/run/command-bundle.ts: ~2.5 CPU-s to start through tsx), built and
 * cached on first use.
 */
import { fileURLToPath } from 'node:url';
import { importCommand } from '../lanes/run/command-bundle.ts';

await importCommand(fileURLToPath(new URL('./fault-proxy-main.ts', import.meta.url)));
