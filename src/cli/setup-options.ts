// Options shared by `setup` and `plan`: where the plan goes and what this command line (or XPU_SETUP_* env) asks.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { nearest } from '../base/spelling.js';
import { defaultCacheDir, defaultPrefix, expandHome, parseTargetPlatform, isNative } from '../platform/index.js';
import type { TargetPlatform } from '../platform/types.js';
import { SOURCE_KINDS, type SourceKind } from '../manifest/schema.js';
import type { PlanPlace, SetupOptions } from '../pipeline/options.js';
import { LOCKFILE_NAME } from '../plan/lockfile.js';
import type { RequestFlags } from '../plan/request.js';
import type { MatchTorchRequest } from '../records/plan.js';
import { kindOptions, type KindOption } from '../kinds/names.js';
import { parseConstraint } from '../versions/order.js';
import { parseGpuName, THIS_MACHINE } from '../machine/gpu-names.js';
import { list, splitList, str, type Values } from './command.js';
import { EnvVars } from '../base/env-names.js';
import { redactText, rememberCredentials, rememberToken } from '../net/credentials.js';
import { DEFAULT_LIMITS, type UnpackLimits } from '../records/limits.js';
import type { CachePolicy } from '../index/http-cache.js';

/** Where a value came from, named as the user wrote it, so an error points at what to change. */
interface Given {
  value: string;
  from: string;
}

/** "2GiB", "500M", "1048576", "0" (no limit) -> bytes. */
export function parseSize(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$/i.exec(text);
  if (!m) throw new XpuError('USAGE', `${flag} "${text}" is not a size`, { hints: [`examples: ${flag} 8GiB, ${flag} 500MiB, ${flag} 0 (no limit)`] });
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Math.round(Number(m[1]) * unit);
}

export function parseLimits(values: Values, deps: Deps): UnpackLimits {
  const size = str(values, 'max-unpacked') ?? (deps.env[EnvVars.XPU_SETUP_MAX_UNPACKED] || undefined);
  const ratio = str(values, 'max-ratio') ?? (deps.env[EnvVars.XPU_SETUP_MAX_RATIO] || undefined);
  const maxRatio = ratio === undefined ? DEFAULT_LIMITS.maxRatio : Number(ratio);
  if (!Number.isFinite(maxRatio) || maxRatio < 0) throw new XpuError('USAGE', `--max-ratio "${ratio}" is not a number`, { hints: ['example: --max-ratio 500 (0 = no limit)'] });
  return { maxBytes: size === undefined ? DEFAULT_LIMITS.maxBytes : parseSize(size, '--max-unpacked'), maxRatio };
}

function checkUrl(g: Given, example: string): string {
  try {
    const u = new URL(g.value);
    // Credentials in it stay in this process: what is passed on (and written anywhere) shows `***` for them.
    if (u.protocol === 'http:' || u.protocol === 'https:') return rememberCredentials(g.value);
  } catch {
    // reported below
  }
  const spaced = /\s/.test(g.value.trim()) ? [`${g.from} takes several values separated by commas (or newlines), not spaces`] : [];
  throw new XpuError('USAGE', `${g.from} "${redactText(g.value)}" is not an http(s) URL`, {
    hints: [...spaced, `example: ${g.from.startsWith('-') ? `${g.from} ${example}` : `${g.from}=${example}`}`],
  });
}

/** The values of a repeatable option, else of its list variable (split by the same rule), each with where it came from. */
function givenList(values: Values, key: string, env: Record<string, string | undefined>, variable: string): Given[] {
  const flagged = list(values, key);
  if (flagged.length) return flagged.map((value) => ({ value, from: `--${key}` }));
  return splitList(env[variable] ?? '').map((value) => ({ value, from: variable }));
}

