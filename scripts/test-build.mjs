#!/usr/bin/env node
// What `npm test` builds and checks before the tests run, side by side: the compiled modules under dist/ (emitted
// without a type check: the check below covers src/ as well), the bundle (esbuild, from src/ directly), one type
// check of src/, test/ and bench/ (tsconfig.test.json), then the import graph. Stops with the output of the first
// step that failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs node with `args` in the repository; resolves with the exit code and everything it printed. */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    child.on('error', (e) => resolve({ code: 1, out: `${out}${e.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Runs the steps one after another; the first failure ends the lane. */
async function lane(steps) {
  for (const [name, args] of steps) {
    const r = await run(args);
    if (r.code !== 0) return { name, ...r };
  }
  return undefined;
}

const failed = (
  await Promise.all([
    lane([
      ['tsc -p tsconfig.json --noCheck (emit dist/)', [tsc, '-p', 'tsconfig.json', '--noCheck']],
      ['node scripts/bundle.mjs', ['scripts/bundle.mjs']],
    ]),
    lane([['tsc -p tsconfig.test.json (type check)', [tsc, '-p', 'tsconfig.test.json']]]),
  ])
).find(Boolean);
if (failed) {
  process.stderr.write(`${failed.out}\ntest build: ${failed.name} failed (exit ${failed.code})\n`);
  process.exit(1);
}
const graph = await run(['scripts/import-graph.mjs']);
process.stdout.write(graph.out);
if (graph.code !== 0) process.exit(graph.code);
