#!/usr/bin/env node
// The command: runs the bundled CLI, dist/xpu-setup.cjs (built by `npm run build`, which `prepare` and `npm test` run).
//
// It is compiled with V8's code cache, kept beside it, one file per command: a run finds the functions an earlier run
// of the same command compiled, and skips compiling them (on Node 20 about a fifth of `env`'s CPU time). The
// cache is named by the bundle's content hash (its first line), this Node's version and the command; V8 refuses one
// made by another V8 or with other flags. The dependency files beside the bundle have a cache each, named by their
// own content hash. It is a speed-up only: a missing, refused or unwritable cache changes
// nothing else, and XPU_SETUP_CODE_CACHE=0 turns it off.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire, wrap } = require('node:module');

const file = path.join(__dirname, '..', 'dist', 'xpu-setup.cjs');
const source = fs.readFileSync(file, 'utf8');
const key = /^\/\/ xpu-setup bundle ([0-9a-f]{16})\n/.exec(source)?.[1];
const args = process.argv.slice(2);
const word = args[0] ?? '';
/** What this run does, as far as the cache goes: `--version`, `--help` and setup's flags each run other code. */
const command = args.some((a) => /^(-v|-V|--version)$/.test(a))
  ? 'version'
  : args.some((a) => /^(-h|--help)$/.test(a)) ? 'help' : /^[a-z][a-z-]{0,19}$/.test(word) ? word : 'setup';
const cacheFile = key && process.env.XPU_SETUP_CODE_CACHE !== '0'
  ? path.join(path.dirname(file), `.xpu-setup-${key}-${process.version}-${process.arch}-${command}.v8cache`)
  : undefined;

/** Compiles a CommonJS file through the code cache `cacheFile` (none: compiled as usual); remembered for saveCaches. */
const compiled = [];
function compile(filename, text, cacheFile) {
  let cached;
  try {
    if (cacheFile) cached = fs.readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new vm.Script(wrap(text), { filename, cachedData: cached });
  compiled.push({ script, cacheFile, cached });
  return script.runInThisContext();
}

// The dependencies beside the bundle go through the code cache as well, each named by its own content hash (its
// first line); everything else is required as usual.
const VENDOR = /^\.\/xpu-setup-vendor-[a-z0-9-]+\.cjs$/;
const vendorModules = new Map();
const requireFromBundle = createRequire(file);
bundleRequire.resolve = requireFromBundle.resolve;
function bundleRequire(id) {
  if (!VENDOR.test(id)) return requireFromBundle(id);
  let m = vendorModules.get(id);
  if (!m) {
    const f = path.join(path.dirname(file), id);
    const text = fs.readFileSync(f, 'utf8');
    const vkey = /^\/\/ xpu-setup vendor ([0-9a-f]{16})\n/.exec(text)?.[1];
    const vcache = vkey && cacheFile ? path.join(path.dirname(file), `.xpu-setup-vendor-${vkey}-${process.version}-${process.arch}.v8cache`) : undefined;
    m = { exports: {} };
    vendorModules.set(id, m);
    compile(f, text, vcache)(m.exports, createRequire(f), m, f, path.dirname(f));
  }
  return m.exports;
}

const mod = { exports: {} };
compile(file, source, cacheFile)(mod.exports, bundleRequire, mod, file, path.dirname(file));
const cli = mod.exports;

/** Keeps what this run compiled for the next run: each cache that was missing or refused, written aside, then renamed. */
function saveCaches() {
  if (!['setup', 'version', 'help'].includes(command) && !cli.isCommandName(command)) return;
  for (const { script, cacheFile: target, cached } of compiled) {
    if (!target || (cached && !script.cachedDataRejected)) continue;
    const tmp = `${target}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(tmp, script.createCachedData());
      fs.renameSync(tmp, target);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  }
}

cli.exitQuietlyOnClosedPipe();
cli.main(args).then((code) => {
  process.exitCode = code;
  saveCaches();
});
