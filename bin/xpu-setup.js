#!/usr/bin/env node
// The command: runs the bundled CLI, dist/xpu-setup.cjs (built by `npm run build`, which `prepare` and `npm test` run).
//
// It is compiled with V8's code cache, kept beside it, one file per command: a run finds the functions an earlier run
// of the same command compiled, and skips compiling them (on Node 20 about a fifth of `env`'s CPU time). The
// cache is named by the bundle's content hash (its first line), this Node's version and the command; V8 refuses one
// made by another V8 or with other flags. The dependency files beside the bundle have a cache each, named by their
// own content hash. A run that fails keeps what it compiled as a provisional cache only (`.partial.v8cache`): it
// stopped early and compiled less, so the next run that succeeds writes the cache proper. It is a speed-up only: a
// missing, refused or unwritable cache changes nothing else, and XPU_SETUP_CODE_CACHE=0 turns it off.
//
// Before any of that, a setup run may be answered from the record a run of the same command that changed nothing kept
// (src/cache/quick-answers.ts, in its own small file): without the bundle, when everything that run read still reads the same.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire, wrap } = require('node:module');

const file = path.join(__dirname, '..', 'dist', 'xpu-setup.cjs');
const dist = path.dirname(file);
const args = process.argv.slice(2);
const word = args[0] ?? '';
/** What this run does, as far as the cache goes: `--version`, `--help` and setup's flags each run other code. */
const command = args.some((a) => /^(-v|-V|--version)$/.test(a))
  ? 'version'
  : args.some((a) => /^(-h|--help)$/.test(a)) ? 'help' : /^[a-z][a-z-]{0,19}$/.test(word) ? word : 'setup';
const KEY = /^\/\/ xpu-setup bundle ([0-9a-f]{16})\n/;

/** The bundle's content key, from its first line alone. */
function bundleKey() {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(64);
    return KEY.exec(head.toString('latin1', 0, fs.readSync(fd, head, 0, head.length, 0)))?.[1];
  } finally {
    fs.closeSync(fd);
  }
}

// A setup run (`xpu-setup [setup] [options]`) that would change nothing may be answered from the record an earlier
// such run kept (src/cache/quick-answers.ts), before the bundle is read: the record says whether it still holds.
const quickKey = command === 'setup' ? bundleKey() : undefined;
let answered;
if (quickKey !== undefined) {
  try {
    answered = require(path.join(dist, 'xpu-setup-quick.cjs')).answerQuickly(args, quickKey);
  } catch {
    // No quick answer: the CLI answers.
  }
}
if (answered !== undefined) {
  process.exitCode = answered;
} else {
  runCli();
}

/** Loads the bundle (through the code cache) and runs the CLI. */
function runCli() {
  const source = fs.readFileSync(file, 'utf8');
  const key = KEY.exec(source)?.[1];
  const caching = key !== undefined && process.env.XPU_SETUP_CODE_CACHE !== '0';
  /** Where a cache is kept, without its ending: `.v8cache` (written by a run that succeeded) or `.partial.v8cache`. */
  const cacheBase = caching ? path.join(dist, `.xpu-setup-${key}-${process.version}-${process.arch}-${command}`) : undefined;

  /** The scripts compiled so far, each with the cache file V8 took for it (none: missing or refused), for saveCaches. */
  const compiled = [];

  /** Compiles a CommonJS file through the code cache kept at `base` (none: compiled as usual). */
  function compile(filename, text, base) {
    let cached;
    let from;
    for (const ending of base ? ['.v8cache', '.partial.v8cache'] : []) {
      try {
        cached = fs.readFileSync(base + ending);
        from = base + ending;
        break;
      } catch {
        // none of this kind
      }
    }
    const script = new vm.Script(wrap(text), { filename, cachedData: cached });
    compiled.push({ script, base, took: cached && !script.cachedDataRejected ? from : undefined });
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
      const f = path.join(dist, id);
      const text = fs.readFileSync(f, 'utf8');
      const vkey = /^\/\/ xpu-setup vendor ([0-9a-f]{16})\n/.exec(text)?.[1];
      const base = caching && vkey ? path.join(dist, `.xpu-setup-vendor-${vkey}-${process.version}-${process.arch}`) : undefined;
      m = { exports: {} };
      vendorModules.set(id, m);
      compile(f, text, base)(m.exports, createRequire(f), m, f, dist);
    }
    return m.exports;
  }

  const mod = { exports: {} };
  compile(file, source, cacheBase)(mod.exports, bundleRequire, mod, file, dist);
  const cli = mod.exports;

  /**
   * Keeps what this run compiled for the next run, written aside and then renamed: after a success, in place of a cache
   * that was missing, refused or provisional; after a failure, only where V8 took no cache (as a provisional one).
   */
  function saveCaches(succeeded) {
    if (!['setup', 'version', 'help'].includes(command) && !cli.isCommandName(command)) return;
    // `xpu-setup cache clean` empties the code cache too: writing one back as it exits would undo that.
    if (command === 'cache') return;
    for (const { script, base, took } of compiled) {
      if (!base || took === `${base}.v8cache` || (!succeeded && took)) continue;
      const target = succeeded ? `${base}.v8cache` : `${base}.partial.v8cache`;
      const tmp = `${target}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, target);
        if (succeeded) fs.rmSync(`${base}.partial.v8cache`, { force: true });
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    }
  }

  cli.exitQuietlyOnClosedPipe();
  cli.main(args, undefined, key ? { argv: args, bundleKey: key } : undefined).then((code) => {
    process.exitCode = code;
    saveCaches(code === 0);
    // Node 22 and 24 on Windows can abort as the process ends ("Assertion failed: !(handle->flags & UV_HANDLE_CLOSING)",
    // nodejs/node#56645) when work still settling on other threads posts to the event loop while it closes; with the
    // loop kept open a moment longer, that work lands first.
    if (process.platform === 'win32') setTimeout(() => {}, 100);
  });
}