/** `--gpu` values as the request records them (empty: `--gpu host`), or an error that names where one came from. */
function gpusOf(given: Given[]): string[] | undefined {
  if (!given.length) return undefined;
  const host = given.filter((g) => g.value.trim().toLowerCase() === THIS_MACHINE);
  if (host.length) {
    if (host.length === given.length) return [];
    throw new XpuError('USAGE', `${host[0]!.from}: ${THIS_MACHINE} (this machine's GPUs) cannot be combined with other GPUs`, { hints: [`plan for this machine with --gpu ${THIS_MACHINE} alone, or name only the other machine's GPUs`] });
  }
  return [...new Set(given.map((g) => {
    try {
      return parseGpuName(g.value);
    } catch (e) {
      if (!(e instanceof XpuError)) throw e;
      throw new XpuError('USAGE', `${g.from}: ${e.message}`, { hints: e.hints, cause: e });
    }
  }))];
}

/** A constraint, or an error that names the option or variable it came from. */
function constraintOf(g: Given, i: number, all: Given[]): string {
  try {
    return parseConstraint(g.value).text;
  } catch (e) {
    if (!(e instanceof XpuError)) throw e;
    // `level-zero>=1.9,<2` as pip writes a range: the comma started a constraint of its own, which names no component.
    const name = /^\s*[<>=!~]/.test(g.value) ? /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(all[i - 1]?.value ?? '')?.[1] : undefined;
    const pip = name ? [`each constraint names its component; a comma starts another constraint, not a range as in pip: --require '${all[i - 1]!.value.trim()}' --require '${name}${g.value.trim()}'`] : [];
    throw new XpuError('USAGE', `${g.from}: ${e.message}`, { hints: [...pip, ...e.hints], cause: e });
  }
}

/** A value of a kind's index option: the kind's own shorthand (a bare conda channel name), else an http(s) URL. */
export function indexValue(option: KindOption, g: Given): string {
  return option.shorthand?.(g.value) ?? checkUrl(g, option.example);
}

/** The values of a kind's index option (else of its variable), each with where it came from. */
function givenIndexes(values: Values, option: KindOption, env: Record<string, string | undefined>): Given[] {
  if (option.repeats) return givenList(values, option.flag, env, option.env);
  const flag = str(values, option.flag);
  if (flag !== undefined) return [{ value: flag, from: `--${option.flag}` }];
  const value = env[option.env];
  return value ? [{ value, from: option.env }] : [];
}

const resolvedPath = (p: string | undefined): string | undefined => (p === undefined ? undefined : path.resolve(p));

