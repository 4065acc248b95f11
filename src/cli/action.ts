// The GitHub Action's entry point: inputs from INPUT_* variables, setup, then GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.js';
import { EnvVars } from '../env-names.js';
import { XpuError } from '../errors.js';
import { runningPlatform } from '../host/index.js';
import { appendTo, githubEnv, githubLines } from '../install/ci-env.js';
import { envVars } from '../install/env.js';
import { loadLockSource } from '../plan/lockfile.js';
import { planSetup, runSetup } from '../pipeline.js';
import { VERSION } from '../version.js';
import { splitList, type Values } from './command.js';
import { Output } from './output.js';
import { parsePlanOptions } from './setup-options.js';

/** Inputs as action.yml passes them: one `INPUT_<NAME>` variable each (multi-value inputs: commas or lines). */
export function actionValues(env: Record<string, string | undefined>): Values {
  const input = (name: string): string | undefined => {
    const v = env[`INPUT_${name}`]?.trim();
    return v ? v : undefined;
  };
  const many = (name: string): string[] => splitList(input(name) ?? '');
  const yes = (name: string): boolean => /^(true|yes|1|on)$/i.test(input(name) ?? '');
  const values: Values = {
    component: many('COMPONENTS'),
    source: many('SOURCE'),
    'conda-channel': many('CONDA_CHANNEL'),
    require: many('REQUIRE'),
    refdriver: yes('REFDRIVER'),
  };
  for (const [key, name] of [['prefix', 'PREFIX'], ['index-url', 'INDEX_URL'], ['lockfile', 'LOCKFILE'], ['cache-dir', 'CACHE_DIR'], ['from', 'FROM']] as const) {
    const v = input(name);
    if (v) values[key] = v;
  }
  return values;
}

const OS_FAMILY: Record<string, string> = { linux: 'linux', win32: 'windows', darwin: 'macos' };

/** OS family, arch, the lock entry's (or plan's) hash and the tool version: equal keys mean an equal cache. */
export function cacheKey(platform: string, arch: string, planHash: string): string {
  return `xpu-setup-${OS_FAMILY[platform] ?? platform}-${arch}-${planHash.slice(0, 16)}-${VERSION}`;
}

async function output(deps: Deps, name: string, value: string): Promise<void> {
  const file = deps.env[EnvVars.GITHUB_OUTPUT];
  if (file) await appendTo(file, githubLines([{ name, value }]));
}

/**
 * `key`: prints and outputs the cache key (and the cache directory to save). `setup` (the default): installs, then
 * hands the environment to later steps and sets the outputs prefix, versions (JSON), device-arch.
 */
export async function runAction(mode: string, deps: Deps): Promise<number> {
  const out = new Output({ json: false, quiet: false, verbose: /^(true|1)$/i.test(deps.env.INPUT_VERBOSE ?? '') }, deps.env);
  try {
    const values = actionValues(deps.env);
    const opts = parsePlanOptions(values, deps);
    if (mode === 'key') {
      let hash: string;
      const platform = runningPlatform(deps);
      if (!platform) throw new XpuError('USAGE', `xpu-setup runs on Linux or Windows x64, not ${deps.platform} ${deps.arch}`);
      if (opts.locked || opts.from) {
        const src = await loadLockSource(opts.from ? { bundle: opts.from } : { file: opts.locked! }, deps.env);
        hash = src.entry(platform).planKey;
      } else {
        hash = (await planSetup({ ...opts, refdriver: !!values.refdriver }, deps, out)).planKey;
      }
      const key = cacheKey(deps.platform, deps.arch, createHash('sha256').update(hash).digest('hex'));
      await output(deps, 'cache-key', key);
      await output(deps, 'cache-dir', opts.plan.cacheDir);
      process.stdout.write(`${key}\n`);
      return 0;
    }
    if (mode !== 'setup') throw new XpuError('USAGE', `unknown action mode "${mode}"`, { hints: ['modes: key, setup'] });
    const setup = { ...opts, refdriver: !!values.refdriver, smoke: !/^(false|0|no)$/i.test(deps.env.INPUT_SMOKE ?? ''), requireDevice: /^(true|1)$/i.test(deps.env.INPUT_REQUIRE_DEVICE ?? '') };
    const plan = await planSetup(setup, deps, out);
    const r = await runSetup(plan, setup, deps, out);
    const receipt = r.install.receipt;
    const gh = githubEnv(envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {}), receipt.platform, deps.env);
    const envFile = deps.env[EnvVars.GITHUB_ENV];
    const pathFile = deps.env[EnvVars.GITHUB_PATH];
    if (envFile) await appendTo(envFile, gh.env);
    if (pathFile) await appendTo(pathFile, gh.path);
    await output(deps, 'prefix', receipt.prefix);
    await output(deps, 'versions', JSON.stringify(Object.fromEntries(receipt.components.map((c) => [c.name, c.version]))));
    await output(deps, 'device-arch', receipt.probe?.arch ?? '');
    await output(deps, 'changed', String(r.install.changed));
    out.line(`${r.install.changed ? 'installed' : 'up to date'}: ${receipt.components.map((c) => `${c.name} ${c.version}`).join(', ')} in ${receipt.prefix}`);
    return 0;
  } catch (e) {
    out.error(e);
    return e instanceof XpuError && e.code === 'USAGE' ? 2 : 1;
  }
}
