// The Intel GPU user-mode driver for Level Zero: libze_intel_gpu.so.1 on Linux, ze_intel_gpu64.dll in the DriverStore on Windows.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import type { IntelGpu } from './gpu.js';
import type { LdconfigEntry } from './ldconfig.js';
import { resolveLibrary, type LibraryResolution } from './loaders.js';
import { queryPackages, type InstalledPackage } from './packages.js';
import type { Finding } from './types.js';

export const LINUX_UMD = 'libze_intel_gpu.so.1';
export const WINDOWS_UMD = 'ze_intel_gpu64.dll';

export interface UserModeDriver {
  /** Linux: where the loader would find the driver library. */
  library?: LibraryResolution;
  /** Linux: GPU stack packages that are installed. */
  packages: InstalledPackage[];
  /** Windows: the display driver's DriverStore folder, the L0 driver DLL in it, and the driver version. */
  windows?: { driverStoreDir?: string; dll?: string; driverVersion?: string };
}

export async function detectUserModeDriver(
  deps: Deps,
  opts: { ldcache?: LdconfigEntry[]; gpus?: IntelGpu[] } = {},
): Promise<Finding<UserModeDriver>> {
  if (nodeLayout(deps.platform).gpuDriver === 'display-driver') {
    const gpu = (opts.gpus ?? []).find((g) => g.windows?.driverStoreDir) ?? opts.gpus?.[0];
    const w: NonNullable<UserModeDriver['windows']> = {};
    const tried: string[] = [];
    if (gpu?.windows?.driverVersion) w.driverVersion = gpu.windows.driverVersion;
    if (gpu?.windows?.driverStoreDir) {
      w.driverStoreDir = gpu.windows.driverStoreDir;
      const dll = path.win32.join(gpu.windows.driverStoreDir, WINDOWS_UMD);
      if (await deps.exists(dll)) w.dll = dll;
      tried.push(`${dll}: ${w.dll ? 'found' : 'not there'}`);
    } else {
      tried.push('no Intel display driver folder in the DriverStore');
    }
    return { found: { packages: [], windows: w }, tried };
  }
  const library = await resolveLibrary(deps, LINUX_UMD, { ldcache: opts.ldcache });
  const pk = await queryPackages(deps);
  return { found: { library, packages: pk.found }, tried: [...library.tried, ...pk.tried] };
}
