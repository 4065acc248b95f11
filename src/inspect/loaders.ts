// Where a shared library would be loaded from: the dynamic linker's search order, every copy on it, and which one wins.
import { nodeLayout } from '../host/index.js';
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import type { LdconfigEntry } from './ldconfig.js';
import { system32Dir } from './windows.js';

export type SearchVia = 'LD_LIBRARY_PATH' | 'ld.so.cache' | 'default dirs' | 'System32' | 'Windows dir' | 'PATH';

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

/** glibc's trusted directories for x86-64 (Debian multiarch and the lib64 distros). */
const LINUX_DEFAULT_DIRS = ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib64', '/usr/lib64'];

/**
 * Pure: the places the loader looks for `name`, in order.
 * Linux: LD_LIBRARY_PATH, then ld.so.cache, then the default dirs.
 * Windows (LoadLibrary, safe search mode, application dir unknown): System32, the Windows dir, then PATH; so a
 * ze_loader.dll that the GPU driver put in System32 beats any copy on PATH.
 */
export function searchOrder(
  platform: NodeJS.Platform,
  name: string,
  env: Record<string, string | undefined>,
  ldcache: LdconfigEntry[] = [],
): { path: string; via: SearchVia }[] {
  if (platform === 'win32') {
    const sys32 = system32Dir(env);
    const out: { path: string; via: SearchVia }[] = [
      { path: path.win32.join(sys32, name), via: 'System32' },
      { path: path.win32.join(path.win32.dirname(sys32), name), via: 'Windows dir' },
    ];
    const p = env.PATH ?? env.Path ?? '';
    for (const d of p.split(';').filter(Boolean)) out.push({ path: path.win32.join(d, name), via: 'PATH' });
    return out;
  }
  const out: { path: string; via: SearchVia }[] = [];
  for (const d of (env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)) out.push({ path: path.posix.join(d, name), via: 'LD_LIBRARY_PATH' });
  for (const e of ldcache) if (e.x64 && e.name === name) out.push({ path: e.path, via: 'ld.so.cache' });
  for (const d of LINUX_DEFAULT_DIRS) out.push({ path: path.posix.join(d, name), via: 'default dirs' });
  return out;
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
  for (const c of searchOrder(deps.platform, name, deps.env, opts.ldcache)) {
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
