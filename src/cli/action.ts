// The GitHub Action (action.yml runs its bundle, dist/xpu-setup-action*.cjs): `main` plans, restores the caches, installs,
// exports the environment, writes outputs and a job summary; `post` saves the caches that were not restored whole.
import * as core from '@actions/core';
import * as cache from '@actions/cache';
import * as fs from 'node:fs/promises';
import { REFDRIVER_REQUIREMENTS } from '../build/refdriver.js';
import type { Deps } from '../base/deps.js';
import { isXpuError, newCauses, XpuError } from '../base/errors.js';
import { belowFloorSentence } from '../hints/index.js';
import type { InstallPlan } from '../records/plan.js';
import type { Receipt } from '../records/receipt.js';
import { osLayout, runningPlatform } from '../platform/index.js';
import { githubEnv } from '../shells/ci-env.js';
import { receiptEnvVars } from '../shells/env.js';
import { planSetup } from '../pipeline/plan.js';
import { openRunIndex } from '../pipeline/run-index.js';
import { runSetup, type SetupResult } from '../pipeline/setup.js';
import { actionInputs, cacheKey, downloadsRestoreKey, inActionTerms, prefixCacheKey, type ActionInputs } from './action-inputs.js';
import { Output } from './output.js';
import { renderPlan } from './render-plan.js';
import { parsePlanOptions, useGithubToken } from './setup-options.js';

/** What `main` hands `post` through the runner's state file. */
const STATE = {
  downloads: 'downloads-dir',
  downloadsKey: 'downloads-key',
  downloadsHit: 'downloads-hit',
  prefix: 'prefix-dir',
  prefixKey: 'prefix-key',
  prefixHit: 'prefix-hit',
  save: 'save-cache',
} as const;

/** An error as the job's annotation: the message, its causes, and the fixes in the action's own terms. */
function annotate(e: unknown): void {
  if (!isXpuError(e)) {
    core.setFailed(`internal error in xpu-setup: ${(e as Error)?.stack ?? String(e)}\nthis is a bug; please report it with this log (verbose: true shows more)`);
    return;
  }
  // A hint that says what was tried is a fact, not a fix: it keeps its own word.
  const hint = (h: string) => (h.startsWith('tried ') ? inActionTerms(h) : `fix: ${inActionTerms(h)}`);
  const lines = [inActionTerms(e.message), ...newCauses(e).map((c) => `caused by: ${c}`), ...e.hints.map(hint)];
  core.setFailed(lines.join('\n'));
}

/** Restores a cache, reporting a broken cache service as a warning (the run goes on without the cache). */
async function restore(paths: string[], key: string, restoreKeys: string[]): Promise<string | undefined> {
  try {
    return await cache.restoreCache(paths, key, restoreKeys);
  } catch (e) {
    core.warning(`cache not restored (${key}): ${(e as Error).message}`);
    return undefined;
  }
}

/**
 * `refdriver: true` needs the driver build's Debian/Ubuntu packages: installed with apt as root or through
 * passwordless sudo, else an error naming the one line to run in an earlier step.
 */
export async function installRefdriverPackages(deps: Deps, root = process.getuid?.() === 0): Promise<void> {
  if (!osLayout(deps.platform)?.refDriver) return;
  const missing: string[] = [];
  for (const r of REFDRIVER_REQUIREMENTS) if (!(await r.present(deps))) missing.push(r.debian);
  if (!missing.length) return;
  const line = `sudo apt-get install -y ${missing.join(' ')}`;
  const sudo = root ? [] : ['sudo', '-n'];
  if (!root && (await deps.exec('sudo', ['-n', 'true'])).exitCode !== 0) {
    throw new XpuError('USAGE', `refdriver: true needs ${missing.join(', ')}, and this runner has neither root nor passwordless sudo to install them`, {
      hints: [`add a step before this one: run: ${line}`, 'or set refdriver: false'],
    });
  }
  const apt = async (args: string[]) => {
    const [file, ...rest] = [...sudo, 'apt-get', ...args];
    const r = await deps.exec(file!, rest, { env: { ...deps.env, DEBIAN_FRONTEND: 'noninteractive' }, timeoutMs: 600_000 });
    if (r.exitCode !== 0) {
      throw new XpuError('USAGE', `\`${[file, ...rest].join(' ')}\` failed (exit ${r.exitCode})${r.failedToStart ? `: ${r.failedToStart}` : ''}`, {
        details: { stderr: r.stderr.slice(-2000) },
        hints: [`run it in a step before this one: ${line}`, 'or set refdriver: false'],
      });
    }
  };
  await core.group(`Installing the reference driver's packages: ${missing.join(' ')}`, async () => {
    await apt(['update', '-q']);
    await apt(['install', '-y', '-q', '--no-install-recommends', ...missing]);
  });
}

