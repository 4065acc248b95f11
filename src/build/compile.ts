// Compiles C sources into a shared library (GNU or MSVC style), cached by a hash of every input that shapes the output.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import { XpuError } from '../base/errors.js';
import type { Compiler } from './compilers.js';

export interface CompileSpec {
  /** Base name of the library, e.g. "xpu_addon". */
  name: string;
  sources: string[];
  includeDirs: string[];
  libDirs: string[];
  /** Library names without prefix/suffix: "ze_loader" becomes -lze_loader or ze_loader.lib. */
  libs: string[];
  defines?: string[];
  /** GNU style only: run-time search paths baked into the library. */
  rpath?: string[];
  extraFlags?: string[];
  outDir: string;
}

export interface CompileResult {
  output: string;
  cached: boolean;
  key: string;
  command: string;
  compiler: Compiler;
  /** The build stamp written beside the output (what the next build compares its inputs with). */
  stamp: string;
}

export interface Invocation {
  file: string;
  args: string[];
}

/** A Windows shared library is a DLL whichever compiler style made it (mingw-w64 gcc and clang included). */
function libExt(style: Compiler['style'], platform: NodeJS.Platform): string {
  return style === 'msvc' ? '.dll' : nodeLayout(platform).sharedLibSuffix;
}

/** The compiler command line for a spec: pure, so both styles are tested on any OS. */
export function compileInvocation(spec: CompileSpec, compiler: Compiler, output: string, platform: NodeJS.Platform = 'linux'): Invocation {
  if (compiler.style === 'msvc') {
    return {
      file: compiler.path,
      args: [
        '/nologo', '/LD', '/MD', '/O2', '/W3',
        ...(spec.defines ?? []).map((d) => `/D${d}`),
        ...spec.includeDirs.map((d) => `/I${d}`),
        ...(spec.extraFlags ?? []),
        ...spec.sources,
        `/Fe:${output}`,
        '/link',
        ...spec.libDirs.map((d) => `/LIBPATH:${d}`),
        ...spec.libs.map((l) => `${l}.lib`),
      ],
    };
  }
  return {
    file: compiler.path,
    args: [
      // -fPIC where the layout asks for it (Windows code is position-independent already; there it draws warnings).
      '-shared', ...nodeLayout(platform).sharedLibFlags, '-O2',
      ...(spec.defines ?? []).map((d) => `-D${d}`),
      ...spec.includeDirs.map((d) => `-I${d}`),
      ...(spec.extraFlags ?? []),
      ...spec.sources,
      '-o', output,
      ...spec.libDirs.map((d) => `-L${d}`),
      ...spec.libs.map((l) => `-l${l}`),
      // -Xlinker hands the path on whole; -Wl,-rpath,<path> would split a path holding a comma.
      ...(spec.rpath ?? []).flatMap((r) => ['-Xlinker', '-rpath', '-Xlinker', r]),
    ],
  };
}

export function quoteArg(a: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(a) ? a : `"${a.replace(/(["\\$`])/g, '\\$1')}"`;
}

export function commandLine(inv: Invocation): string {
  return [inv.file, ...inv.args].map(quoteArg).join(' ');
}

/** MSVC from vswhere needs vcvars64.bat first; it goes through cmd.exe in one line. */
function wrapForVcvars(inv: Invocation, compiler: Compiler): Invocation {
  if (compiler.style !== 'msvc' || !compiler.vcvars) return inv;
  const line = [inv.file, ...inv.args].map((a) => `"${a}"`).join(' ');
  return { file: 'cmd.exe', args: ['/d', '/s', '/c', `"call "${compiler.vcvars}" >nul && ${line}"`] };
}

async function listHeaders(dir: string, deps: Pick<Deps, 'readDir'>, depth = 0): Promise<string[]> {
  const entries = await deps.readDir(dir);
  if (!entries || depth > 6) return [];
  const out: string[] = [];
  for (const e of entries.sort()) {
    const full = path.join(dir, e);
    if (/\.(h|hpp|inc|def)$/i.test(e)) out.push(full);
    else if (!e.includes('.')) out.push(...(await listHeaders(full, deps, depth + 1)));
  }
  return out;
}

