// Whether a shared library loads here, tried in a child process (the dynamic linker itself, or node), and what its error means.
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';

export interface LoadDiagnosis {
  kind: 'glibcxx' | 'glibc' | 'missing-dependency' | 'wrong-arch' | 'undefined-symbol' | 'not-found' | 'other';
  summary: string;
  fix?: string;
}

export interface LoadResult {
  ok: boolean;
  /** The loader's own message when it failed. */
  error?: string;
  diagnosis?: LoadDiagnosis;
}

/** Pure: turns a dlopen/LoadLibrary message into a reason a person can act on. */
export function diagnoseLoadError(message: string, file: string): LoadDiagnosis {
  let m = /version `(GLIBCXX_[\d.]+|CXXABI_[\d.]+)' not found/.exec(message);
  if (m) {
    return {
      kind: 'glibcxx',
      summary: `needs ${m[1]}, which this system's libstdc++ does not provide: a loader built for a newer distro`,
      fix: 'use a loader built for this distro (the distro package, or one that brings its own libstdc++ such as conda-forge level-zero inside its environment), or run `xpu-setup` to install a compatible one',
    };
  }
  m = /version `(GLIBC_[\d.]+)' not found/.exec(message);
  if (m) {
    return {
      kind: 'glibc',
      summary: `needs ${m[1]}, newer than this system's glibc: built for a newer distro`,
      fix: 'use a build for this distro (or a manylinux build old enough for this glibc)',
    };
  }
  if (/wrong ELF class|ELFCLASS32|%1 is not a valid Win32 application|\(193\)/.test(message)) {
    return { kind: 'wrong-arch', summary: 'built for another architecture (32-bit or not x86-64)', fix: 'install the x86-64 build' };
  }
  m = /undefined symbol: (\S+)/.exec(message);
  if (m) {
    return {
      kind: 'undefined-symbol',
      summary: `undefined symbol ${m[1]}: a library it depends on is a different version than the one it was built against`,
      fix: 'install matching versions (or remove the older copy that shadows the right one on the library path)',
    };
  }
  m = /^(?:Error: )?(\S+): cannot open shared object file/m.exec(message);
  if (m) {
    const missing = m[1]!;
    if (file.endsWith(missing) || missing === file) {
      return { kind: 'not-found', summary: `${missing} does not exist or cannot be read` };
    }
    return {
      kind: 'missing-dependency',
      summary: `it needs ${missing}, which is not on the library path`,
      fix: `install the package that provides ${missing}, or add its directory to LD_LIBRARY_PATH`,
    };
  }
  if (/The specified module could not be found|\(126\)/.test(message)) {
    return { kind: 'missing-dependency', summary: 'the DLL or one of its dependencies was not found', fix: 'reinstall the GPU driver or the package that provides it' };
  }
  return { kind: 'other', summary: message.split('\n')[0] ?? message };
}

// process.dlopen loads the library for real; a plain (non-addon) library then fails with "did not self-register",
// which proves it loaded. One line per file, written synchronously before the next load, so the answers given
// before a crash survive it.
const LOAD_SCRIPT = `
const fs = require('fs');
for (const f of process.argv.slice(1)) {
  let answer;
  try { process.dlopen({ exports: {} }, f); answer = { ok: true }; }
  catch (e) {
    const msg = String(e && e.message || e);
    answer = /did not self-register|Module did not|not a valid Node|NODE_MODULE/i.test(msg) ? { ok: true } : { ok: false, message: msg };
  }
  fs.writeSync(1, JSON.stringify(answer) + '\\n');
}`;

/** Pure: reads the child's one-line JSON answer. */
export function parseLoadAnswer(stdout: string, file: string): LoadResult {
  const line = stdout.trim().split('\n').pop() ?? '';
  try {
    const v = JSON.parse(line) as { ok: boolean; message?: string };
    if (v.ok) return { ok: true };
    const error = v.message ?? 'unknown error';
    return { ok: false, error, diagnosis: diagnoseLoadError(error, file) };
  } catch {
    return { ok: false, error: `no answer from the load test (${stdout.trim().slice(0, 200) || 'empty output'})` };
  }
}

/** Pure: the answers a load-test child gave, one per line in the order of `files`; stops at the first line that is not one. */
export function parseLoadAnswers(stdout: string, files: readonly string[]): LoadResult[] {
  const out: LoadResult[] = [];
  for (const line of stdout.split('\n').filter((l) => l.trim())) {
    const file = files[out.length];
    if (file === undefined) break;
    let v: { ok?: unknown; message?: unknown };
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      break;
    }
    if (typeof v !== 'object' || v === null || typeof v.ok !== 'boolean') break;
    out.push(parseLoadAnswer(line, file));
  }
  return out;
}

