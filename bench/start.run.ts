// Benchmark: start-up (--version, --help, env), the no-op re-run (answered from its record, and by the CLI), probe and
// doctor, against `node -e 0` in the same rounds.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { BIN, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from '../test/support/index-server.js';
import { alternate, ratio, timeRun, writeResults, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 7);
let index: FixtureIndex;
let work: string;

beforeAll(async () => {
  index = await startFixtureIndex();
  work = await tempDir('bench-start');
});

afterAll(async () => {
  await index?.close();
  await fs.rm(work, { recursive: true, force: true });
});

it('start-up and no-op against node -e 0', async () => {
  // The fixture index holds Debian 12's L0 1.8.12, under the manifests' 1.9 floor: lowered as the e2e tests lower it.
  const env = scrubbedEnv(path.join(work, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
  const prefix = path.join(work, 'prefix');
  const setupArgs = [BIN, '--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--quiet'];
  // The install and its first verification (build, probe, smoke), which the no-op rounds then find recorded.
  await timeRun([process.execPath, ...setupArgs], { env });
  const node = (args: string[], okCodes?: number[]): Case['run'] => () => timeRun([process.execPath, ...args], { env, okCodes });
  // A command's first run on a machine: no V8 code cache beside the bundle yet (bin/xpu-setup.js), and no record of an
  // earlier no-op to answer from (cache/quick-answers.ts).
  const firstRun = (args: string[]): Case['run'] => () => timeRun([process.execPath, ...args], { env: { ...env, XPU_SETUP_CODE_CACHE: '0', XPU_SETUP_QUICK: '0' } });
  const noQuick = (args: string[]): Case['run'] => () => timeRun([process.execPath, ...args], { env: { ...env, XPU_SETUP_QUICK: '0' } });
  const cases: Case[] = [
    { name: 'node -e 0', run: node(['-e', '0']) },
    { name: 'xpu-setup --version', run: node([BIN, '--version']) },
    { name: 'xpu-setup --help', run: node([BIN, '--help']) },
    { name: 'xpu-setup env', run: node([BIN, 'env', '--prefix', prefix]) },
    { name: 'xpu-setup no-op (installed, receipt valid, nothing changed)', run: node(setupArgs) },
    { name: 'xpu-setup no-op answered by the CLI (XPU_SETUP_QUICK=0)', run: noQuick(setupArgs) },
    { name: 'xpu-setup --version, first run (no code cache)', run: firstRun([BIN, '--version']) },
    { name: 'xpu-setup env, first run (no code cache)', run: firstRun([BIN, 'env', '--prefix', prefix]) },
    { name: 'xpu-setup no-op, first run (no code cache)', run: firstRun(setupArgs) },
    // No GPU and no driver here: probe exits 1 after asking the loader, which is the work being timed.
    { name: 'xpu-setup probe', run: node([BIN, 'probe', '--prefix', prefix], [0, 1]) },
    { name: 'xpu-setup doctor (no --smoke)', run: node([BIN, 'doctor', '--prefix', prefix], [0, 1]) },
  ];
  const results = await alternate(cases, N);
  const base = results[0]!;
  const by = (name: string) => results.find((r) => r.name.startsWith(name))!;
  const ratios = {
    versionCpu: ratio(by('xpu-setup --version').medianCpuMs, base.medianCpuMs),
    helpCpu: ratio(by('xpu-setup --help').medianCpuMs, base.medianCpuMs),
    envCpu: ratio(by('xpu-setup env').medianCpuMs, base.medianCpuMs),
    noopWall: ratio(by('xpu-setup no-op').medianWallMs, base.medianWallMs),
    noopCpu: ratio(by('xpu-setup no-op').medianCpuMs, base.medianCpuMs),
    noopCliWall: ratio(by('xpu-setup no-op answered by the CLI').medianWallMs, base.medianWallMs),
    noopCliCpu: ratio(by('xpu-setup no-op answered by the CLI').medianCpuMs, base.medianCpuMs),
    versionCpuFirstRun: ratio(by('xpu-setup --version, first run').medianCpuMs, base.medianCpuMs),
    envCpuFirstRun: ratio(by('xpu-setup env, first run').medianCpuMs, base.medianCpuMs),
    noopCpuFirstRun: ratio(by('xpu-setup no-op, first run').medianCpuMs, base.medianCpuMs),
    probeWallBeyondNodeMs: by('xpu-setup probe').medianWallMs - base.medianWallMs,
    doctorWallMs: by('xpu-setup doctor').medianWallMs,
  };
  const file = await writeResults('start', { rounds: N, method: 'alternating rounds, medians; CPU = user+sys of the process tree (bash time)', results, ratios });
  console.log(results.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
});