/** sha256 over sources, every header under the include dirs, the compiler's identity and the command shape. */
export async function buildKey(spec: CompileSpec, compiler: Compiler, deps: Pick<Deps, 'readDir' | 'readFile' | 'platform'>): Promise<string> {
  const h = createHash('sha256');
  const add = (label: string, value: string) => h.update(`${label}\0${value.length}\0${value}\0`);
  for (const s of spec.sources) {
    const text = await deps.readFile(s);
    if (text === undefined) throw new XpuError('BUILD', `source file not found: ${s}`);
    add('source', path.basename(s));
    add('content', text);
  }
  for (const dir of spec.includeDirs) {
    for (const f of await listHeaders(dir, deps)) {
      add('header', path.relative(dir, f));
      add('content', (await deps.readFile(f)) ?? '');
    }
  }
  add('compiler', `${compiler.style}|${compiler.path}|${compiler.version}`);
  add('command', JSON.stringify(compileInvocation({ ...spec, outDir: '' }, compiler, '<out>', deps.platform)));
  return h.digest('hex');
}

interface Stamp {
  key: string;
  output: string;
  command: string;
}

function stampPathOf(spec: Pick<CompileSpec, 'name' | 'outDir'>): string {
  return path.join(spec.outDir, `${spec.name}.build.json`);
}

/** The library the last successful build of `spec` produced, if it is still there (no compiler needed). */
export async function lastBuilt(spec: Pick<CompileSpec, 'name' | 'outDir'>, deps: Pick<Deps, 'readFile' | 'exists'>): Promise<string | undefined> {
  const text = await deps.readFile(stampPathOf(spec));
  const output = text ? (JSON.parse(text) as Partial<Stamp>).output : undefined;
  return output && (await deps.exists(output)) ? output : undefined;
}

const TAIL_LINES = 20;

/** The last lines of a compiler's output, saying how many came before (the whole text is in the error's details). */
export function outputTail(text: string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(-TAIL_LINES);
  const skipped = lines.length - shown.length;
  return [
    skipped > 0 ? `compiler output (last ${shown.length} of ${lines.length} lines; --verbose shows all):` : 'compiler output:',
    ...shown.map((l) => `  ${l}`),
  ];
}

/** Compiles unless a library built from identical inputs is already there; a failure carries the command and output. */
export async function compileSharedLibrary(spec: CompileSpec, compiler: Compiler, deps: Deps): Promise<CompileResult> {
  const key = await buildKey(spec, compiler, deps);
  const output = path.join(spec.outDir, `${spec.name}-${key.slice(0, 16)}${libExt(compiler.style, deps.platform)}`);
  const stampPath = stampPathOf(spec);
  const stamp = await deps.readFile(stampPath).then((t) => (t ? (JSON.parse(t) as Stamp) : undefined)).catch(() => undefined);
  const inv = compileInvocation(spec, compiler, output, deps.platform);
  const command = commandLine(inv);
  if (stamp?.key === key && stamp.output === output && (await deps.exists(output))) {
    return { output, cached: true, key, command: stamp.command, compiler, stamp: stampPath };
  }
  await fs.mkdir(spec.outDir, { recursive: true });
  const tmp = `${output}.tmp-${process.pid}`;
  const tmpInv = compileInvocation(spec, compiler, tmp, deps.platform);
  const workDir = await fs.mkdtemp(path.join(spec.outDir, '.build-'));
  try {
    const run = wrapForVcvars(tmpInv, compiler);
    const r = await deps.exec(run.file, run.args, { cwd: workDir, timeoutMs: 300_000 });
    if (r.exitCode !== 0 || !(await deps.exists(tmp))) {
      const text = `${r.stdout}${r.stderr}`.trim() || r.failedToStart || '(no output)';
      throw new XpuError('BUILD', [
        `compiling ${spec.name} failed with ${compiler.via} (exit ${r.exitCode})`,
        `command: ${command}`,
        ...outputTail(text),
      ].join('\n'), {
        details: { command, output: text, exitCode: r.exitCode, compiler: compiler.path },
        hints: ['fix the error above, or point CC at another compiler'],
      });
    }
    await fs.rename(tmp, output);
    await fs.writeFile(stampPath, JSON.stringify({ key, output, command } satisfies Stamp, null, 2) + '\n');
    if (stamp && stamp.output !== output) await fs.rm(stamp.output, { force: true });
    return { output, cached: false, key, command, compiler, stamp: stampPath };
  } finally {
    await fs.rm(tmp, { force: true });
    // Windows keeps a directory busy for a moment after the compiler that had it as its working directory exits
    // (EBUSY): removal is retried, and one still left is a `.build-` leftover, which the prefix's checks know as the tool's own.
    await fs.rm(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }).catch(() => undefined);
  }
}
