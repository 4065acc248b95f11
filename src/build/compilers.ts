// Finds C/C++ compilers: an ordered list of attempts, each recorded, GNU-style and MSVC-style, all through Deps.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import type { Attempt, Finding } from '../base/finding.js';

export type CompilerStyle = 'gnu' | 'msvc';

export interface Compiler {
  /** How it was found, e.g. "CC", "gcc", "vswhere", "clang-cl". */
  via: string;
  path: string;
  style: CompilerStyle;
  /** First line of `--version` (GNU) or the banner (MSVC): part of the build cache key. */
  version: string;
  /** MSVC: the vcvars script that sets INCLUDE/LIB for cl.exe, when it came from vswhere. */
  vcvars?: string;
}

export type { Attempt } from '../base/finding.js';
export { describeTried } from '../base/finding.js';

export type FinderResult = Finding<Compiler[], Attempt>;

export interface VsInstance {
  installationPath: string;
  installationVersion: string;
  displayName?: string;
  productId?: string;
  isComplete: boolean;
  isPrerelease: boolean;
}

/** Parses `vswhere -format json` output; newest complete instance first. */
export function parseVswhere(text: string): VsInstance[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return [];
  }
  if (!Array.isArray(doc)) return [];
  const out: VsInstance[] = [];
  for (const item of doc) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    if (typeof r.installationPath !== 'string' || typeof r.installationVersion !== 'string') continue;
    out.push({
      installationPath: r.installationPath,
      installationVersion: r.installationVersion,
      displayName: typeof r.displayName === 'string' ? r.displayName : undefined,
      productId: typeof r.productId === 'string' ? r.productId : undefined,
      isComplete: r.isComplete !== false,
      isPrerelease: r.isPrerelease === true,
    });
  }
  const key = (v: string) => v.split('.').map((n) => n.padStart(8, '0')).join('.');
  return out.sort((a, b) => Number(b.isComplete) - Number(a.isComplete) || key(b.installationVersion).localeCompare(key(a.installationVersion)));
}

/** Splits PATH and looks for the program, adding Windows extensions from PATHEXT. */
export async function whichOnPath(name: string, deps: Pick<Deps, 'env' | 'platform' | 'exists'>): Promise<string | undefined> {
  const { path: p, pathSep, pathExt } = nodeLayout(deps.platform);
  if (name.includes('/') || name.includes(p.sep)) return (await deps.exists(name)) ? name : undefined;
  const dirs = (deps.env.PATH ?? deps.env.Path ?? '').split(pathSep).filter(Boolean);
  const exts = pathExt ? ['', ...(deps.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').map((e) => e.toLowerCase())] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      if (pathExt && ext === '' && !/\.[a-z]+$/i.test(name)) continue;
      const candidate = p.join(dir, name + ext);
      if (await deps.exists(candidate)) return candidate;
    }
  }
  return undefined;
}

async function gnuCandidate(via: string, cmd: string, deps: Deps, tried: Attempt[]): Promise<Compiler | undefined> {
  const file = await whichOnPath(cmd, deps);
  if (!file) {
    tried.push({ what: `${via} (${cmd})`, result: 'not found', detail: 'not on PATH' });
    return undefined;
  }
  const r = await deps.exec(file, ['--version'], { timeoutMs: 15000 });
  if (r.exitCode !== 0) {
    tried.push({ what: `${via} (${file})`, result: 'failed', detail: (r.failedToStart ?? r.stderr.trim()) || `exit ${r.exitCode}` });
    return undefined;
  }
  const version = (r.stdout || r.stderr).split('\n')[0]!.trim();
  tried.push({ what: `${via} (${file})`, result: 'found', detail: version });
  return { via, path: file, style: 'gnu', version };
}

async function msvcCandidate(via: string, file: string, deps: Deps, tried: Attempt[], vcvars?: string): Promise<Compiler | undefined> {
  // cl.exe prints its banner on stderr and exits non-zero without inputs; the banner is what identifies it.
  const r = await deps.exec(file, [], { timeoutMs: 15000 });
  const banner = `${r.stderr}\n${r.stdout}`.split('\n').map((l) => l.trim()).find((l) => /compiler|clang/i.test(l));
  if (r.failedToStart || !banner) {
    tried.push({ what: `${via} (${file})`, result: 'failed', detail: r.failedToStart ?? 'no banner' });
    return undefined;
  }
  tried.push({ what: `${via} (${file})`, result: 'found', detail: banner });
  return { via, path: file, style: 'msvc', version: banner, vcvars };
}

