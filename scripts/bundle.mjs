// Builds the CLI with esbuild into dist/xpu-setup.cjs, which bin/xpu-setup.js runs: one CommonJS file holding all of
// xpu-setup's own code (each module initialised on first use), plus one file per large dependency beside it, the quick
// answer's small file
// (undici, ora, tar, yauzl, fzstd, unbzip2-stream, @msgpack/msgpack, @renovatebot/pep440), required when first used, and the
// worker thread of a full repodata scan. Nothing is resolved in node_modules at run time except koffi, a native addon
// loaded when a probe needs it or libzstd decompresses a full repodata file.
//
// CommonJS, not ES modules: on Node 20 the ES module loader alone costs about 10 ms per run, and only a script can
// be compiled with V8's code cache (see bin/xpu-setup.js). The first line of the bundle and of each dependency file
// carries a hash of its content, which names its code cache.
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import * as fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const VENDOR = ['undici', 'ora', 'tar', 'yauzl', 'fzstd', 'unbzip2-stream', '@msgpack/msgpack', '@renovatebot/pep440'];
/** The file a dependency is bundled into: `@scope/name` -> `xpu-setup-vendor-scope-name.cjs`. */
const vendorFile = (p) => `xpu-setup-vendor-${p.replace(/^@/, '').replace(/\//g, '-')}`;
const KEY_PLACEHOLDER = '0'.repeat(16);

// Files of an earlier build (chunks, code caches) would otherwise pile up beside the new ones.
for (const f of await fs.readdir(dist).catch(() => [])) {
  if (/^\.?xpu-setup[.-]/.test(f)) await fs.rm(`${dist}/${f}`);
}

const common = {
  absWorkingDir: root,
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // import() of a module that is not bundled becomes require(): no ES module loader is started at run time.
  supported: { 'dynamic-import': false },
  legalComments: 'none',
  logLevel: 'warning',
};

/** A large dependency is required from its own file beside the bundle, when the code that uses it first runs. */
const vendorFiles = {
  name: 'vendor-files',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${VENDOR.join('|').replace(/[.]/g, '\\.').replace(/\//g, '\\/')})$`) }, (a) => ({ path: `./${vendorFile(a.path)}.cjs`, external: true }));
  },
};

await build({
  ...common,
  entryPoints: { 'xpu-setup': 'src/cli/main.ts' },
  external: ['koffi'],
  plugins: [vendorFiles],
  // The code finds the package root from its own location (src/package-dir.ts).
  define: { 'import.meta.url': '__xpuModuleUrl' },
  inject: ['scripts/module-url.js'],
  banner: { js: `// xpu-setup bundle ${KEY_PLACEHOLDER}` },
  sourcemap: 'linked',
});
// The worker thread of a full repodata scan (src/index/full-scan.ts), which starts it from this file beside the bundle.
await build({
  ...common,
  entryPoints: { 'xpu-setup-scan-worker': 'src/index/full-scan-worker.ts' },
  external: ['koffi'],
  define: { 'import.meta.url': '__xpuModuleUrl' },
  inject: ['scripts/module-url.js'],
});
// The quick answer of a setup run that changes nothing (src/cache/quick-answers.ts), which bin/xpu-setup.js asks before it
// loads the bundle: its own small file, so an answer costs no more than reading it.
await build({
  ...common,
  entryPoints: { 'xpu-setup-quick': 'src/cache/quick-answers.ts' },
  define: { 'import.meta.url': '__xpuModuleUrl' },
  inject: ['scripts/module-url.js'],
});
for (const p of VENDOR) {
  await build({
    ...common,
    entryPoints: { [vendorFile(p)]: p },
    banner: { js: `// xpu-setup vendor ${KEY_PLACEHOLDER}` },
    // The code takes ora's default export (an ES module's); required from CommonJS, the export is that function.
    ...(p === 'ora' ? { footer: { js: 'module.exports = module.exports.default;' } } : {}),
  });
}

/** Writes the file's content hash over the placeholder of the same length, so a source map's lines and columns still hold. */
async function stamp(file, kind) {
  const text = await fs.readFile(file, 'utf8');
  const key = createHash('sha256').update(text).digest('hex').slice(0, KEY_PLACEHOLDER.length);
  await fs.writeFile(file, text.replace(`// xpu-setup ${kind} ${KEY_PLACEHOLDER}`, `// xpu-setup ${kind} ${key}`));
}
await stamp(`${dist}/xpu-setup.cjs`, 'bundle');
for (const p of VENDOR) await stamp(`${dist}/${vendorFile(p)}.cjs`, 'vendor');

// The GitHub Action's bundle beside the CLI's (scripts/bundle-action.mjs).
await (await import('./bundle-action.mjs')).buildAction(dist);
