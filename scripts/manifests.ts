#!/usr/bin/env tsx
/**
 * `npm run manifests -- fetch [VERSION...]`: fills the per-user cache with the real Agent Sandbox
 * release manifests, each checked against its pinned sha256 (cluster/manifests/). The command is
 * cli/manifests-command.ts, which `sandbox-conformance manifests` runs too.
 */
import { manifestsCommand } from '../cli/manifests-command.ts';

process.exit(await manifestsCommand(process.argv.slice(2), 'npm run manifests --'));
