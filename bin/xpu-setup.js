#!/usr/bin/env node
import { exitQuietlyOnClosedPipe, main } from '../dist/cli/main.js';

exitQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
