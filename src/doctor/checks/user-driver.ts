// Check: the Level Zero GPU driver (libze_intel_gpu.so.1 / ze_intel_gpu64.dll) is installed and loads.
import { nodeLayout } from '../../platform/index.js';
import { tryLoad } from '../../machine/load-check.js';
import { detectUserModeDriver, LINUX_UMD } from '../../machine/user-driver.js';
import type { Check } from '../types.js';
import { activeReferenceDriver, computeRuntimeInstallHint, gpuDriverFix, prefixFirstEnv } from './shared.js';

export const userDriverCheck: Check = {
  id: 'user-driver',
  title: 'Level Zero GPU driver',
  group: 'driver',
  async run(ctx) {
    const [{ found: gpus }, ld] = await Promise.all([ctx.facts.gpus(), ctx.facts.ldcache()]);
    const hasGpu = gpus.intel.length > 0;
    // The driver a program started after loading the prefix's env file gets (the prefix's own, when it has one).
    const { env, libDir } = await prefixFirstEnv(ctx);
    const seen = { ...ctx.deps, env };
    const { found, tried } = await detectUserModeDriver(seen, { ldcache: ld.found, gpus: gpus.intel });
    const packages = found.packages.map((p) => `${p.name} ${p.version}`);
    const details: Record<string, unknown> = { packages, tried };
    // The display driver's answer (Windows) says where its DLL is; a kernel-module driver's library is searched for.
    if (found.windows) {
      const w = found.windows;
      details.windows = w;
      if (!hasGpu) return { status: 'skip', message: 'no Intel GPU', details };
      if (w.dll) return { status: 'ok', message: `${w.dll} (driver ${w.driverVersion ?? 'version unknown'})`, details };
      return {
        status: 'fail',
        message: w.driverStoreDir
          ? `the Intel driver ${w.driverVersion ?? ''} in ${w.driverStoreDir} has no ze_intel_gpu64.dll (too old for Level Zero?)`
          : 'no Intel display driver folder found in the DriverStore',
        fix: 'install the current Intel graphics driver (it ships the Level Zero driver and ze_loader.dll), then reboot',
        details,
      };
    }
    const chosen = found.library?.chosen;
    const host = await ctx.facts.host();
    if (!chosen && !hasGpu) {
      const ref = await activeReferenceDriver(ctx);
      if (ref) return { status: 'skip', message: `not needed: no Intel GPU, and the CPU reference driver ${ref.library} is selected`, details };
    }
    if (!chosen) {
      return {
        status: hasGpu ? 'fail' : 'warn',
        message: `${LINUX_UMD} not found${hasGpu ? ': Level Zero has no driver for the GPU' : ' (it is needed once an Intel GPU is present)'}${packages.length ? `; installed: ${packages.join(', ')}` : ''}`,
        fix: await gpuDriverFix(ctx, host),
        details,
      };
    }
    const load = await tryLoad(seen, chosen.path);
    details.load = load;
    const umdPkg = found.packages.find((p) => /ze-intel-gpu|level-zero-gpu|compute-runtime|intel-level-zero/.test(p.name));
    const own = nodeLayout(ctx.deps.platform).path.dirname(chosen.path) === libDir;
    const what = `${chosen.path}${own ? " (the prefix's, found once its env file is loaded)" : umdPkg ? ` (${umdPkg.name} ${umdPkg.version})` : ''}`;
    if (!load.ok) {
      return {
        status: 'fail',
        message: `${what} does not load: ${load.diagnosis?.summary ?? load.error}`,
        fix: load.diagnosis?.fix ?? `reinstall it: ${computeRuntimeInstallHint(host)}`,
        details,
      };
    }
    return { status: 'ok', message: `${what} loads`, details };
  },
};
