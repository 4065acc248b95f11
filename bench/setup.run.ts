// Benchmark: a cold install (L0 conda packages + a ~32 MB intel-cmplr-lib-ur-shaped wheel) against the floor
// `curl | tee >(sha256sum) > f && unzip` of the same archives and against pip installing the same wheel; warm-cache
// installs; a 24 MB UR wheel with its two small dependencies (umf, tcmlib) against the same floor; and peak memory installing a 250 MB wheel. Alternating
// rounds, medians; ratios are within one run.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { it } from 'vitest';
import { BIN, scrubbedEnv } from '../test/e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from '../test/support/index-server.js';
import { fixturesWithBigWheel } from './cold-fixtures.js';
import { alternate, benchWorkDir, median, peakRssKiB, ratio, timeRun, writeResults, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 9);
const WHEEL_MIB = Number(process.env.XPU_SETUP_BENCH_WHEEL_MIB ?? 32);
const BIG_MIB = Number(process.env.XPU_SETUP_BENCH_BIG_MIB ?? 250);
const UR_MIB = Number(process.env.XPU_SETUP_BENCH_UR_MIB ?? 24);
const work = benchWorkDir('bench');

interface Archive {
  url: string;
  filename: string;
  size: number;
}

async function plannedArchives(env: Record<string, string>, args: string[]): Promise<Archive[]> {
  const planned = JSON.parse((await execa(process.execPath, [BIN, 'plan', ...args, '--json'], { env, extendEnv: false })).stdout);
  return planned.components.flatMap((c: { archives?: Archive[] }) => c.archives ?? []);
}

