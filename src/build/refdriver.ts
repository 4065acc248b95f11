// Builds the CPU reference Level Zero driver (native/refdriver) against a prefix and puts it in <prefix>/lib.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { nativeDir } from '../package-dir.js';
import { requireCompiler } from './addon.js';
import { compileSharedLibrary, type CompileResult, type CompileSpec } from './compile.js';

export const REFDRIVER_NAME = 'libze_xpu_setup_refdriver';

export async function refDriverSpec(prefix: string, sourceDir = path.join(nativeDir(), 'refdriver')): Promise<CompileSpec> {
  const sources = (await fs.readdir(sourceDir)).filter((f) => f.endsWith('.c')).sort().map((f) => path.join(sourceDir, f));
  return {
    name: REFDRIVER_NAME,
    sources,
    includeDirs: [path.join(prefix, 'include')],
    libDirs: [],
    libs: ['OpenCL', 'dl', 'pthread'],
    extraFlags: ['-std=gnu11', '-fvisibility=hidden'],
    outDir: path.join(prefix, 'lib'),
  };
}

export async function buildRefDriver(prefix: string, opts: { deps: Deps; reporter: Reporter }): Promise<CompileResult> {
  if (opts.deps.platform !== 'linux') {
    throw new XpuError('USAGE', '--refdriver runs on Linux only (it drives PoCL, the CPU OpenCL implementation)', {
      hints: ['leave out --refdriver on this platform'],
    });
  }
  const compiler = await requireCompiler(opts.deps);
  if (compiler.style !== 'gnu') throw new XpuError('COMPILER', `the reference driver needs a GNU-style compiler, found ${compiler.path}`);
  const task = opts.reporter.task('build CPU reference driver');
  try {
    const r = await compileSharedLibrary(await refDriverSpec(prefix), compiler, opts.deps);
    task.succeed(`CPU reference driver ${r.cached ? 'up to date' : 'built'}: ${r.output}`);
    return r;
  } catch (e) {
    task.fail('CPU reference driver failed to build');
    if (e instanceof XpuError && e.code === 'BUILD') {
      e.hints.unshift('the reference driver needs the OpenCL headers and ICD loader (Debian: apt-get install ocl-icd-opencl-dev opencl-headers), and at run time pocl-opencl-icd and llvm-spirv-15');
    }
    throw e;
  }
}
