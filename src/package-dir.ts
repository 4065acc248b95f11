// Where this package's own non-code files (manifests/, data/, native/, bin/) are on disk, from src/, dist/ and the bundle alike.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root. This file sits one level below it in every shape the code runs in: src/package-dir.ts under
 * vitest, dist/package-dir.js after tsc, and dist/xpu-setup.cjs when bundled; so every other module asks here
 * instead of resolving paths relative to its own location.
 */
export function packageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** A path inside the package, e.g. packagePath('manifests'). */
export function packagePath(...parts: string[]): string {
  return path.join(packageRoot(), ...parts);
}

/** native/ in the package. */
export function nativeDir(): string {
  return packagePath('native');
}

/**
 * The CLI's own entry point: what a child process of it (the doctor's probe, setup's proof) is started with. The GitHub
 * Action runs from its committed bundle, with no dist/xpu-setup.cjs for bin/ to run: its own CLI entry stands in.
 */
export function cliEntry(): string {
  return existsSync(packagePath('dist', 'xpu-setup.cjs')) ? packagePath('bin', 'xpu-setup.js') : packagePath('dist', 'xpu-setup-action-cli.cjs');
}