/**
 * Loads each of `files` with process.dlopen in a child node process with the same environment, in order, and says
 * for each whether it loaded. A child, because loading runs the library's constructors and a bad library can crash
 * the process that loads it: the caller must survive to report it. One child for the lot, because a node start
 * costs far more than a load; a child that dies while loading one file charges that file with the death and the
 * files after it go to a fresh child. The files share a process as a program would share them (a UR loader and its
 * adapters).
 */
export async function tryLoadInNode(deps: Deps, files: readonly string[], extraEnv: Record<string, string> = {}): Promise<LoadResult[]> {
  const env = { ...deps.env, ...extraEnv };
  const results: LoadResult[] = [];
  while (results.length < files.length) {
    const rest = files.slice(results.length);
    const r = await deps.exec(process.execPath, ['-e', LOAD_SCRIPT, ...rest], { env, timeoutMs: 20_000 });
    if (r.failedToStart && !/killed|SIG[A-Z]+|timed out/i.test(r.failedToStart)) {
      const error = `could not start node for the load test: ${r.failedToStart}`;
      return [...results, ...rest.map((): LoadResult => ({ ok: false, error }))];
    }
    const answers = parseLoadAnswers(r.stdout, rest);
    results.push(...answers);
    if (answers.length < rest.length) {
      const signal = /SIG[A-Z]+/.exec(r.failedToStart ?? '')?.[0];
      const how = signal ? `killed by ${signal}` : /timed out/i.test(r.failedToStart ?? '') ? 'timed out' : `exit ${r.exitCode}`;
      const said = r.stderr.trim().split('\n').slice(-1)[0];
      results.push({ ok: false, error: `the load test process died (${how}) while loading it${said ? `: ${said}` : ''}` });
    }
  }
  return results;
}

/**
 * Pure: what the dynamic linker run as a program under LD_TRACE_LOADED_OBJECTS (and LD_WARN, so data relocations are
 * processed as a lazy dlopen processes them) says about `file`, in the words dlopen would have used, so that
 * diagnoseLoadError reads both alike. dlopen stops at the first failure in this order: a file that cannot be mapped,
 * a missing dependency, a missing symbol version, an undefined symbol.
 */