/** A requested component as the summary and the `versions` output show it: installed, or skipped and why. */
export interface ComponentState {
  state: 'installed' | 'skipped';
  version: string | null;
  source?: string;
  why?: string;
}

/** Why a component the plan could not give is missing: each source tried and what it answered. */
function skippedWhy(c: InstallPlan['components'][number]): string {
  const tried = c.attempts.filter((a) => a.outcome !== 'chosen').map((a) => a.reason);
  const reached = c.attempts.some((a) => a.outcome !== 'unreachable');
  return `${reached ? 'no source has a version that fits' : 'no source reached'}${tried.length ? `: ${tried.join('; ')}` : ''}`;
}

/** Every component the plan was asked for (and any other the prefix holds), by name. */
export function componentStates(plan: InstallPlan, receipt: Receipt): Record<string, ComponentState> {
  const installed = new Map(receipt.components.map((c) => [c.name, c]));
  const out: Record<string, ComponentState> = {};
  for (const c of plan.components) {
    const r = installed.get(c.name);
    out[c.name] = r ? { state: 'installed', version: r.version, source: r.source } : { state: 'skipped', version: null, why: skippedWhy(c) };
  }
  for (const r of receipt.components) out[r.name] ??= { state: 'installed', version: r.version, source: r.source };
  return out;
}

function summary(r: SetupResult, states: Record<string, ComponentState>, inputs: ActionInputs, caches: { downloads?: string; prefix?: string; key: string }): Promise<unknown> {
  const receipt = r.install.receipt;
  const s = core.summary.addHeading('xpu-setup', 3);
  s.addTable([
    [{ data: 'component', header: true }, { data: 'version', header: true }, { data: 'state', header: true }, { data: 'from', header: true }],
    ...Object.entries(states).map(([name, c]) => [name, c.version ?? '—', c.state === 'installed' ? 'installed' : `skipped: ${c.why ?? ''}`, c.source ?? '—']),
  ]);
  const probe = r.verify?.probe;
  const smoke = r.verify?.smoke;
  const step = (st: typeof probe | typeof smoke, ok: string) =>
    !st ? (r.verifySkipped ? `skipped: ${r.verifySkipped}` : 'not run') : st.ok ? ok : st.skipped ? `skipped: ${st.skipped}` : `failed: ${st.error?.message ?? 'unknown'}`;
  // The devices the probe itself reported, as the CLI prints them: a device with no known architecture (the CPU
  // reference driver's) is still a device.
  const devices = probe?.ok ? probe.value.devices : [];
  const found = devices.length ? devices.map((d) => `device ${d.name}; architecture ${d.arch.name}`).join(', ') : 'no device';
  // No loader on the runner at all (no Intel GPU driver): nothing could be probed, and the ways on are the answer.
  const noLoader = probe && !probe.ok && (probe.error?.details as { noLoader?: boolean } | undefined)?.noLoader;
  const probeLine = noLoader
    ? `probe: nothing could be probed: ${probe.error!.message} (install the Intel GPU driver on the runner, or set include-loader-dll: true to probe against the package's own ze_loader.dll)`
    : `probe: ${step(probe, found)}`;
  s.addList([
    `prefix: <code>${receipt.prefix}</code> (${r.install.changed ? 'installed' : 'up to date'})`,
    probeLine,
    `smoke test: ${inputs.smoke ? step(smoke, 'passed') : 'off (smoke: false)'}`,
    `download cache: ${!inputs.cache ? 'off (cache: false)' : caches.downloads === caches.key ? `restored (${caches.key})` : caches.downloads ? `restored an older one (${caches.downloads})` : `none yet (${caches.key})`}${inputs.cache && !inputs.saveCache ? '; not saved (save-cache: false)' : ''}`,
    ...(inputs.cachePrefix ? [`prefix cache: ${caches.prefix ? `restored (${caches.prefix})` : 'none yet'}`] : []),
    ...receipt.components.filter((c) => c.belowFloor).map((c) => `warning: ${inActionTerms(belowFloorSentence(c))}`),
  ]);
  return s.write();
}

/** What the job is warned of once the install is done: each component skipped, each one below its recommended floor. */
function warnOfComponents(out: Output, states: Record<string, ComponentState>, receipt: Receipt): void {
  for (const [name, c] of Object.entries(states)) if (c.state === 'skipped') out.warn(`${name} skipped: ${c.why ?? ''}`);
  for (const c of receipt.components.filter((x) => x.belowFloor)) out.warn(belowFloorSentence(c));
}

