// Benchmark: the search over components (src/versions/settle.ts) for a request over 1,000 candidate versions, where
// the newest half of the first component's versions need what no candidate has and the next component's newest need
// what the first one's survivors rule out, so the search turns away hundreds of candidates and goes back. No index is
// read: the provider is a table, so this is the search's own work.
import { it } from 'vitest';
import { loadPep440 } from '../src/versions/pep440.js';
import { settle } from '../src/versions/settle.js';
import { tableProvider, type Table } from '../test/support/settle-table.js';
import { median, writeResults } from './util.js';

const ROUNDS = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 7);

function table(): Table {
  const v = (i: number) => `${Math.floor(i / 10)}.${i % 10}`;
  const range = (n: number) => Array.from({ length: n }, (_, i) => n - 1 - i);
  return {
    // ur: 300 versions, the newest 100 need a level-zero that does not exist, the next 100 an igc below 5.
    ur: range(300).map((i) => ({ version: v(i), source: i % 2 ? 'pypi' : 'conda', needs: i >= 200 ? ['l0>=999'] : i >= 100 ? ['l0>=20', 'igc<5'] : [] })),
    // driver: 300 versions, each needs an igc of its own; the newest 100 need one at 5 or above.
    driver: range(300).map((i) => ({ version: v(i), source: 'apt', needs: [`igc>=${Math.floor(i / 20) / 2}`] })),
    l0: range(300).map((i) => ({ version: v(i), source: 'conda' })),
    igc: range(100).map((i) => ({ version: v(i), source: 'github' })),
  };
}

it('settles a request over 1,000 candidate versions', async () => {
  await loadPep440();
  const t = table();
  const count = Object.values(t).reduce((n, list) => n + list.length, 0);
  const wallMs: number[] = [];
  let asked = 0;
  let chosen: Record<string, string> = {};
  for (let r = 0; r < ROUNDS; r++) {
    const provider = tableProvider(t);
    const start = process.hrtime.bigint();
    const s = await settle(['ur', 'driver', 'l0', 'igc'], provider);
    wallMs.push(Number(process.hrtime.bigint() - start) / 1e6);
    asked = provider.asked;
    chosen = Object.fromEntries([...s.chosen].map(([k, c]) => [k, c.version]));
  }
  const file = await writeResults('settle', {
    rounds: ROUNDS,
    candidates: count,
    method: 'settle() over a table provider, in process; wall per round',
    results: [{ name: 'settle 4 components, 1,000 candidate versions', wallMs, medianMs: median(wallMs), providerAnswers: asked, chosen }],
  });
  console.log(`settle over ${count} candidates: median ${median(wallMs).toFixed(1)} ms (${asked} provider answers); chose ${JSON.stringify(chosen)}; ${file}`);
});
