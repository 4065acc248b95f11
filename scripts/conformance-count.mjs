#!/usr/bin/env node
// Counts a conformance run from each binary's gtest console logs and exit codes (scripts/conformance.sh writes both:
// BINARY.N.log for its Nth run, and BINARY.exit, one 'EXIT-CODE SECONDS' line per run):
//   conformance-count.mjs RESULTS_DIR BINARY... > counts.json
// Each test counts once, with the first outcome any run gave it. run: tests started; passed/failed/skipped: tests that
// finished so; crashed: a test running when its binary died of a signal; hung: a test running when the 300 s cap
// (timeout, exit 124) stopped it. The next run of a binary that died leaves out the test it died in, so the tests after
// a crash are counted too.
import * as fs from 'node:fs';
import * as path from 'node:path';

const [dir, ...binaries] = process.argv.slice(2);
const FINISHED = [
  ['passed', /^\[ {7}OK \] (.+?)(?:, where .*)? \(\d+ ms\)$/],
  ['failed', /^\[ {2}FAILED {2}\] (.+?)(?:, where .*)? \(\d+ ms\)$/],
  ['skipped', /^\[ {2}SKIPPED \] (.+?)(?:, where .*)? \(\d+ ms\)$/],
];
const KEYS = ['run', 'passed', 'failed', 'skipped', 'crashed', 'hung'];

const rows = {};
for (const b of binaries) {
  const exitFile = path.join(dir, `${b}.exit`);
  if (!fs.existsSync(exitFile)) continue;
  const runs = fs.readFileSync(exitFile, 'utf8').trim().split('\n').map((l) => l.split(' ').map(Number));
  const outcome = new Map();
  const stopped = { crashed: [], hung: [] };
  runs.forEach(([rc], i) => {
    const lines = fs.readFileSync(path.join(dir, `${b}.${i + 1}.log`), 'latin1').split('\n');
    let running;
    for (const line of lines) {
      if (line.startsWith('[ RUN      ] ')) {
        running = line.slice(13);
        continue;
      }
      for (const [kind, re] of FINISHED) {
        const m = re.exec(line);
        if (!m) continue;
        if (!outcome.has(m[1])) outcome.set(m[1], kind);
        if (m[1] === running) running = undefined;
      }
    }
    const kind = rc === 124 ? 'hung' : rc > 128 ? 'crashed' : undefined;
    if (running !== undefined && kind && !outcome.has(running)) {
      outcome.set(running, kind);
      stopped[kind].push(running);
    }
  });
  const row = Object.fromEntries(KEYS.map((k) => [k, 0]));
  row.run = outcome.size;
  for (const kind of outcome.values()) row[kind]++;
  const [lastRc, seconds] = runs[runs.length - 1];
  rows[b] = { ...row, exit: lastRc, seconds, runs: runs.length, ...(stopped.crashed.length ? { crashedIn: stopped.crashed } : {}), ...(stopped.hung.length ? { hungIn: stopped.hung } : {}) };
}
const total = Object.fromEntries(KEYS.map((k) => [k, 0]));
for (const r of Object.values(rows)) for (const k of KEYS) total[k] += r[k];
process.stdout.write(JSON.stringify({ binaries: rows, total }, null, 2) + '\n');
