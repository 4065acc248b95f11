#!/usr/bin/env node
// The command: runs the bundled CLI, dist/xpu-setup.cjs (built by `npm run build`, which `prepare` and `npm test` run).
//
// It is compiled with V8's code cache, kept beside it, one file per command: a run finds the functions an earlier run
// of the same command compiled, and skips compiling them (on Node 20 about a fifth of `env`'s CPU time). The
// cache is named by the bundle's content hash (its first line), this Node's version and the command; V8 refuses one
// made by another V8 or with other flags. It is a speed-up only: a missing, refused or unwritable cache changes
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

let cached;
try {
  if (cacheFile) cached = fs.readFileSync(cacheFile);
} catch {
  // none yet
}
const script = new vm.Script(wrap(source), { filename: file, cachedData: cached });
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(file), mod, file, path.dirname(file));
const cli = mod.exports;

/** Keeps what this run compiled for the next run of the same command: written aside, then renamed into place. */
function saveCache() {
  if (!cacheFile || (cached && !script.cachedDataRejected)) return;
  if (!['setup', 'version', 'help'].includes(command) && !cli.isCommandName(command)) return;
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}

cli.exitQuietlyOnClosedPipe();
cli.main(args).then((code) => {
  process.exitCode = code;
  saveCache();
});