/** Writes an install comparison's results file and prints its rows and ratios. */
async function report(name: string, archives: Archive[], results: Awaited<ReturnType<typeof alternate>>, ratios: Record<string, number>): Promise<void> {
  const file = await writeResults(name, {
    rounds: N,
    method: 'alternating rounds, medians; wall and CPU (user+sys of the process tree) from bash time; one local index on 127.0.0.1 for every row',
    archives: archives.map((a) => ({ filename: a.filename, size: a.size })),
    results,
    ratios,
  });
  console.log(results.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
}

/** The floor: each archive fetched, hashed as it streams and unpacked, by the standard tools, one after another. */
function floorScript(archives: Archive[]): string {
  return archives
    .map((a, i) => {
      const f = `"$D/${a.filename}"`;
      const unpack = a.filename.endsWith('.conda')
        ? `unzip -p ${f} 'pkg-*.tar.zst' | zstd -dq | tar -x -C "$D/x${i}"`
        : `unzip -qo ${f} -d "$D/x${i}"`;
      return `mkdir -p "$D/x${i}" && curl -sf '${a.url}' | tee >(sha256sum >/dev/null) > ${f} && ${unpack}`;
    })
    .join(' && ');
}

it(`cold install of L0 (conda) + a ${WHEEL_MIB} MB UR wheel against curl|sha256sum|unzip and pip`, async () => {
  const fixtures = await fixturesWithBigWheel(path.join(work.path, 'fixtures'), WHEEL_MIB * 2 ** 20);
  const index: FixtureIndex = await startFixtureIndex({ fixtures });
  try {
    // The fixture channels serve Debian 12's Level Zero 1.8.12; the shipped floor is 1.9, so these runs lower it.
    const env = scrubbedEnv(path.join(work.path, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const common = ['--conda-channel', index.condaChannelUrl('bookworm'), '--quiet'];
    const archives = await plannedArchives(env, common.filter((a) => a !== '--quiet'));
    if (!archives.every((a) => a.url.startsWith(index.url))) throw new Error(`the plan left the local index: ${JSON.stringify(archives)}`);
    const script = floorScript(archives);
    const dir = (name: string, i: number) => path.join(work.path, `${name}${i}`);
    const clean = (...names: string[]) => async (i: number) => {
      for (const n of names) await fs.rm(dir(n, i), { recursive: true, force: true });
    };
    const setup = (name: string, extra: string[], cache: (i: number) => string): Case['run'] => (i) =>
      timeRun([process.execPath, BIN, '--prefix', dir(name, i), '--cache-dir', cache(i), ...common, ...extra], { env });
    // A warm cache is one that a cold run of the same round filled.
    const cases: Case[] = [
      { name: 'floor: curl | tee >(sha256sum) > f && unzip (same archives, one after another)', before: clean('floor'), run: (i) => fs.mkdir(dir('floor', i), { recursive: true }).then(() => timeRun(['bash', '-c', `D='${dir('floor', i)}'; set -o pipefail; ${script}`])) },
      { name: 'xpu-setup cold: plan, fetch, verify sha256, install (--no-probe)', before: clean('cold', 'coldc'), run: setup('cold', ['--no-probe'], (i) => dir('coldc', i)) },
      {
        name: 'xpu-setup cold, first run on this machine (no code cache either)',
        before: clean('first', 'firstc'),
        run: (i) => timeRun([process.execPath, BIN, '--prefix', dir('first', i), '--cache-dir', dir('firstc', i), ...common, '--no-probe'], { env: { ...env, XPU_SETUP_CODE_CACHE: '0' } }),
      },
      { name: 'xpu-setup warm cache, new prefix (--no-probe)', before: clean('warm'), run: setup('warm', ['--no-probe'], (i) => dir('coldc', i)) },
      { name: 'xpu-setup cold, then build, probe, smoke (the default)', before: clean('full', 'fullc'), run: setup('full', [], (i) => dir('fullc', i)) },
      {
        name: 'pip install --no-deps --target DIR intel-cmplr-lib-ur (the wheel alone)',
        before: clean('pip'),
        run: (i) => timeRun(['python3', '-m', 'pip', 'install', '-q', '--no-deps', '--no-cache-dir', '--disable-pip-version-check', '--target', dir('pip', i), '--index-url', index.simpleUrl, 'intel-cmplr-lib-ur']),
      },
      { name: 'xpu-setup --component unified-runtime --source pypi (the wheel alone, --no-probe)', before: clean('ur', 'urc'), run: setup('ur', ['--component', 'unified-runtime', '--source', 'pypi', '--no-probe'], (i) => dir('urc', i)) },
    ];
    const results = await alternate(cases, N);
    const by = (prefix: string) => results.find((r) => r.name.startsWith(prefix))!;
    const ratios = {
      coldVsFloorWall: ratio(by('xpu-setup cold:').medianWallMs, by('floor').medianWallMs),
      firstRunVsFloorWall: ratio(by('xpu-setup cold, first run').medianWallMs, by('floor').medianWallMs),
      urVsPipWall: ratio(by('xpu-setup --component').medianWallMs, by('pip').medianWallMs),
      warmVsColdWall: ratio(by('xpu-setup warm').medianWallMs, by('xpu-setup cold:').medianWallMs),
    };
    await report('setup', archives, results, ratios);
  } finally {
    await index.close();
  }
});

it(`cold install of a ${UR_MIB} MB UR wheel and its two dependencies against curl | tee >(sha256sum) > f && unzip of the same files`, async () => {
  const fixtures = await fixturesWithBigWheel(path.join(work.path, 'ur-fixtures'), UR_MIB * 2 ** 20);
  const index = await startFixtureIndex({ fixtures });
  try {
    const env = scrubbedEnv(path.join(work.path, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl });
    const args = ['--component', 'unified-runtime', '--source', 'pypi'];
    const archives = await plannedArchives(env, args);
    if (!archives.every((a) => a.url.startsWith(index.url))) throw new Error(`the plan left the local index: ${JSON.stringify(archives)}`);
    const script = floorScript(archives);
    const dir = (name: string, i: number) => path.join(work.path, `ur-${name}${i}`);
    const clean = (...names: string[]) => async (i: number) => {
      for (const n of names) await fs.rm(dir(n, i), { recursive: true, force: true });
    };
    // The run's own clock for its fetch-and-install stage (download, verify, unpack, check, swap into the prefix), from
    // `--verbose`: the part of a run the floor does, without Node's start and the plan.
    const stageMs: number[] = [];
    const cases: Case[] = [
      { name: 'floor: curl | tee >(sha256sum) > f && unzip (the UR wheel and its two small dependencies)', before: clean('floor'), run: (i) => fs.mkdir(dir('floor', i), { recursive: true }).then(() => timeRun(['bash', '-c', `D='${dir('floor', i)}'; set -o pipefail; ${script}`])) },
      {
        name: 'xpu-setup --component unified-runtime --source pypi, cold (--no-probe)',
        before: clean('cold', 'coldc'),
        run: async (i) => {
          const t = await timeRun([process.execPath, BIN, '--prefix', dir('cold', i), '--cache-dir', dir('coldc', i), ...args, '--no-probe', '--verbose'], { env });
          const stage = /fetch and install: (\d+) ms/.exec(t.stderr ?? '');
          if (!stage) throw new Error(`no fetch-and-install time in the run's output: ${(t.stderr ?? '').slice(-500)}`);
          stageMs.push(Number(stage[1]));
          return t;
        },
      },
    ];
    const results = await alternate(cases, N);
    results.push({ name: 'xpu-setup fetch-and-install stage of the same runs (its own clock)', wallMs: stageMs, cpuMs: [], medianWallMs: median(stageMs), medianCpuMs: 0 });
    const ratios = {
      coldVsFloorWall: ratio(results[1]!.medianWallMs, results[0]!.medianWallMs),
      coldVsFloorCpu: ratio(results[1]!.medianCpuMs, results[0]!.medianCpuMs),
      stageVsFloorWall: ratio(median(stageMs), results[0]!.medianWallMs),
    };
    await report('wheel', archives, results, ratios);
  } finally {
    await index.close();
  }
});

it(`peak memory installing a ${BIG_MIB} MB wheel (GNU time)`, async () => {
  if (!BIG_MIB) return;
  const fixtures = await fixturesWithBigWheel(path.join(work.path, 'big-fixtures'), BIG_MIB * 2 ** 20);
  const index = await startFixtureIndex({ fixtures });
  try {
    const env = scrubbedEnv(path.join(work.path, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl });
    const cmd = [process.execPath, BIN, '--prefix', path.join(work.path, 'big'), '--cache-dir', path.join(work.path, 'bigc'), '--component', 'unified-runtime', '--source', 'pypi', '--no-probe', '--quiet'];
    const r = await peakRssKiB(cmd, { env });
    const file = await writeResults('memory', { wheelMiB: BIG_MIB, peakRssMiB: Math.round(r.kib / 1024), wallMs: Math.round(r.wallMs), method: '/usr/bin/time -f %M (Debian package time), one run' });
    console.log(`peak RSS ${Math.round(r.kib / 1024)} MiB installing a ${BIG_MIB} MB wheel in ${Math.round(r.wallMs)} ms; written to ${file}`);
  } finally {
    await index.close();
  }
});