export function parseLinkerTrace(stdout: string, stderr: string, exitCode: number, file: string): LoadResult {
  const fail = (error: string): LoadResult => ({ ok: false, error, diagnosis: diagnoseLoadError(error, file) });
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter(Boolean);
  // The linker names itself by the file it was asked to run; dlopen's messages start at what went wrong.
  const unprefixed = (l: string): string => (l.startsWith(`${file}: `) ? l.slice(file.length + 2) : l);
  if (exitCode !== 0) {
    const fatal = lines.map((l) => /error while loading shared libraries: (.*)$/.exec(l)?.[1]).find(Boolean);
    return fail(fatal ?? (lines.length ? unprefixed(lines[lines.length - 1]!) : `the dynamic linker exited ${exitCode}`));
  }
  const missing = /^\s*(\S+) => not found\s*$/m.exec(stdout)?.[1];
  if (missing) return fail(`${missing}: cannot open shared object file: No such file or directory`);
  const version = lines.find((l) => /version `[^']+' not found/.test(l));
  if (version) return fail(unprefixed(version));
  const undef = lines.map((l) => /^undefined symbol: (\S+)\s+\((.*)\)$/.exec(l)).find(Boolean);
  if (undef) return fail(`${undef[2]}: undefined symbol: ${undef[1]}`);
  return { ok: true };
}

/**
 * Links each of `files` with the dynamic linker run as a program: it maps the library and every dependency along
 * the same search path, checks symbol versions and binds data symbols, then exits without running any of the
 * library's code. That is the question "would it load here", asked of the real linker at a few milliseconds a file
 * instead of a node start, each file in a linker process of its own (a broken library cannot take the caller down,
 * and files do not see each other); several files go through one shell, so the caller starts one process.
 * Constructors do not run: the probe and smoke test (`doctor --smoke`) run the libraries for real.
 * undefined when the linker cannot be started (the caller then loads in node).
 */
export async function tryLinkAll(deps: Deps, linker: string, files: readonly string[], extraEnv: Record<string, string> = {}): Promise<LoadResult[] | undefined> {
  const env = { ...deps.env, ...extraEnv };
  const batch = files.length > 1 ? await linkInShell(deps, linker, files, env) : [];
  const rest = files.slice(batch.length);
  const traced = { ...env, ...TRACE_ENV };
  const runs = await Promise.all(rest.map((f) => deps.exec(linker, [f], { env: traced, timeoutMs: 20_000 })));
  if (runs.some((r) => r.failedToStart && /ENOENT|EACCES/.test(r.failedToStart))) return undefined;
  return [
    ...batch,
    ...runs.map((r, i): LoadResult => {
      if (r.failedToStart && !r.stderr) return { ok: false, error: `the dynamic linker did not answer for it: ${r.failedToStart}` };
      return parseLinkerTrace(r.stdout, r.stderr, r.exitCode, rest[i]!);
    }),
  ];
}

/** What makes glibc's ld.so list and link instead of run; set on the linker only (it would trace any program). */
const TRACE_ENV = { LD_TRACE_LOADED_OBJECTS: '1', LD_WARN: 'yes' };

/** Record separator lines around each file's output, on both streams. */
const MARK = '\x1e';

// The linker once per file, each answer fenced on stdout and stderr, so a batch costs the caller one process start.
const LINK_SCRIPT = `l=$1; shift
for f do
  printf '${MARK}B\\n'; printf '${MARK}B\\n' >&2
  LD_TRACE_LOADED_OBJECTS=1 LD_WARN=yes "$l" "$f"
  printf '${MARK}E %s\\n' "$?"
done`;

/** Pure: the per-file answers of LINK_SCRIPT, in order, up to the first file whose answer did not complete. */
export function parseLinkBatch(stdout: string, stderr: string, files: readonly string[]): LoadResult[] {
  const outs = stdout.split(`${MARK}B\n`).slice(1);
  const errs = stderr.split(`${MARK}B\n`).slice(1);
  const results: LoadResult[] = [];
  for (let i = 0; i < files.length && i < outs.length; i++) {
    const m = new RegExp(`${MARK}E (\\d+)\\n?$`).exec(outs[i]!);
    if (!m) break;
    results.push(parseLinkerTrace(outs[i]!.slice(0, m.index), errs[i] ?? '', Number(m[1]), files[i]!));
  }
  return results;
}

/** Links `files` through one /bin/sh; the answers it completed (possibly none: the caller links the rest one by one). */
async function linkInShell(deps: Deps, linker: string, files: readonly string[], env: Record<string, string | undefined>): Promise<LoadResult[]> {
  const r = await deps.exec('/bin/sh', ['-c', LINK_SCRIPT, 'sh', linker, ...files], { env, timeoutMs: 20_000 });
  if (r.failedToStart && !r.stdout) return [];
  return parseLinkBatch(r.stdout, r.stderr, files);
}

/**
 * Whether each of `files` loads here with `extraEnv` on top of the environment: linked by the dynamic linker where
 * the platform has one that can be run (Linux), else loaded in a node child (Windows).
 */
export async function tryLoadAll(deps: Deps, files: readonly string[], extraEnv: Record<string, string> = {}): Promise<LoadResult[]> {
  if (files.length === 0) return [];
  const linker = nodeLayout(deps.platform).dynamicLinker;
  const linked = linker ? await tryLinkAll(deps, linker, files, extraEnv) : undefined;
  return linked ?? tryLoadInNode(deps, files, extraEnv);
}

/**
 * Like tryLoadAll, except that no file sees another (one loaded first would satisfy another's dependency on it):
 * the linker takes each in a process of its own anyway; without it, each file loads in a node process of its own.
 */
export async function tryLoadEach(deps: Deps, files: readonly string[], extraEnv: Record<string, string> = {}): Promise<LoadResult[]> {
  if (files.length === 0) return [];
  const linker = nodeLayout(deps.platform).dynamicLinker;
  const linked = linker ? await tryLinkAll(deps, linker, files, extraEnv) : undefined;
  return linked ?? Promise.all(files.map(async (f) => (await tryLoadInNode(deps, [f], extraEnv))[0]!));
}

/** Whether `file` loads here, tried in a child process (a crash there cannot take the caller down). */
export async function tryLoad(deps: Deps, file: string, extraEnv: Record<string, string> = {}): Promise<LoadResult> {
  return (await tryLoadAll(deps, [file], extraEnv))[0]!;
}
