// Options shared by `setup` and `plan`, and their translation into PlanOptions (flags first, then XPU_SETUP_* env).
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import { defaultCacheDir, defaultPrefix, parseTargetPlatform, runningPlatform } from '../host/index.js';
import type { TargetPlatform } from '../host/types.js';
import { SOURCE_KINDS, type SourceKind } from '../manifest/schema.js';
import type { PlanOptions } from '../plan/plan.js';
import { LOCKFILE_NAME } from '../plan/lockfile.js';
import type { RequestFlags } from '../plan/request.js';
import { parseConstraint } from '../sources/order.js';
import { list, str, type OptionSpec, type Values } from './command.js';
import { EnvVars } from '../env-names.js';

export const planOptionSpec: OptionSpec = {
  prefix: { type: 'string' },
  component: { type: 'string', multiple: true },
  source: { type: 'string', multiple: true },
  'conda-channel': { type: 'string', multiple: true },
  'index-url': { type: 'string' },
  platform: { type: 'string' },
  'cache-dir': { type: 'string' },
  manifests: { type: 'string' },
  require: { type: 'string', multiple: true },
  remove: { type: 'string', multiple: true },
  locked: { type: 'boolean' },
  lockfile: { type: 'string' },
  from: { type: 'string' },
  offline: { type: 'boolean' },
};

export const PLAN_USAGE = `[--prefix DIR] [--component level-zero,unified-runtime] [--source conda,pypi,url,apt]
    [--conda-channel URL]... [--index-url URL] [--platform linux-x64|win-x64] [--cache-dir DIR]
    [--require 'level-zero>=1.9']... [--remove COMPONENT] [--locked [--lockfile FILE]] [--from DIR|URL]
    [--offline] [--manifests DIR] [--json] [--quiet] [--verbose]
  With a receipt in the prefix, whatever is not said is repeated from the recorded request.`;

function checkUrl(value: string, flag: string): string {
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return value;
  } catch {
    // reported below
  }
  throw new XpuError('USAGE', `${flag} "${value}" is not an http(s) URL`, { hints: [`example: ${flag} https://conda.anaconda.org/conda-forge`] });
}

export interface ParsedPlanOptions {
  plan: PlanOptions;
  /** Only what this command line (or XPU_SETUP_* variables) said. */
  flags: RequestFlags;
  locked?: string;
  from?: string;
  offline: boolean;
  platform?: TargetPlatform;
  manifestsDir?: string;
}

export function parsePlanOptions(values: Values, deps: Deps): ParsedPlanOptions {
  const env = deps.env;
  const sources = list(values, 'source');
  const badSource = sources.find((s) => !(SOURCE_KINDS as readonly string[]).includes(s));
  if (badSource) throw new XpuError('USAGE', `unknown source "${badSource}"`, { hints: [`sources: ${SOURCE_KINDS.join(', ')}`] });
  const channelsFlag = list(values, 'conda-channel');
  const channels = channelsFlag.length ? channelsFlag : (env[EnvVars.XPU_SETUP_CONDA_CHANNELS] ?? '').split(/[,\s]+/).filter(Boolean);
  const indexUrl = str(values, 'index-url') ?? (env[EnvVars.XPU_SETUP_INDEX_URL] || undefined);
  const platformValue = str(values, 'platform');
  const platform = platformValue === undefined ? undefined : parseTargetPlatform(platformValue);
  // A prefix for another platform never shares the default with this machine's own prefix.
  const foreign = platform !== undefined && platform !== runningPlatform(deps) && !deps.env[EnvVars.XPU_SETUP_PREFIX];
  const fallbackPrefix = foreign ? `${defaultPrefix(deps)}-${platform}` : defaultPrefix(deps);
  const components = list(values, 'component');
  const requireFlags = Array.isArray(values.require) ? values.require : [];
  const requireList = requireFlags.length ? requireFlags : (env[EnvVars.XPU_SETUP_REQUIRE] ?? '').split(/[,;\n]+/).map((r) => r.trim()).filter(Boolean);
  const requires = requireList.map((r) => parseConstraint(r).text);
  const remove = list(values, 'remove');
  const condaChannels = channels.map((c) => checkUrl(c, '--conda-channel'));
  const flags: RequestFlags = {};
  if (components.length) flags.components = components;
  if (sources.length) flags.sources = sources as SourceKind[];
  if (condaChannels.length) flags.condaChannels = condaChannels;
  if (indexUrl !== undefined) flags.indexUrl = checkUrl(indexUrl, '--index-url');
  if (requires.length) flags.requires = requires;
  if (remove.length) flags.remove = remove;
  if (values.refdriver) flags.refdriver = true;
  if (values['no-refdriver']) flags.refdriver = false;
  const lockfile = str(values, 'lockfile');
  const from = str(values, 'from');
  if (from && (values.locked || lockfile)) throw new XpuError('USAGE', '--from installs the bundle\'s own lockfile: drop --locked / --lockfile');
  return {
    plan: {
      prefix: path.resolve(str(values, 'prefix') ?? fallbackPrefix),
      cacheDir: path.resolve(str(values, 'cache-dir') ?? defaultCacheDir(deps)),
      components,
      sources: sources as SourceKind[],
      condaChannels,
      indexUrl: flags.indexUrl,
      requires,
    },
    flags,
    locked: values.locked || lockfile ? path.resolve(lockfile ?? LOCKFILE_NAME) : undefined,
    from,
    offline: !!values.offline,
    platform,
    manifestsDir: str(values, 'manifests') ?? (env[EnvVars.XPU_SETUP_MANIFESTS] || undefined),
  };
}
