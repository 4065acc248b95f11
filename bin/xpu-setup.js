#!/usr/bin/env node
// The command: loads the bundled CLI (built by `npm run build`, which `prepare` and `npm test` run).
import { main } from '../dist/xpu-setup.mjs';

process.exitCode = await main(process.argv.slice(2));
