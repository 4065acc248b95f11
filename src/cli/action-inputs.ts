// The GitHub Action's inputs (the ones action.yml declares), checked, and what the action says in their terms.
import { createHash } from 'node:crypto';
import { XpuError } from '../base/errors.js';
import { osFamily } from '../platform/index.js';
import { VERSION } from '../base/version.js';
import { splitList, type Values } from './command.js';
import { kindOptions } from '../kinds/names.js';

/** The kinds' index options the action takes, each as an input of the option's name (KindOption.actionInput). */
const INDEX_INPUTS = kindOptions().filter(([, o]) => o.actionInput).map(([, o]) => o);

/** Every input action.yml declares, with its kind; a boolean is `true` or `false` (YAML 1.2's spellings), nothing else. */
export const ACTION_INPUTS: Record<string, 'list' | 'string' | 'boolean'> = {
  components: 'list',
  require: 'list',
  gpu: 'list',
  prefix: 'string',
  ...Object.fromEntries(INDEX_INPUTS.map((o) => [o.flag, o.repeats ? 'list' : 'string'])),
  source: 'list',
  'match-torch': 'string',
  'include-loader-dll': 'boolean',
  refdriver: 'boolean',
  lockfile: 'string',
  from: 'string',
  cache: 'boolean',
  'save-cache': 'boolean',
  'cache-suffix': 'string',
  'cache-prefix': 'boolean',
  'cache-dir': 'string',
  smoke: 'boolean',
  'require-device': 'boolean',
  verbose: 'boolean',
  'github-token': 'string',
};

export interface ActionInputs {
  values: Values;
  cache: boolean;
  /** `save-cache: false` (pull requests): restore the caches, never save them. */
  saveCache: boolean;
  /** Added to every cache key, to keep jobs with the same plan apart. */
  cacheSuffix?: string;
  /** Sent to the GitHub API alone (github.token by default): 1,000 requests an hour per repository instead of 60 per address. */
  githubToken?: string;
  cachePrefix: boolean;
  smoke: boolean;
  requireDevice: boolean;
  verbose: boolean;
  refdriver: boolean;
}

/** How the runner passes an input: `INPUT_` and its name in upper case, spaces as `_` (dashes stay). */
export const inputVar = (name: string) => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;

/** YAML's spellings of true and false that the runner passes on as they were written. */
const TRUE = /^(true|True|TRUE)$/;
const FALSE = /^(false|False|FALSE)$/;

/** Reads and checks the inputs from the runner's `INPUT_*` variables (multi-value inputs: commas or lines). */
export function actionInputs(env: Record<string, string | undefined>): ActionInputs {
  const raw = (name: string): string | undefined => {
    const v = env[inputVar(name)]?.trim();
    return v ? v : undefined;
  };
  const many = (name: string): string[] => splitList(raw(name) ?? '');
  const bool = (name: string, fallback: boolean): boolean => {
    const v = raw(name);
    if (v === undefined) return fallback;
    if (TRUE.test(v)) return true;
    if (FALSE.test(v)) return false;
    throw new XpuError('USAGE', `input \`${name}\` is "${v}": it takes true or false`, {
      details: { input: name, value: v },
      hints: [`with: ${name}: ${fallback ? 'false' : 'true'}  (the default is ${fallback})`],
    });
  };
  const refdriver = bool('refdriver', false);
  // Unset: as the prefix's recorded request says; `true` asks for ze_loader.dll, `false` drops one asked for before.
  const loaderDll = raw('include-loader-dll') === undefined ? undefined : bool('include-loader-dll', false);
  const values: Values = {
    component: many('components'),
    source: many('source'),
    require: many('require'),
    gpu: many('gpu'),
    refdriver,
  };
  for (const o of INDEX_INPUTS.filter((i) => i.repeats)) values[o.flag] = many(o.flag);
  for (const key of ['prefix', ...INDEX_INPUTS.filter((i) => !i.repeats).map((i) => i.flag), 'lockfile', 'cache-dir', 'from']) {
    const v = raw(key);
    if (v) values[key] = v;
  }
  if (loaderDll !== undefined) values[loaderDll ? 'include-loader-dll' : 'no-include-loader-dll'] = true;
  // `true`: the python the job's PATH (or active environment) has; a path: that interpreter; `false`: forget it.
  const match = raw('match-torch');
  if (match && !FALSE.test(match)) values['match-torch'] = TRUE.test(match) ? '' : match;
  else if (match) values['no-match-torch'] = true;
  return {
    values,
    refdriver,
    cache: bool('cache', true),
    saveCache: bool('save-cache', true),
    cacheSuffix: suffixOf(raw('cache-suffix')),
    githubToken: raw('github-token'),
    cachePrefix: bool('cache-prefix', false),
    smoke: bool('smoke', true),
    requireDevice: bool('require-device', false),
    verbose: bool('verbose', false),
  };
}

