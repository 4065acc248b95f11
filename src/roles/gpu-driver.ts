// The gpu-driver role: Intel's Level Zero GPU driver (compute-runtime's libze_intel_gpu.so.1 and what it loads: IGC,
// gmmlib). The loader finds it by its file name on the library path the env files set, so it adds nothing there; a
// driver choice (the reference driver's) replaces that search, which is why the choice lists it too (loaderDrivers).
// Whether a loader version finds it on LD_LIBRARY_PATH alone was checked by running each loader
// (data/ze-loader-discovery.csv); for one that does not, the env files name the prefix's driver in that list.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseCsv } from '../machine/csv.js';
import { packagePath } from '../package-dir.js';
import { compareDebian, debianUpstream } from '../versions/order.js';
import type { Role, RoleTarget } from './role.js';
import { DRIVER_CHOICE } from './ze-driver.js';

/** The file name the loader looks for; the prefix's library directory holds it when this role is installed. */
export const GPU_DRIVER_LIBRARY = 'libze_intel_gpu.so.1';

/** One loader version, run: does it find a prefix's driver with only the prefix's lib/ on LD_LIBRARY_PATH? */
export interface LoaderDiscovery {
  loader: string;
  package: string;
  findsOnLibraryPath: boolean;
  checked: string;
}

export function parseLoaderDiscovery(text: string): LoaderDiscovery[] {
  return parseCsv(text, 'ze-loader-discovery.csv').map((r) => ({
    loader: r.loader!,
    package: r.package!,
    findsOnLibraryPath: r.finds_driver_on_ld_library_path === 'yes',
    checked: r.checked!,
  }));
}

export const DISCOVERY_URL = pathToFileURL(packagePath('data', 'ze-loader-discovery.csv'));
let cached: LoaderDiscovery[] | undefined;

export function loaderDiscovery(): LoaderDiscovery[] {
  cached ??= parseLoaderDiscovery(readFileSync(DISCOVERY_URL, 'utf8'));
  return cached;
}

/** The checked row that speaks for a loader version: the same version, else the newest checked one below it. */
export function discoveryFor(version: string | undefined, rows: readonly LoaderDiscovery[] = loaderDiscovery()): LoaderDiscovery | undefined {
  // A Debian revision or build suffix (1.8.12-1, 1.20.6-1+b1) is not part of the loader's version.
  if (!version || !/^\d/.test(version.trim())) return undefined;
  const v = debianUpstream(version);
  return rows.filter((r) => compareDebian(r.loader, v) <= 0).sort((a, b) => compareDebian(b.loader, a.loader))[0];
}

/**
 * The prefix's driver named for the loader (`ZE_ENABLE_ALT_DRIVERS`) only where that loader version does not find it
 * on LD_LIBRARY_PATH: the list replaces discovery, so the NPU driver and the system's drivers leave the process.
 */
export function gpuDriverEnv(t: Pick<RoleTarget, 'prefix' | 'layout' | 'loaderVersion'>, rows?: readonly LoaderDiscovery[]): Record<string, string> {
  const row = discoveryFor(t.loaderVersion, rows);
  if (!row || row.findsOnLibraryPath) return {};
  const sep = t.layout.prefixSeparator(t.prefix);
  return { [DRIVER_CHOICE]: [t.prefix.replace(/[\\/]+$/, ''), t.layout.sharedLibDir, GPU_DRIVER_LIBRARY].join(sep) };
}

export const gpuDriver: Role = {
  name: 'gpu-driver',
  title: 'the Intel GPU Level Zero driver',
  single: true,
  loaderDrivers: (t) => [t.layout.path.join(t.prefix, t.layout.sharedLibDir, GPU_DRIVER_LIBRARY)],
  drivesHostGpu: true,
  env: (t) => gpuDriverEnv(t),
};
