// Benchmark: `npx xpu-setup --version` from a local npm registry, cold (empty npm cache) and warm (the copy npx keeps),
// against `npx` of a one-file package from the same registry in the same rounds: what npx costs any package.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { REPO, scrubbedEnv, tempDir } from '../test/e2e/cli.js';
import { freshNpmEnv, npmPack, startNpmRegistry, trivialPackage, type NpmRegistry } from '../test/support/npm-registry.js';
import { alternate, ratio, timeRun, writeResults, type Case } from './util.js';

const N = Number(process.env.XPU_SETUP_BENCH_RUNS ?? 5);
let work: string;
let registry: NpmRegistry;

beforeAll(async () => {
  work = await tempDir('bench-npx');
  const packs = path.join(work, 'packs');
  await fs.mkdir(packs);
  const dirs = [REPO, path.join(REPO, 'node_modules', 'koffi'), path.join(REPO, 'node_modules', `@koromix/koffi-${process.platform}-${process.arch}`), await trivialPackage(path.join(work, 'floor'))];
  const env = { npm_config_cache: path.join(work, 'pack-cache') };
  registry = await startNpmRegistry(await Promise.all(dirs.map((d) => npmPack(d, packs, env))));
});

afterAll(async () => {
  await registry?.close();
  await fs.rm(work, { recursive: true, force: true });
});

it('npx xpu-setup cold and warm against npx of a trivial package', async () => {
  const home = (name: string) => path.join(work, 'homes', name);
  const envOf = (name: string) => scrubbedEnv(home(name), freshNpmEnv(home(name), registry.url));
  const cwd = path.join(work, 'empty');
  await fs.mkdir(cwd);
  const npx = (name: string, pkg: string, args: string[]): Case['run'] => () => timeRun(['npx', '--registry', registry.url, pkg, ...args], { env: envOf(name), cwd });
  /** A HOME with an empty npm cache before every run. */
  const fresh = (name: string) => async () => {
    await fs.rm(home(name), { recursive: true, force: true });
    await fs.mkdir(home(name), { recursive: true });
  };
  await Promise.all(['floor-warm', 'xpu-warm'].map((n) => fresh(n)()));
  // The warm cases' first, cold run, untimed.
  await npx('floor-warm', 'npx-floor', [])(0);
  await npx('xpu-warm', 'xpu-setup', ['--version'])(0);
  const cases: Case[] = [
    { name: 'npx npx-floor, cold (empty npm cache)', before: fresh('floor-cold'), run: npx('floor-cold', 'npx-floor', []) },
    { name: 'npx xpu-setup --version, cold (empty npm cache)', before: fresh('xpu-cold'), run: npx('xpu-cold', 'xpu-setup', ['--version']) },
    { name: 'npx npx-floor, warm', run: npx('floor-warm', 'npx-floor', []) },
    { name: 'npx xpu-setup --version, warm', run: npx('xpu-warm', 'xpu-setup', ['--version']) },
  ];
  const results = await alternate(cases, N);
  const by = (name: string) => results.find((r) => r.name.startsWith(name))!;
  const ratios = {
    coldWall: ratio(by('npx xpu-setup --version, cold').medianWallMs, by('npx npx-floor, cold').medianWallMs),
    warmWall: ratio(by('npx xpu-setup --version, warm').medianWallMs, by('npx npx-floor, warm').medianWallMs),
    coldBeyondFloorMs: by('npx xpu-setup --version, cold').medianWallMs - by('npx npx-floor, cold').medianWallMs,
    warmBeyondFloorMs: by('npx xpu-setup --version, warm').medianWallMs - by('npx npx-floor, warm').medianWallMs,
  };
  const method = 'alternating rounds, medians; a local npm registry on 127.0.0.1 serving the packed project, koffi and a one-file package; cold = a fresh HOME and npm cache per run';
  const file = await writeResults('npx', { rounds: N, method, results, ratios });
  console.log(results.map((r) => `${String(r.medianWallMs).padStart(6)} ms wall ${String(r.medianCpuMs).padStart(6)} ms cpu  ${r.name}`).join('\n'));
  console.log(`ratios: ${JSON.stringify(ratios)}\nwritten to ${file}`);
});
