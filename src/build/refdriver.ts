// Builds the CPU reference Level Zero driver (native/refdriver) against a prefix and puts it in <prefix>/lib.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { osLayout } from '../platform/index.js';
import { EnvVars } from '../base/env-names.js';
import { chosenDrivers, referenceDriverIn } from '../roles/index.js';
import { XpuError } from '../base/errors.js';
import type { Reporter } from '../base/reporter.js';
import { nativeDir } from '../package-dir.js';
import { requireCompiler } from './addon.js';
import { compileSharedLibrary, lastBuilt, type CompileResult, type CompileSpec } from './compile.js';
import type { Receipt } from '../records/receipt.js';

export const REFDRIVER_NAME = 'libze_xpu_setup_refdriver';

/** The API version a Level Zero include dir declares (`ZE_API_VERSION_CURRENT` of its ze_api.h), as [major, minor]. */
export async function headersApiVersion(includeDir: string): Promise<[number, number] | undefined> {
  const text = await fs.readFile(path.join(includeDir, 'level_zero', 'ze_api.h'), 'utf8').catch(() => undefined);
  const m = text && /\bZE_API_VERSION_CURRENT\s*=\s*ZE_MAKE_VERSION\(\s*(\d+)\s*,\s*(\d+)\s*\)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * The headers the driver is built against: the prefix's when they declare a newer API than the copy shipped beside the
 * driver's sources (native/refdriver/include), else that copy. The driver fills only the slots a loader's version has,
 * so the newest headers serve old loaders too, while headers older than the loader would leave its newer slots empty.
 */
export async function refDriverIncludeDir(prefix: string, sourceDir = path.join(nativeDir(), 'refdriver')): Promise<string> {
  const own = path.join(sourceDir, 'include');
  const theirs = path.join(prefix, 'include');
  const [a, b] = await Promise.all([headersApiVersion(own), headersApiVersion(theirs)]);
  return b && (!a || b[0] > a[0] || (b[0] === a[0] && b[1] > a[1])) ? theirs : own;
}

export async function refDriverSpec(prefix: string, sourceDir = path.join(nativeDir(), 'refdriver')): Promise<CompileSpec> {
  const sources = (await fs.readdir(sourceDir)).filter((f) => f.endsWith('.c')).sort().map((f) => path.join(sourceDir, f));
  return {
    name: REFDRIVER_NAME,
    sources,
    includeDirs: [await refDriverIncludeDir(prefix, sourceDir)],
    libDirs: [],
    libs: ['OpenCL', 'dl', 'pthread'],
    extraFlags: ['-std=gnu11', '-fvisibility=hidden'],
    outDir: path.join(prefix, 'lib'),
  };
}

/** What the reference driver needs to build and run besides a C compiler, and the Debian package of each. */
interface Requirement {
  what: string;
  debian: string;
  present(deps: Deps): Promise<boolean>;
}

const anyExists = async (deps: Deps, paths: string[]) => (await Promise.all(paths.map((p) => deps.exists(p)))).some(Boolean);
const envDirs = (deps: Deps, name: keyof typeof EnvVars) => (deps.env[name] ?? '').split(path.delimiter).filter(Boolean);
/** `name` in any of `dirs` and any multiarch subdirectory of them (/usr/lib/x86_64-linux-gnu, ...). */
async function inLibDirs(deps: Deps, dirs: string[], name: string): Promise<boolean> {
  const candidates = await Promise.all(
    dirs.map(async (d) => [path.join(d, name), ...((await deps.readDir(d)) ?? []).filter((s) => s.endsWith('-linux-gnu')).map((s) => path.join(d, s, name))]),
  );
  return anyExists(deps, candidates.flat());
}
async function onPath(deps: Deps, tool: string): Promise<boolean> {
  return anyExists(deps, envDirs(deps, EnvVars.PATH).map((d) => path.join(d, tool)));
}

export const REFDRIVER_REQUIREMENTS: Requirement[] = [
  {
    what: 'OpenCL headers (CL/cl.h)',
    debian: 'opencl-headers',
    present: (deps) =>
      anyExists(deps, ['/usr/include', '/usr/local/include', ...envDirs(deps, EnvVars.CPATH), ...envDirs(deps, EnvVars.C_INCLUDE_PATH)].map((d) => path.join(d, 'CL', 'cl.h'))),
  },
  {
    what: 'the OpenCL ICD loader to link against (libOpenCL.so)',
    debian: 'ocl-icd-opencl-dev',
    present: (deps) => inLibDirs(deps, ['/usr/lib', '/usr/local/lib', '/lib', ...envDirs(deps, EnvVars.LIBRARY_PATH)], 'libOpenCL.so'),
  },
  {
    what: 'PoCL, the CPU OpenCL implementation the kernels run on',
    debian: 'pocl-opencl-icd',
    present: async (deps) =>
      deps.env[EnvVars.OCL_ICD_VENDORS] !== undefined || ((await deps.readDir('/etc/OpenCL/vendors')) ?? []).some((f) => /pocl/i.test(f)),
  },
  {
    what: 'llvm-spirv-15 (SPIR-V to LLVM bitcode)',
    debian: 'llvm-spirv-15',
    present: async (deps) => {
      const tool = deps.env[EnvVars.XPU_SETUP_LLVM_SPIRV];
      return tool ? deps.exists(tool) : onPath(deps, 'llvm-spirv-15');
    },
  },
];

/** Fails before any compiler runs when something the driver needs is missing, with the one apt line that fixes it. */
export async function checkRefDriverRequirements(deps: Deps): Promise<void> {
  const missing = (
    await Promise.all(REFDRIVER_REQUIREMENTS.map(async (r) => ((await r.present(deps)) ? undefined : r)))
  ).filter((r): r is Requirement => r !== undefined);
  if (!missing.length) return;
  throw new XpuError('COMPILER', `the CPU reference driver cannot be built or run here: missing ${missing.map((r) => r.what).join('; ')}`, {
    details: { missing: missing.map((r) => ({ what: r.what, debian: r.debian })) },
    hints: [
      `Debian/Ubuntu: sudo apt-get install -y ${missing.map((r) => r.debian).join(' ')}`,
      'or leave out --refdriver',
    ],
  });
}

/**
 * The driver an earlier run built into this prefix, when it can stand as it is: that run was of this xpu-setup version
 * (the driver's sources ship with it), it recorded the library among the prefix's files, and the env files select it.
 * Reads files only: no compiler is started.
 */
export async function keptRefDriver(prefix: string, receipt: Receipt, version: string, deps: Pick<Deps, 'readFile' | 'exists'>): Promise<string | undefined> {
  if (receipt.tool.version !== version) return undefined;
  const output = await lastBuilt({ name: REFDRIVER_NAME, outDir: path.join(prefix, 'lib') }, deps);
  if (!output || referenceDriverIn(chosenDrivers(receipt.extraEnv)) !== output) return undefined;
  const rel = path.relative(prefix, output).split(path.sep).join('/');
  return receipt.builds?.refdriver?.includes(rel) ? output : undefined;
}

export async function buildRefDriver(prefix: string, opts: { deps: Deps; reporter: Reporter }): Promise<CompileResult> {
  if (!osLayout(opts.deps.platform)?.refDriver) {
    throw new XpuError('USAGE', '--refdriver runs on Linux only (it drives PoCL, the CPU OpenCL implementation)', {
      hints: ['leave out --refdriver on this platform'],
    });
  }
  await checkRefDriverRequirements(opts.deps);
  const compiler = await requireCompiler(opts.deps);
  if (compiler.style !== 'gnu') throw new XpuError('COMPILER', `the reference driver needs a GNU-style compiler, found ${compiler.path}`);
  const task = opts.reporter.task('build CPU reference driver');
  try {
    const r = await compileSharedLibrary(await refDriverSpec(prefix), compiler, opts.deps);
    task.succeed(`CPU reference driver ${r.cached ? 'up to date' : 'built'}: ${r.output}`);
    return r;
  } catch (e) {
    task.fail('CPU reference driver failed to build');
    throw e;
  }
}
