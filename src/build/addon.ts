// Builds the runtime addon (native/addon/*.c) against a prefix's headers and loader, like Triton builds its stub.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import { isXpuError, XpuError } from '../base/errors.js';
import { nativeDir } from '../package-dir.js';
import type { Reporter } from '../base/reporter.js';
import { compileSharedLibrary, type CompileResult, type CompileSpec } from './compile.js';
import type { Compiler, FinderResult } from './compilers.js';
import { describeTried } from '../base/finding.js';

export function addonSpec(prefix: string, platform: NodeJS.Platform, sourceDir = path.join(nativeDir(), 'addon')): CompileSpec {
  const layout = nodeLayout(platform);
  const p = layout.path;
  return {
    name: 'xpu_addon',
    sources: [p.join(sourceDir, 'xpu_addon.c')],
    includeDirs: [p.join(prefix, 'include')],
    libDirs: [p.join(prefix, 'lib')],
    libs: ['ze_loader'],
    rpath: layout.runpath ? [p.join(prefix, 'lib')] : [],
    outDir: p.join(prefix, 'lib', 'xpu-setup'),
  };
}

/** Picks the first compiler found, or fails listing everything tried and the remedy. */
export async function requireCompiler(deps: Deps, found?: FinderResult): Promise<Compiler> {
  // The finder loads with the first build, not with the no-op's look at the last one.
  const r = found ?? (await (await import('./compilers.js')).findCompilers(deps, 'c'));
  const c = r.found[0];
  if (c) return c;
  throw new XpuError('COMPILER', 'no C compiler found to build the runtime addon', {
    details: { tried: r.tried },
    hints: [
      ...describeTried(r.tried).map((t) => `tried ${t}`),
      nodeLayout(deps.platform).remedies.noCompiler,
    ],
  });
}

export interface AddonBuildOptions {
  deps: Deps;
  reporter: Reporter;
  compiler?: Compiler;
}

export async function buildAddon(prefix: string, opts: AddonBuildOptions): Promise<CompileResult> {
  const compiler = opts.compiler ?? (await requireCompiler(opts.deps));
  const task = opts.reporter.task('build runtime addon');
  try {
    const r = await compileSharedLibrary(addonSpec(prefix, opts.deps.platform), compiler, opts.deps);
    task.succeed(`runtime addon ${r.cached ? 'up to date' : 'built'}: ${r.output}`);
    opts.reporter.debug(`addon command: ${r.command}`);
    return r;
  } catch (e) {
    task.fail('runtime addon failed to build');
    if (isXpuError(e) && typeof e.details.output === 'string') opts.reporter.debug(`compiler output, in full:\n${e.details.output}`);
    throw e;
  }
}
