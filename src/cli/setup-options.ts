// Options shared by `setup` and `plan`, and their translation into PlanOptions (flags first, then XPU_SETUP_* env).
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import { defaultCacheDir, defaultPrefix, parseTargetPlatform, runningPlatform } from '../host/index.js';
import type { TargetPlatform } from '../host/types.js';
import { SOURCE_KINDS, type SourceKind } from '../manifest/schema.js';
import type { PlanOptions } from '../plan/plan.js';
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
};

export const PLAN_USAGE = `[--prefix DIR] [--component level-zero,unified-runtime] [--source conda,pypi,url,apt]
    [--conda-channel URL]... [--index-url URL] [--platform linux-x64|win-x64] [--cache-dir DIR]
    [--manifests DIR] [--json] [--quiet] [--verbose]`;

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
  return {
    plan: {
      prefix: path.resolve(str(values, 'prefix') ?? fallbackPrefix),
      cacheDir: path.resolve(str(values, 'cache-dir') ?? defaultCacheDir(deps)),
      components: list(values, 'component'),
      sources: sources as SourceKind[],
      condaChannels: channels.map((c) => checkUrl(c, '--conda-channel')),
      indexUrl: indexUrl === undefined ? undefined : checkUrl(indexUrl, '--index-url'),
    },
    platform,
    manifestsDir: str(values, 'manifests') ?? (env[EnvVars.XPU_SETUP_MANIFESTS] || undefined),
  };
}
