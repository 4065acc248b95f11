// Runs Stryker over each module group (all, or those named on the command line) and prints each group's score.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { GROUPS, resolveGroup } from '../stryker/groups.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((g) => !(g in GROUPS));
if (unknown.length) {
  console.error(`unknown group(s): ${unknown.join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}`);
  process.exit(2);
}
const names = asked.length ? asked : Object.keys(GROUPS);
// A group naming code that has moved fails here, with what to change, before any Stryker run starts.
for (const name of names) {
  try {
    resolveGroup(name);
  } catch (e) {
    console.error(e.message);
    process.exit(2);
  }
}
const scores = [];
let failed = false;
for (const name of names) {
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], { stdio: 'inherit', env: { ...process.env, XPU_MUTATION_GROUP: name } });
  if (r.status !== 0) { failed = true; scores.push(`${name}: stryker exited ${r.status}`); continue; }
  const report = JSON.parse(fs.readFileSync(`reports/mutation/${name}/mutation.json`, 'utf8'));
  const counts = {};
  const alive = [];
  for (const [fileName, file] of Object.entries(report.files)) {
    for (const m of file.mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      if (m.status === 'Survived' || m.status === 'NoCoverage') {
        alive.push(`${fileName}:${m.location.start.line}:${m.location.start.column} ${m.status} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '')}`);
      }
    }
  }
  // Every survivor needs a test that kills it or a reason it cannot be killed: list them where the score is.
  if (alive.length) console.log(`\n${name}: surviving mutants\n${alive.map((a) => `  ${a}`).join('\n')}`);
  const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const valid = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  scores.push(`${name}: ${valid ? ((100 * killed) / valid).toFixed(1) : 'n/a'}% (${killed} killed of ${valid}; survived ${counts.Survived ?? 0}, no coverage ${counts.NoCoverage ?? 0})`);
}
console.log(`\nmutation score per group:\n${scores.map((s) => `  ${s}`).join('\n')}`);
process.exit(failed ? 1 : 0);
