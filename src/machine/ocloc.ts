// Finds ocloc, Intel's offline GPU compiler: the one named by a flag, else the prefix's bin/, else the first on PATH.
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import type { Finding } from './types.js';

export interface OclocFound {
  path: string;
  via: 'flag' | 'prefix' | 'PATH';
}

export async function findOcloc(
  deps: Pick<Deps, 'env' | 'platform' | 'exists'>,
  opts: { given?: string; prefix?: string; searchPath?: boolean } = {},
): Promise<Finding<OclocFound | undefined>> {
  const layout = nodeLayout(deps.platform);
  const name = `ocloc${layout.exeSuffix}`;
  const tried: string[] = [];
  const look = async (file: string, via: OclocFound['via']): Promise<OclocFound | undefined> => {
    const there = await deps.exists(file);
    tried.push(`${file} (${via}): ${there ? 'found' : 'not there'}`);
    return there ? { path: file, via } : undefined;
  };
  if (opts.given) return { found: await look(opts.given, 'flag'), tried };
  if (opts.prefix) {
    const inPrefix = await look(layout.path.join(opts.prefix, 'bin', name), 'prefix');
    if (inPrefix) return { found: inPrefix, tried };
  }
  if (opts.searchPath !== false) {
    const dirs = (deps.env.PATH ?? deps.env.Path ?? '').split(layout.pathSep).filter(Boolean);
    for (const d of dirs) {
      const file = layout.path.join(d, name);
      if (await deps.exists(file)) {
        tried.push(`${file} (PATH): found`);
        return { found: { path: file, via: 'PATH' }, tried };
      }
    }
    tried.push(`${name} on PATH: not found (${dirs.length} directories)`);
  }
  return { found: undefined, tried };
}
