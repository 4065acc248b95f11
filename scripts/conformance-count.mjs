#!/usr/bin/env node
// Counts a conformance run from each binary's gtest console log and exit code (scripts/conformance.sh writes both,
// BINARY.log and BINARY.exit, 'EXIT-CODE SECONDS'):
//   conformance-count.mjs RESULTS_DIR BINARY... > counts.json
// run: tests started; passed/failed/skipped: tests that finished so; crashed: the test running when the binary died of
// a signal; hung: the test running when the 300 s cap (timeout, exit 124) stopped it.
import * as fs from 'node:fs';
import * as path from 'node:path';

const [dir, ...binaries] = process.argv.slice(2);
const rows = {};
for (const b of binaries) {
  const logFile = path.join(dir, `${b}.log`);
  const exitFile = path.join(dir, `${b}.exit`);
  if (!fs.existsSync(logFile) || !fs.existsSync(exitFile)) continue;
  const [rc, seconds] = fs.readFileSync(exitFile, 'utf8').trim().split(' ').map(Number);
  const lines = fs.readFileSync(logFile, 'latin1').split('\n');
  const count = (re) => lines.filter((l) => re.test(l)).length;
  const run = count(/^\[ RUN {6}\] /);
  const passed = count(/^\[ {7}OK \] .* \(\d+ ms\)$/);
  const failed = count(/^\[ {2}FAILED {2}\] .* \(\d+ ms\)$/);
  const skipped = count(/^\[ {2}SKIPPED \] .* \(\d+ ms\)$/);
  const unfinished = run - passed - failed - skipped;
  const hung = rc === 124 ? unfinished : 0;
  const crashed = rc !== 124 && rc > 128 ? unfinished : 0;
  const running = [...lines].reverse().find((l) => /^\[ RUN {6}\] /.test(l))?.slice(13);
  rows[b] = { run, passed, failed, skipped, crashed, hung, exit: rc, seconds, ...(unfinished ? { last: running } : {}) };
}
const total = { run: 0, passed: 0, failed: 0, skipped: 0, crashed: 0, hung: 0 };
for (const r of Object.values(rows)) for (const k of Object.keys(total)) total[k] += r[k];
process.stdout.write(JSON.stringify({ binaries: rows, total }, null, 2) + '\n');
