// Unified Runtime: the UR loader and its adapters, in the prefix or on the library search path.
import { nodeLayout } from '../platform/index.js';
import type { Deps } from '../base/deps.js';
import type { LdconfigEntry } from './ldconfig.js';
import { resolveLibrary, type LibraryCandidate } from './loaders.js';
import type { Finding } from './types.js';

export interface UrNames {
  loader: string;
  adapters: string[];
  /** Libraries the Level Zero adapters need besides the L0 loader. */
  companions: string[];
}

export function urNames(platform: NodeJS.Platform): UrNames {
  const l = nodeLayout(platform);
  return { loader: l.urLoaderRuntime, adapters: l.urAdapters, companions: l.urCompanions };
}

export interface UrInstall {
  loader?: LibraryCandidate & { inPrefix: boolean };
  adapters: { name: string; path: string }[];
  companions: { name: string; path: string }[];
}

/** Where a prefix keeps shared libraries (conda-style Library/bin kept too on Windows). */
export function prefixLibDirs(platform: NodeJS.Platform, prefix: string): string[] {
  const l = nodeLayout(platform);
  return l.prefixLibDirs.map((d) => l.path.join(prefix, d));
}

export async function detectUr(
  deps: Deps,
  opts: { prefix?: string; ldcache?: LdconfigEntry[] } = {},
): Promise<Finding<UrInstall>> {
  const names = urNames(deps.platform);
  const layout = nodeLayout(deps.platform);
  const join = layout.path.join;
  const dirname = layout.path.dirname;
  const tried: string[] = [];
  const found: UrInstall = { adapters: [], companions: [] };
  for (const d of opts.prefix ? prefixLibDirs(deps.platform, opts.prefix) : []) {
    const p = join(d, names.loader);
    if (await deps.exists(p)) {
      found.loader = { path: p, via: layout.libraryPathVar, realPath: (await deps.realpath(p)) ?? p, inPrefix: true };
      tried.push(`${p} (prefix): found`);
      break;
    }
    tried.push(`${p} (prefix): not there`);
  }
  if (!found.loader) {
    const res = await resolveLibrary(deps, names.loader, { ldcache: opts.ldcache });
    tried.push(...res.tried);
    if (res.chosen) found.loader = { ...res.chosen, inPrefix: false };
  }
  if (!found.loader) return { found, tried };
  // The loader finds adapters next to itself first (they carry RUNPATH $ORIGIN too).
  const dir = dirname(found.loader.path);
  for (const [list, out] of [[names.adapters, found.adapters], [names.companions, found.companions]] as const) {
    for (const name of list) {
      const p = join(dir, name);
      if (await deps.exists(p)) {
        out.push({ name, path: p });
        continue;
      }
      const res = await resolveLibrary(deps, name, { ldcache: opts.ldcache });
      if (res.chosen) out.push({ name, path: res.chosen.path });
      else tried.push(`${name}: not next to the loader nor on the library path`);
    }
  }
  return { found, tried };
}