/** `--from`: an http(s) URL as it is; a `file:` URL or a path (`~/`, or relative to the working directory) as an absolute path. */
function bundleLocation(from: string | undefined, deps: Deps): string | undefined {
  if (from === undefined) return from;
  if (/^https?:\/\//i.test(from)) return rememberCredentials(from);
  if (!/^file:/i.test(from)) return path.resolve(expandHome(from, deps));
  try {
    return fileURLToPath(from);
  } catch (e) {
    throw new XpuError('USAGE', `--from "${from}" is not a local file URL`, { cause: e, hints: ['give the bundle directory as a path (./xpu-bundle) or an http(s) URL'] });
  }
}

/** `--match-torch` (""): the active environment's python; `=PYTHON`: a command name as it is, a path made absolute. */
function matchTorchOf(value: string | undefined): MatchTorchRequest | undefined {
  if (value === undefined) return undefined;
  if (!value) return {};
  return { python: /[\\/]/.test(value) ? path.resolve(value) : value };
}

export interface ParsedPlanOptions {
  plan: PlanPlace;
  /** Only what this command line (or XPU_SETUP_* variables) said. */
  flags: RequestFlags;
  locked?: string;
  from?: string;
  /** `--offline`: `cache-only`; `--refresh` (setup and plan): `refresh`. */
  cachePolicy: CachePolicy;
  platform?: TargetPlatform;
  manifestsDir?: string;
}

const GITHUB_API = 'https://api.github.com';

/** The GitHub API's token (the action's input, else XPU_SETUP_GITHUB_TOKEN or GITHUB_TOKEN), for that API's origin alone. */
export function useGithubToken(env: Record<string, string | undefined>, token = env[EnvVars.XPU_SETUP_GITHUB_TOKEN] ?? env[EnvVars.GITHUB_TOKEN]): void {
  if (token) rememberToken(env[EnvVars.GITHUB_API_URL] || GITHUB_API, token);
}

export function parsePlanOptions(values: Values, deps: Deps): ParsedPlanOptions {
  const env = deps.env;
  useGithubToken(env);
  const sources = list(values, 'source');
  const badSource = sources.find((s) => !(SOURCE_KINDS as readonly string[]).includes(s));
  if (badSource) {
    const guess = nearest(badSource, SOURCE_KINDS);
    throw new XpuError('USAGE', `unknown --source "${badSource}"`, { hints: [...(guess ? [`did you mean ${guess}?`] : []), `sources: ${SOURCE_KINDS.join(', ')}`] });
  }
  const named = kindOptions().map(([kind, option]) => ({ kind, option, given: givenIndexes(values, option, env) })).filter((n) => n.given.length);
  const platformValue = str(values, 'platform');
  const platform = platformValue === undefined ? undefined : parseTargetPlatform(platformValue);
  // A prefix for another platform never shares the default with this machine's own prefix.
  const foreign = !!platform && !isNative(deps, platform) && !deps.env[EnvVars.XPU_SETUP_PREFIX];
  const fallbackPrefix = foreign ? `${defaultPrefix(deps)}-${platform}` : defaultPrefix(deps);
  const components = list(values, 'component');
  const requires = givenList(values, 'require', env, EnvVars.XPU_SETUP_REQUIRE).map(constraintOf);
  const remove = list(values, 'remove');
  const flags: RequestFlags = {};
  if (components.length) flags.components = components;
  if (sources.length) flags.sources = sources as SourceKind[];
  if (named.length) flags.indexes = Object.fromEntries(named.map((n) => [n.kind, n.given.map((g) => indexValue(n.option, g))]));
  if (requires.length) flags.requires = requires;
  if (remove.length) flags.remove = remove;
  if (values.refdriver) flags.refdriver = true;
  if (values['no-refdriver']) flags.refdriver = false;
  const matchTorch = matchTorchOf(str(values, 'match-torch'));
  if (matchTorch) flags.matchTorch = matchTorch;
  if (values['no-match-torch']) flags.matchTorch = null;
  if (values['include-loader-dll']) flags.includeLoaderDll = true;
  if (values['no-include-loader-dll']) flags.includeLoaderDll = false;
  const gpus = gpusOf(givenList(values, 'gpu', env, EnvVars.XPU_SETUP_GPU));
  if (gpus) flags.gpus = gpus;
  const lockfile = str(values, 'lockfile');
  const from = bundleLocation(str(values, 'from'), deps);
  if (from && (values.locked || lockfile)) throw new XpuError('USAGE', '--from installs the bundle\'s own lockfile: drop --locked / --lockfile');
  return {
    plan: {
      prefix: path.resolve(str(values, 'prefix') ?? fallbackPrefix),
      cacheDir: path.resolve(str(values, 'cache-dir') ?? defaultCacheDir(deps)),
      namedBy: Object.fromEntries(named.map((n) => [`--${n.option.flag}`, n.given[0]!.from])),
    },
    flags,
    locked: values.locked || lockfile ? path.resolve(lockfile ?? LOCKFILE_NAME) : undefined,
    from,
    cachePolicy: values.offline ? 'cache-only' : 'use-cache',
    platform,
    manifestsDir: resolvedPath(str(values, 'manifests') ?? (env[EnvVars.XPU_SETUP_MANIFESTS] ? expandHome(env[EnvVars.XPU_SETUP_MANIFESTS]!, deps) : undefined)),
  };
}

/** Everything `setup` takes (and `plan`, which says what setup would do with the same flags). */
export function parseSetupOptions(values: Values, deps: Deps): SetupOptions {
  const parsed = parsePlanOptions(values, deps);
  if (values.refresh) parsed.cachePolicy = 'refresh';
  return {
    ...parsed,
    refdriver: !!values.refdriver && !values['no-refdriver'],
    smoke: !values['no-smoke'],
    requireDevice: !!values['require-device'],
    limits: parseLimits(values, deps),
    verify: !values['no-probe'],
    rehash: !!values.verify,
    reprobe: !!values.probe,
    resmoke: !!values.smoke,
  };
}
