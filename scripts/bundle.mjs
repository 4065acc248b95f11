// Builds the CLI with esbuild into dist/xpu-setup.mjs, which bin/xpu-setup.js loads, plus chunks beside it that are
// loaded on demand (undici, ora, the archive readers): start-up compiles only the code every run needs, and
// nothing is resolved in node_modules at run time except koffi, a native addon loaded when a probe needs it.
import { build } from 'esbuild';
import * as fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Chunks of an earlier build would otherwise pile up beside the new ones.
for (const f of await fs.readdir(`${root}dist`).catch(() => [])) {
  if (/^xpu-setup[.-].*\.mjs(\.map)?$/.test(f)) await fs.rm(`${root}dist/${f}`);
}

await build({
  absWorkingDir: root,
  entryPoints: { 'xpu-setup': 'src/cli/main.ts' },
  outdir: 'dist',
  // Chunks sit beside the entry, so code that finds the package root from its own location works in any of them.
  chunkNames: 'xpu-setup-[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['koffi'],
  // Bundled CommonJS dependencies call require() for Node's own modules; an ES module has no require of its own.
  banner: { js: "import { createRequire as __xpuCreateRequire } from 'node:module'; const require = __xpuCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});