async function findMsvcViaVswhere(deps: Deps, tried: Attempt[]): Promise<Compiler[]> {
  const pf86 = deps.env['ProgramFiles(x86)'] ?? 'C:\\Program Files (x86)';
  const vswhere = path.win32.join(pf86, 'Microsoft Visual Studio', 'Installer', 'vswhere.exe');
  if (!(await deps.exists(vswhere))) {
    tried.push({ what: 'vswhere', result: 'not found', detail: vswhere });
    return [];
  }
  const r = await deps.exec(vswhere, ['-products', '*', '-requires', 'Microsoft.VisualStudio.Component.VC.Tools.x86.x64', '-format', 'json', '-utf8'], { timeoutMs: 30000 });
  const instances = r.exitCode === 0 ? parseVswhere(r.stdout) : [];
  if (instances.length === 0) {
    tried.push({ what: 'vswhere', result: 'not found', detail: 'no Visual Studio instance with the C++ x64 tools' });
    return [];
  }
  const found: Compiler[] = [];
  for (const vs of instances) {
    const verFile = path.win32.join(vs.installationPath, 'VC', 'Auxiliary', 'Build', 'Microsoft.VCToolsVersion.default.txt');
    const tools = (await deps.readFile(verFile))?.trim();
    if (!tools) {
      tried.push({ what: `vswhere: ${vs.displayName ?? vs.installationPath}`, result: 'not found', detail: `no ${verFile}` });
      continue;
    }
    const cl = path.win32.join(vs.installationPath, 'VC', 'Tools', 'MSVC', tools, 'bin', 'Hostx64', 'x64', 'cl.exe');
    if (!(await deps.exists(cl))) {
      tried.push({ what: `vswhere: ${vs.displayName ?? vs.installationPath}`, result: 'not found', detail: cl });
      continue;
    }
    const vcvars = path.win32.join(vs.installationPath, 'VC', 'Auxiliary', 'Build', 'vcvars64.bat');
    const c = await msvcCandidate(`vswhere: ${vs.displayName ?? vs.installationVersion}`, cl, deps, tried, vcvars);
    if (c) found.push(c);
  }
  return found;
}

async function firstExisting(files: string[], deps: Pick<Deps, 'exists'>): Promise<string | undefined> {
  for (const f of files) if (await deps.exists(f)) return f;
  return undefined;
}

/** Where LLVM's Windows installer and Visual Studio's bundled LLVM put clang-cl and clang. */
function windowsLlvmDirs(env: Record<string, string | undefined>): string[] {
  const pf = env.ProgramFiles ?? 'C:\\Program Files';
  return [path.win32.join(pf, 'LLVM', 'bin')];
}

/**
 * GNU-style compilers on Windows (mingw-w64 gcc, clang): on PATH first, then the usual homes of MSYS2 (each of its
 * environments) and w64devkit. Their shared libraries are DLLs like MSVC's and link ze_loader.lib with -lze_loader.
 */
async function findWindowsGnu(deps: Deps, tried: Attempt[]): Promise<Compiler[]> {
  const found: Compiler[] = [];
  const add = (c: Compiler | undefined) => {
    if (c && !found.some((f) => f.path.toLowerCase() === c.path.toLowerCase())) found.push(c);
  };
  for (const name of ['gcc.exe', 'x86_64-w64-mingw32-gcc.exe', 'clang.exe']) {
    if (await whichOnPath(name, deps)) add(await gnuCandidate(`${name} on PATH`, name, deps, tried));
    else tried.push({ what: `${name} on PATH`, result: 'not found' });
  }
  const home = deps.env.USERPROFILE ?? 'C:\\Users\\Default';
  const msys = deps.env.MSYS2_ROOT ?? 'C:\\msys64';
  const homes: [string, string][] = [
    ['MSYS2 UCRT64', path.win32.join(msys, 'ucrt64', 'bin', 'gcc.exe')],
    ['MSYS2 MINGW64', path.win32.join(msys, 'mingw64', 'bin', 'gcc.exe')],
    ['MSYS2 CLANG64', path.win32.join(msys, 'clang64', 'bin', 'clang.exe')],
    ['w64devkit', path.win32.join('C:\\w64devkit', 'bin', 'gcc.exe')],
    ['w64devkit', path.win32.join(home, 'w64devkit', 'bin', 'gcc.exe')],
    ['LLVM clang', path.win32.join(windowsLlvmDirs(deps.env)[0]!, 'clang.exe')],
  ];
  for (const [via, file] of homes) {
    if (await deps.exists(file)) add(await gnuCandidate(via, file, deps, tried));
    else tried.push({ what: via, result: 'not found', detail: file });
  }
  return found;
}

