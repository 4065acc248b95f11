// The tool's version, read once from package.json.
import { readFileSync } from 'node:fs';
import { packagePath } from '../package-dir.js';

export const VERSION: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
