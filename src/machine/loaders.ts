// Where a shared library would be loaded from: the dynamic linker's search order, every copy on it, and which one wins.
import { nodeLayout, type SearchVia } from '../platform/index.js';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import type { LdconfigEntry } from './ldconfig.js';

export interface LibraryCandidate {
  path: string;
  via: SearchVia;
  /** The file behind every symlink (its name often carries the version on Linux). */
  realPath?: string;
}

export interface LibraryResolution {
  name: string;
  /** What a program without RPATH/RUNPATH gets when it asks for `name`. */
  chosen?: LibraryCandidate;
  /** Other copies on the search path that lose to `chosen`. */
  shadowed: LibraryCandidate[];
  tried: string[];
}

/** Pure: the version a Linux library's real file name carries (libze_loader.so.1.8.0 -> 1.8.0). */
export function versionFromFileName(file: string): string | undefined {
  return /\.so\.(\d+(?:\.\d+)+)$/.exec(path.basename(file))?.[1];
}

export async function resolveLibrary(
  deps: Deps,
  name: string,
  opts: { ldcache?: LdconfigEntry[] } = {},
): Promise<LibraryResolution> {
  const res: LibraryResolution = { name, shadowed: [], tried: [] };
  const seen = new Set<string>();
  for (const c of nodeLayout(deps.platform).librarySearch(name, deps.env, opts.ldcache)) {
    if (!(await deps.exists(c.path))) {
      if (c.via !== 'default dirs') res.tried.push(`${c.path} (${c.via}): not there`);
      continue;
    }
    const real = (await deps.realpath(c.path)) ?? c.path;
    if (seen.has(real)) continue;
    seen.add(real);
    const cand: LibraryCandidate = { ...c, realPath: real };
    res.tried.push(`${c.path} (${c.via}): found${real !== c.path ? ` -> ${real}` : ''}`);
    if (!res.chosen) res.chosen = cand;
    else res.shadowed.push(cand);
  }
  if (!res.chosen) res.tried.push(`${name}: not on the library search path`);
  return res;
}

/** Copies of `name` in specific directories (a prefix, an SDK path) whether or not they are on the search path. */
export async function findInDirs(deps: Deps, name: string, dirs: string[]): Promise<LibraryCandidate[]> {
  const out: LibraryCandidate[] = [];
  const join = nodeLayout(deps.platform).path.join;
  for (const d of dirs) {
    const p = join(d, name);
    if (await deps.exists(p)) out.push({ path: p, via: 'PATH', realPath: (await deps.realpath(p)) ?? p });
  }
  return out;
}
