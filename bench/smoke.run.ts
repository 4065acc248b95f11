// Benchmark: the smoke test's time breakdown on the CPU reference driver (init, module build, first and steady launch).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { runCli, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from '../test/support/index-server.js';
import { median, writeResults } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
let index: FixtureIndex;
let work: string;

beforeAll(async () => {
  index = await startFixtureIndex();
  work = await tempDir('bench-smoke');
});

afterAll(async () => {
  await index?.close();
  await fs.rm(work, { recursive: true, force: true });
});

it('smoke on the CPU reference driver: time breakdown per profile', async () => {
  // The fixture channels serve Debian 12's Level Zero 1.8.12; the shipped floor is 1.9, so these runs lower it.
  const env = scrubbedEnv(path.join(work, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
  const prefix = path.join(work, 'prefix');
  const setup = await runCli(['--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--refdriver', '--no-smoke'], env);
  if (setup.exitCode !== 0) throw new Error(setup.stderr);
  const rows = [];
  for (const profile of ['default', 'pvc', 'bmg']) {
    const samples: { initMs: number; moduleBuildMs: number; firstLaunchMs: number; steadyMedianMs: number }[] = [];
    for (let i = 0; i < N; i++) {
      const r = await runCli(['smoke', '--prefix', prefix, '--json'], { ...env, XPU_SETUP_REFDRIVER_PROFILE: profile });
      if (r.exitCode !== 0) throw new Error(r.stderr);
      samples.push(JSON.parse(r.stdout).timings);
    }
    const m = (k: keyof (typeof samples)[number]) => +median(samples.map((s) => s[k])).toFixed(3);
    rows.push({ profile, runs: N, initMs: m('initMs'), moduleBuildMs: m('moduleBuildMs'), firstLaunchMs: m('firstLaunchMs'), steadyLaunchMs: m('steadyMedianMs') });
  }
  const file = await writeResults('smoke', { driver: 'xpu-setup CPU reference driver (PoCL)', elements: 1024, rows });
  console.log(rows.map((r) => `${r.profile.padEnd(8)} init ${r.initMs} ms  module build ${r.moduleBuildMs} ms  first launch ${r.firstLaunchMs} ms  steady ${r.steadyLaunchMs} ms`).join('\n'));
  console.log(`written to ${file}`);
});
