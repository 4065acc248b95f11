#!/usr/bin/env node
// The GitHub Action's entry point (action.yml): `key` prints the cache key, `setup` (default) installs.
import { runAction } from '../dist/cli/action.js';
import { realDeps } from '../dist/real-deps.js';

process.exitCode = await runAction(process.argv[2] ?? 'setup', realDeps());