/** A cache key may not hold a comma and is at most 512 characters: the suffix is checked here, where its input is named. */
function suffixOf(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(v)) {
    throw new XpuError('USAGE', `input \`cache-suffix\` is "${v}": it takes up to 64 letters, digits, dots, dashes or underscores`, {
      details: { input: 'cache-suffix', value: v },
      hints: ['with: cache-suffix: ${{ github.job }}'],
    });
  }
  return v;
}

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The download cache's key: OS family, arch, a hash of the plan and the tool version: equal keys mean an equal cache. */
export function cacheKey(platform: string, arch: string, planKey: string, suffix?: string): string {
  return `${downloadsRestoreKey(platform, arch, suffix)}${short(planKey)}-${VERSION}`;
}

/** Any earlier download cache of this OS and arch: its archives are named by their hashes, so a stale one still helps. */
export function downloadsRestoreKey(platform: string, arch: string, suffix?: string): string {
  return `xpu-setup-${osFamily(platform)}-${arch}-${suffix ? `${suffix}-` : ''}`;
}

/**
 * The installed prefix's key: the plan, the prefix's path (its env files name it), whether the reference driver was
 * built, and the tool version. It has no restore-keys: a prefix for any other plan is never restored.
 */
export function prefixCacheKey(platform: string, arch: string, planKey: string, prefix: string, refdriver: boolean, suffix?: string): string {
  return `xpu-setup-prefix-${osFamily(platform)}-${arch}-${suffix ? `${suffix}-` : ''}${short(JSON.stringify([planKey, prefix, refdriver]))}-${VERSION}`;
}

/** The CLI flags the code's messages may name, and the input each one is in the action (a boolean flag: its setting). */
const FLAG_INPUT: Record<string, { input: string; set?: string }> = {
  component: { input: 'components' },
  require: { input: 'require' },
  gpu: { input: 'gpu' },
  prefix: { input: 'prefix' },
  ...Object.fromEntries(INDEX_INPUTS.map((o) => [o.flag, { input: o.flag }])),
  source: { input: 'source' },
  'match-torch': { input: 'match-torch' },
  'no-match-torch': { input: 'match-torch', set: 'false' },
  'include-loader-dll': { input: 'include-loader-dll', set: 'true' },
  'no-include-loader-dll': { input: 'include-loader-dll', set: 'false' },
  refdriver: { input: 'refdriver', set: 'true' },
  'no-refdriver': { input: 'refdriver', set: 'false' },
  lockfile: { input: 'lockfile' },
  locked: { input: 'lockfile', set: 'xpu-setup.lock.json' },
  from: { input: 'from' },
  'cache-dir': { input: 'cache-dir' },
  'no-smoke': { input: 'smoke', set: 'false' },
  'require-device': { input: 'require-device', set: 'true' },
  verbose: { input: 'verbose', set: 'true' },
};

/**
 * A message or hint in the action's terms: `--prefix DIR` becomes `prefix: DIR`, `--refdriver` becomes
 * `refdriver: true`; a flag the action has no input for is left as it is.
 */
export function inActionTerms(text: string): string {
  // The action's own step is no command a person runs: the CLI is, through npx.
  return text.replace(/(?:"?[^\s`'"(]*node(?:\.exe)?"? )?"?[^\s`'"(]*xpu-setup-action-(?:main|post)\.cjs"?/g, 'npx xpu-setup').replace(/--([a-z][a-z-]*)(?:([ =])('[^']*'|"[^"]*"|[^\s`'",;)]+))?/g, (all, flag: string, gap: string | undefined, value: string | undefined) => {
    const to = FLAG_INPUT[flag];
    if (!to) return all;
    if (to.set !== undefined) return `${to.input}: ${to.set}${gap && value ? `${gap}${value}` : ''}`;
    return value && !value.startsWith('-') ? `${to.input}: ${value}` : `input \`${to.input}\`${gap ?? ''}${value ?? ''}`;
  });
}
