// On Windows: which ze_loader.dll this process loaded, other copies System32 and the DriverStore hold, and which
// one a program started from the prefix's env files would get (System32 comes before PATH in the DLL search).
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { osLayout, system32Dir } from '../platform/index.js';
import { dllFileVersion, loadedModulePath } from './win-dll.js';

export interface WinLoaderCopy {
  path: string;
  where: 'prefix' | 'System32' | 'Windows dir' | 'DriverStore' | 'PATH';
  version?: string;
}

export interface WinLoaderFacts {
  /** The ze_loader.dll module in this process (the prefix's, loaded by full path), with its file version. */
  loaded?: WinLoaderCopy;
  /** Copies outside the prefix a program might get instead. */
  others: WinLoaderCopy[];
  /** What a program started after env.bat / env.ps1 (prefix\bin first on PATH) loads by name, exe dir aside. */
  programGets?: WinLoaderCopy;
  notes: string[];
}

const windows = osLayout('win32')!;

const same = (a: string, b: string) => path.win32.normalize(a).toLowerCase() === path.win32.normalize(b).toLowerCase();

/** Where a copy of the DLL sits, named as the DLL search order names it. */
function classify(file: string, prefixBin: string, env: Record<string, string | undefined>): WinLoaderCopy['where'] {
  const dir = path.win32.dirname(file);
  const sys32 = system32Dir(env);
  if (same(dir, sys32)) return 'System32';
  if (same(dir, path.win32.dirname(sys32))) return 'Windows dir';
  if (/\\DriverStore\\/i.test(file)) return 'DriverStore';
  return same(dir, prefixBin) ? 'prefix' : 'PATH';
}

/** Pure: the first copy in the DLL search order of a program whose PATH starts with the prefix's bin. */
export function programResolution(prefixBin: string, env: Record<string, string | undefined>, exists: (p: string) => boolean): WinLoaderCopy | undefined {
  const PATH = [prefixBin, env.PATH ?? env.Path ?? ''].filter(Boolean).join(';');
  for (const c of windows.librarySearch('ze_loader.dll', { ...env, PATH })) {
    if (!exists(c.path)) continue;
    return { path: c.path, where: classify(c.path, prefixBin, env) };
  }
  return undefined;
}

async function driverStoreCopies(deps: Pick<Deps, 'env' | 'exists' | 'readDir'>): Promise<string[]> {
  const repo = path.win32.join(system32Dir(deps.env), 'DriverStore', 'FileRepository');
  const out: string[] = [];
  for (const d of (await deps.readDir(repo)) ?? []) {
    const f = path.win32.join(repo, d, 'ze_loader.dll');
    if (await deps.exists(f)) out.push(f);
  }
  return out;
}

export async function windowsLoaderFacts(loaderPath: string, deps: Pick<Deps, 'env' | 'exists' | 'readDir'>): Promise<WinLoaderFacts> {
  const version = (p: string) => {
    try {
      return dllFileVersion(p);
    } catch {
      return undefined;
    }
  };
  const loadedPath = loadedModulePath('ze_loader.dll');
  const loaded: WinLoaderCopy | undefined = loadedPath
    ? { path: loadedPath, where: classify(loadedPath, path.win32.dirname(loaderPath), deps.env), version: version(loadedPath) }
    : undefined;
  const sys32 = system32Dir(deps.env);
  const others: WinLoaderCopy[] = [];
  for (const [p, where] of [[path.win32.join(sys32, 'ze_loader.dll'), 'System32'], [path.win32.join(path.win32.dirname(sys32), 'ze_loader.dll'), 'Windows dir']] as const) {
    if (await deps.exists(p)) others.push({ path: p, where, version: version(p) });
  }
  for (const p of await driverStoreCopies(deps)) others.push({ path: p, where: 'DriverStore', version: version(p) });
  const existing = new Set<string>();
  for (const c of windows.librarySearch('ze_loader.dll', { ...deps.env, PATH: [path.win32.dirname(loaderPath), deps.env.PATH ?? ''].join(';') })) {
    if (await deps.exists(c.path)) existing.add(c.path);
  }
  const gets = programResolution(path.win32.dirname(loaderPath), deps.env, (p) => existing.has(p));
  const programGets = gets ? { ...gets, version: version(gets.path) } : undefined;
  const notes: string[] = [];
  const v = (c: WinLoaderCopy) => `${c.path}${c.version ? ` (version ${c.version})` : ''}`;
  if (loaded) notes.push(`loaded ${v(loaded)}${loaded.where === 'prefix' ? ', the prefix copy, by full path' : same(loaded.path, loaderPath) ? ` (the ${loaded.where} copy: the prefix has none)` : `, not ${loaderPath}`}`);
  for (const o of others) if (!loaded || !same(o.path, loaded.path)) notes.push(`${o.where} also holds ${v(o)}`);
  if (programGets?.where === 'prefix') {
    notes.push(`a program started from env.bat/env.ps1 loads the prefix copy ${programGets.path} through PATH`);
  } else if (programGets && same(programGets.path, loaderPath)) {
    notes.push(`a program started from env.bat/env.ps1 loads ${v(programGets)} too`);
  } else if (programGets) {
    notes.push(`a program started from env.bat/env.ps1 loads ${v(programGets)} (${programGets.where} comes before PATH); to use the prefix's, copy ${loaderPath} beside the program's .exe`);
  }
  return { loaded, others, programGets, notes };
}
