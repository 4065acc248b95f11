#!/usr/bin/env node
// The command: loads the bundled CLI (built by `npm run build`, which `prepare` and `npm test` run).
import { exitQuietlyOnClosedPipe, main } from '../dist/xpu-setup.mjs';

exitQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
