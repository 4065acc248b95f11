// Installed package versions: dpkg's database read as files, else dpkg-query or rpm, parsed by pure functions.
import type { Deps } from '../base/deps.js';
import type { Finding } from '../base/finding.js';
import { DPKG_ADMIN_DIR, dpkgOwnerFromLists, installedOf, readDpkgStatus } from './dpkg-db.js';

export interface InstalledPackage {
  name: string;
  version: string;
  manager: 'dpkg' | 'rpm';
}

/** The packages that carry the Intel GPU user-mode driver, the L0 loader and OpenCL across distros and years. */
export const GPU_STACK_PACKAGES = [
  'libze-intel-gpu1',
  'intel-level-zero-gpu',
  'libze1',
  'level-zero',
  'oneapi-level-zero',
  'libze-dev',
  'level-zero-devel',
  'oneapi-level-zero-devel',
  'intel-opencl-icd',
  'intel-opencl',
  'intel-compute-runtime',
  'libigc1',
  'libigc2',
  'intel-igc-core',
  'intel-igc-core-2',
];

/** dpkg-query and rpm expand the \\t and \\n escapes themselves. */
export const DPKG_FORMAT = '${Package}\\t${Version}\\t${db:Status-Abbrev}\\n';

/** Output of `dpkg-query -W -f='${Package}\t${Version}\t${db:Status-Abbrev}\n' names...`; keeps installed ones ("ii"). */
export function parseDpkgQuery(text: string): InstalledPackage[] {
  const out: InstalledPackage[] = [];
  for (const line of text.split('\n')) {
    const [name, version, status] = line.split('\t');
    if (!name || !version || !status) continue;
    if (!/^[ih]i/.test(status.trim())) continue;
    out.push({ name: name.replace(/:.*$/, ''), version, manager: 'dpkg' });
  }
  return out;
}

export const RPM_FORMAT = '%{NAME}\\t%{VERSION}-%{RELEASE}\\n';

/** Output of `rpm -q --qf '%{NAME}\t%{VERSION}-%{RELEASE}\n' names...`; "package X is not installed" lines are skipped. */
export function parseRpmQuery(text: string): InstalledPackage[] {
  const out: InstalledPackage[] = [];
  for (const line of text.split('\n')) {
    const [name, version] = line.split('\t');
    if (!name || !version || /is not installed/.test(line)) continue;
    out.push({ name, version: version.trim(), manager: 'rpm' });
  }
  return out;
}

/** `dpkg-query -S /path` prints "libze1:amd64: /usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0". */
export function parseDpkgSearch(text: string): string | undefined {
  const m = /^([^:\s,]+)(?::[a-z0-9]+)?(?:, [^:]+)*: \//m.exec(text);
  return m?.[1];
}

function describe(found: InstalledPackage[]): string {
  return found.map((p) => `${p.name} ${p.version}`).join(', ') || 'none of the GPU stack packages installed';
}

/** dpkg's status file answers what `dpkg-query -W` would, without a process; the programs are the fallback. */
export async function queryPackages(deps: Deps, names: readonly string[] = GPU_STACK_PACKAGES): Promise<Finding<InstalledPackage[]>> {
  const status = await readDpkgStatus(deps);
  if (status) {
    const found = installedOf(status, names).map((p): InstalledPackage => ({ name: p.name, version: p.version, manager: 'dpkg' }));
    return { found, tried: [`${DPKG_ADMIN_DIR}/status: ${describe(found)}`] };
  }
  const d = await deps.exec('dpkg-query', ['-W', `-f=${DPKG_FORMAT}`, ...names], { timeoutMs: 10_000 });
  if (!d.failedToStart) {
    const found = parseDpkgQuery(d.stdout);
    return { found, tried: [`dpkg-query: ${describe(found)}`] };
  }
  const r = await deps.exec('rpm', ['-q', '--qf', RPM_FORMAT, ...names], { timeoutMs: 10_000 });
  if (!r.failedToStart) {
    const found = parseRpmQuery(r.stdout);
    return { found, tried: [`rpm -q: ${describe(found)}`] };
  }
  return { found: [], tried: ['no dpkg-query or rpm on this system'] };
}

/** The package that owns a file and its version, when a package manager knows it. */
export async function owningPackage(deps: Deps, file: string): Promise<InstalledPackage | undefined> {
  if (await readDpkgStatus(deps)) {
    const owner = await dpkgOwnerFromLists(deps, file, GPU_STACK_PACKAGES);
    if (owner) return 'name' in owner ? (await queryPackages(deps, [owner.name])).found[0] : undefined;
  }
  const d = await deps.exec('dpkg-query', ['-S', file], { timeoutMs: 10_000 });
  if (!d.failedToStart) {
    const name = d.exitCode === 0 ? parseDpkgSearch(d.stdout) : undefined;
    if (!name) return undefined;
    return (await queryPackages(deps, [name])).found[0];
  }
  const r = await deps.exec('rpm', ['-qf', '--qf', RPM_FORMAT, file], { timeoutMs: 10_000 });
  if (!r.failedToStart && r.exitCode === 0) return parseRpmQuery(r.stdout)[0];
  return undefined;
}