/** The compilers looked for on PATH outside Windows, in order; each takes GNU-style options. */
const GNU_NAMES = { c: ['cc', 'gcc', 'clang', 'icx'], 'c++': ['c++', 'g++', 'clang++', 'icpx'] } as const;

/**
 * The compiler findCompilers would try first outside Windows (CC, else the first of GNU_NAMES on PATH), found without
 * running it: for a caller whose own compile shows that it works, and that asks findCompilers only when it fails.
 */
export async function firstGnuOnPath(deps: Deps, lang: 'c' | 'c++' = 'c'): Promise<string | undefined> {
  if (nodeLayout(deps.platform).compilerSearch !== 'gnu') return undefined;
  const fromEnv = deps.env[lang === 'c' ? 'CC' : 'CXX']?.trim();
  if (fromEnv) return whichOnPath(fromEnv.split(/\s+/)[0]!, deps);
  for (const n of GNU_NAMES[lang]) {
    const file = await whichOnPath(n, deps);
    if (file) return file;
  }
  return undefined;
}

/**
 * Every usable compiler in order of preference; `tried` lists each attempt for doctor and error messages. With
 * `firstGnu`, on Linux the search stops at the first GNU-style compiler that answers (each answer is a process).
 */
export async function findCompilers(deps: Deps, lang: 'c' | 'c++' = 'c', opts: { firstGnu?: boolean } = {}): Promise<FinderResult> {
  const tried: Attempt[] = [];
  const found: Compiler[] = [];
  const envVar = lang === 'c' ? 'CC' : 'CXX';
  const fromEnv = deps.env[envVar]?.trim();
  if (nodeLayout(deps.platform).compilerSearch === 'msvc-first') {
    if (fromEnv) {
      const file = await whichOnPath(fromEnv, deps);
      const isMsvc = /(^|[\\/])(cl|clang-cl)(\.exe)?$/i.test(fromEnv);
      const c = file
        ? isMsvc ? await msvcCandidate(envVar, file, deps, tried) : await gnuCandidate(envVar, file, deps, tried)
        : (tried.push({ what: `${envVar} (${fromEnv})`, result: 'not found' }), undefined);
      if (c) found.push(c);
    }
    const onPath = await whichOnPath('cl.exe', deps);
    if (onPath) {
      const c = await msvcCandidate('cl.exe on PATH', onPath, deps, tried);
      if (c) found.push(c);
    } else tried.push({ what: 'cl.exe on PATH', result: 'not found' });
    found.push(...(await findMsvcViaVswhere(deps, tried)));
    const clangCl = (await whichOnPath('clang-cl.exe', deps)) ?? (await firstExisting(windowsLlvmDirs(deps.env).map((d) => path.win32.join(d, 'clang-cl.exe')), deps));
    if (clangCl) {
      const c = await msvcCandidate('clang-cl', clangCl, deps, tried);
      if (c) found.push(c);
    } else tried.push({ what: 'clang-cl', result: 'not found', detail: 'not on PATH nor in LLVM\\bin' });
    for (const c of await findWindowsGnu(deps, tried)) if (!found.some((f) => f.path.toLowerCase() === c.path.toLowerCase())) found.push(c);
    return { found, tried };
  }
  const names = GNU_NAMES[lang];
  if (fromEnv) {
    const c = await gnuCandidate(envVar, fromEnv.split(/\s+/)[0]!, deps, tried);
    if (c) found.push(c);
  }
  for (const n of names) {
    if (opts.firstGnu && found.length) break;
    const c = await gnuCandidate(n, n, deps, tried);
    if (c && !found.some((f) => f.path === c.path)) found.push(c);
  }
  return { found, tried };
}