/** The action's main step; returns the exit code. */
export async function actionMain(deps: Deps): Promise<number> {
  try {
    const inputs = actionInputs(deps.env);
    const out = new Output({ json: false, quiet: false, verbose: inputs.verbose, annotate: (m) => core.warning(inActionTerms(m)) }, deps.env);
    if (!runningPlatform(deps)) throw new XpuError('USAGE', `xpu-setup runs on Linux or Windows x64, not ${deps.platform} ${deps.arch}`, { hints: ['runs-on: ubuntu-24.04 or windows-latest'] });
    const opts = parsePlanOptions(inputs.values, deps);
    if (inputs.githubToken) {
      core.setSecret(inputs.githubToken);
      useGithubToken(deps.env, inputs.githubToken);
    }
    const setup = { ...opts, refdriver: inputs.refdriver, smoke: inputs.smoke, requireDevice: inputs.requireDevice };
    // The Plan group holds the plan itself, as the CLI prints it, after the notes planning gave.
    const index = openRunIndex(setup, deps, out);
    const plan = await core.group('Plan', async () => {
      const p = await planSetup(setup, deps, out, { index });
      core.info(renderPlan(p, { full: inputs.verbose }));
      return p;
    });
    const key = cacheKey(deps.platform, deps.arch, plan.planKey, inputs.cacheSuffix);
    core.setOutput('cache-key', key);
    let downloads: string | undefined;
    let prefixHit: string | undefined;
    const pKey = prefixCacheKey(deps.platform, deps.arch, plan.planKey, plan.prefix, inputs.refdriver, inputs.cacheSuffix);
    if (inputs.cache || inputs.cachePrefix) {
      await core.group('Restore the caches', async () => {
        if (inputs.cache) downloads = await restore([opts.plan.cacheDir], key, [downloadsRestoreKey(deps.platform, deps.arch, inputs.cacheSuffix)]);
        if (inputs.cachePrefix) prefixHit = await restore([plan.prefix], pKey, []);
      });
    }
    core.setOutput('cache-hit', String(downloads === key));
    core.setOutput('prefix-cache-hit', String(prefixHit === pKey));
    core.saveState(STATE.save, String(inputs.saveCache));
    if (inputs.cache) {
      core.saveState(STATE.downloads, opts.plan.cacheDir);
      core.saveState(STATE.downloadsKey, key);
      core.saveState(STATE.downloadsHit, String(downloads === key));
    }
    if (inputs.refdriver) await installRefdriverPackages(deps);
    const r = await core.group('Install', () => runSetup(plan, setup, deps, out, index));
    const receipt = r.install.receipt;
    if (inputs.cachePrefix) {
      core.saveState(STATE.prefix, receipt.prefix);
      core.saveState(STATE.prefixKey, pKey);
      core.saveState(STATE.prefixHit, String(prefixHit === pKey));
    }
    const gh = githubEnv(receiptEnvVars(receipt), receipt.platform, deps.env);
    for (const line of gh.env.split('\n').filter(Boolean)) {
      const eq = line.indexOf('=');
      core.exportVariable(line.slice(0, eq), line.slice(eq + 1));
    }
    for (const dir of gh.path.split('\n').filter(Boolean)) core.addPath(dir);
    core.setOutput('prefix', receipt.prefix);
    const states = componentStates(r.plan, receipt);
    core.setOutput('versions', JSON.stringify(states));
    core.setOutput('device-arch', receipt.probe?.arch ?? '');
    core.setOutput('changed', String(r.install.changed));
    core.info(`${r.install.changed ? 'installed' : 'up to date'}: ${receipt.components.map((c) => `${c.name} ${c.version}`).join(', ')} in ${receipt.prefix}`);
    warnOfComponents(out, states, receipt);
    await summary(r, states, inputs, { downloads, prefix: prefixHit, key }).catch((e: Error) => core.warning(`no job summary: ${e.message}`));
    return 0;
  } catch (e) {
    annotate(e);
    return 1;
  }
}

/** Saves a cache, where a lost race with another job or a full cache is a warning: the job itself succeeded. */
async function save(dir: string, key: string): Promise<void> {
  try {
    await fs.access(dir);
  } catch {
    core.info(`nothing to save for ${key}: ${dir} does not exist`);
    return;
  }
  try {
    const id = await cache.saveCache([dir], key);
    if (id !== -1) core.info(`saved ${dir} as ${key}`);
  } catch (e) {
    core.warning(`cache not saved (${key}): ${(e as Error).message}`);
  }
}

/** The action's post step: saves the download cache (and the prefix) when main did not restore that very key. */
export async function actionPost(): Promise<number> {
  if (core.getState(STATE.save) === 'false') {
    core.info('save-cache: false: the caches were restored, and are not saved');
    return 0;
  }
  const downloadsKey = core.getState(STATE.downloadsKey);
  if (downloadsKey && core.getState(STATE.downloadsHit) !== 'true') await save(core.getState(STATE.downloads), downloadsKey);
  else if (downloadsKey) core.info(`download cache ${downloadsKey} was restored whole: nothing new to save`);
  const prefixKey = core.getState(STATE.prefixKey);
  if (prefixKey && core.getState(STATE.prefixHit) !== 'true') await save(core.getState(STATE.prefix), prefixKey);
  return 0;
}
