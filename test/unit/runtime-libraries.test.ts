// The runtime-library rule as a pure function: runtime packages installed only where the host lacks what the binaries need, never older than the host's copy.
import { describe, expect, it } from 'vitest';
import type { ElfNeeds } from '../../src/formats/elf.js';
import type { InstallPlan } from '../../src/records/plan.js';
import { decideRuntime, settleRuntime, type HostLibrary, type RuntimePackage } from '../../src/plan/runtime-libraries.js';
import { realDeps } from '../../src/cli/real-deps.js';

const elf = (o: Partial<ElfNeeds>): ElfNeeds => ({ needed: [], runpath: [], rpath: [], versionNeeds: [], versionDefs: [], ...o });
const upTo = (fam: string, last: number) => [fam.replace(/\.$/, ''), ...Array.from({ length: last }, (_, i) => `${fam}${i + 1}`)];
/** libstdc++'s version nodes as GCC 12 (Debian 12), 14 and a later GCC define them. */
const GCC12 = [...upTo('GLIBCXX_3.4.', 30), ...upTo('CXXABI_1.3.', 13)];
const GCC14 = [...upTo('GLIBCXX_3.4.', 33), ...upTo('CXXABI_1.3.', 15)];

const loaderNeeding = (...versions: string[]) => ({
  by: 'level-zero 1.29.0: libze_loader.so.1.29.0',
  elf: elf({ needed: ['libstdc++.so.6', 'libc.so.6'], versionNeeds: [{ file: 'libstdc++.so.6', versions }] }),
});

/** conda-forge's GCC 14.2.0 runtime packages, as read from their archives. */
function gcc14(libstdcxxDefs = GCC14): RuntimePackage[] {
  return [
    {
      key: 'libstdcxx', label: 'libstdcxx 14.2.0', name: 'libstdcxx', depends: ['__glibc >=2.17,<3.0.a0', 'libgcc 14.2.0 h767d61c_2'],
      libraries: [
        { name: 'libstdc++.so.6.0.33', elf: elf({ needed: ['libgcc_s.so.1'], versionNeeds: [{ file: 'libgcc_s.so.1', versions: ['GCC_3.0'] }], versionDefs: libstdcxxDefs }) },
        { name: 'libstdc++.so.6', linkTo: 'libstdc++.so.6.0.33' },
      ],
    },
    { key: 'libgcc', label: 'libgcc 14.2.0', name: 'libgcc', depends: ['_openmp_mutex >=4.5'], libraries: [{ name: 'libgcc_s.so.1', elf: elf({ versionDefs: ['GCC_3.0', 'GCC_14.0.0'] }) }] },
    { key: 'libgomp', label: 'libgomp 14.2.0', name: 'libgomp', depends: [], libraries: [{ name: 'libgomp.so.1.0.0', elf: elf({ versionDefs: ['GOMP_1.0', 'GOMP_5.1.2'] }) }] },
    {
      key: '_openmp_mutex', label: '_openmp_mutex 4.5', name: '_openmp_mutex', depends: ['_libgcc_mutex 0.1 conda_forge', 'libgomp >=7.5.0'],
      libraries: [{ name: 'libgomp.so.1', linkTo: 'libgomp.so.1.0.0' }],
    },
    { key: '_libgcc_mutex', label: '_libgcc_mutex 0.1', name: '_libgcc_mutex', depends: [], libraries: [] },
  ];
}

/** Debian 12: libstdc++ from GCC 12, libgcc_s, libc; no libgomp unless `gomp`. */
function debian12(overrides: Record<string, string[] | undefined> = {}): (lib: string) => HostLibrary | undefined {
  const defs: Record<string, string[] | undefined> = { 'libstdc++.so.6': GCC12, 'libgcc_s.so.1': ['GCC_3.0', 'GCC_12.0.0'], 'libc.so.6': ['GLIBC_2.2.5'], ...overrides };
  return (lib) => (defs[lib] ? { path: `/usr/lib/x86_64-linux-gnu/${lib}`, defs: defs[lib]! } : undefined);
}

const installed = (d: Map<string, { install: boolean }> | undefined) => [...(d ?? [])].filter(([, v]) => v.install).map(([k]) => k).sort();

describe('the runtime-library rule', () => {
  it('installs libstdcxx when the loader needs GLIBCXX_3.4.33 and the host has 3.4.30, and says so', () => {
    const d = decideRuntime([loaderNeeding('GLIBCXX_3.4.21', 'GLIBCXX_3.4.33')], gcc14(), debian12(), ['libze_loader.so.1.29.0', 'libze_loader.so.1']);
    expect(d?.get('libstdcxx')).toEqual({ install: true, why: 'needs GLIBCXX_3.4.33, host has 3.4.30' });
    // libstdc++ 14 needs libgcc_s at GCC_3.0, which the host's has: libgcc and the OpenMP packages stay out.
    expect(installed(d)).toEqual(['libstdcxx']);
    expect(d?.get('libgcc')).toEqual({ install: false, why: 'satisfied by the host' });
  });

  it('installs nothing when the host meets every need (a loader needing only GLIBCXX_3.4.30 on Debian 12), without reading the runtime packages', () => {
    const unread = gcc14().map((p) => ({ ...p, libraries: undefined }));
    const d = decideRuntime([loaderNeeding('GLIBCXX_3.4.30')], unread, debian12(), []);
    expect(installed(d)).toEqual([]);
    expect(d?.get('libstdcxx')?.why).toBe('satisfied by the host');
  });

  it('asks for the runtime packages to be read when a need is unmet and they are not', () => {
    const unread = gcc14().map((p) => ({ ...p, libraries: undefined }));
    expect(decideRuntime([loaderNeeding('GLIBCXX_3.4.33')], unread, debian12(), [])).toBeUndefined();
  });

  it('never installs a copy older than the host\'s, even for a need the host lacks: it would shadow the newer one', () => {
    // A host whose libstdc++ is newer (GLIBCXX_3.4.34) but lacks a CXXABI node the binary needs, which the package has.
    const newerHost = debian12({ 'libstdc++.so.6': [...upTo('GLIBCXX_3.4.', 34), ...upTo('CXXABI_1.3.', 14)] });
    const d = decideRuntime([loaderNeeding('CXXABI_1.3.15')], gcc14(), newerHost, []);
    expect(installed(d)).toEqual([]);
    expect(d?.get('libstdcxx')?.why).toBe(
      'needs CXXABI_1.3.15, host has 1.3.14, but its libstdc++.so.6 is older than this machine\'s /usr/lib/x86_64-linux-gnu/libstdc++.so.6 (it lacks GLIBCXX_3.4.34): not installed, it would shadow the newer one',
    );
  });

  it('does not install a package whose copy lacks the need too', () => {
    const d = decideRuntime([loaderNeeding('GLIBCXX_3.4.33')], gcc14([...upTo('GLIBCXX_3.4.', 32), ...upTo('CXXABI_1.3.', 14)]), debian12(), []);
    expect(installed(d)).toEqual([]);
    expect(d?.get('libstdcxx')?.why).toBe('needs GLIBCXX_3.4.33, host has 3.4.30, and its libstdc++.so.6 lacks GLIBCXX_3.4.33 too: not installed');
  });

  it('brings libgomp.so.1 where the host has none: _openmp_mutex\'s link, libgomp\'s file and the mutex they depend on', () => {
    const omp = { by: 'x 1: libx.so', elf: elf({ needed: ['libgomp.so.1'], versionNeeds: [{ file: 'libgomp.so.1', versions: ['GOMP_1.0'] }] }) };
    const d = decideRuntime([omp], gcc14(), debian12(), ['libx.so']);
    expect(installed(d)).toEqual(['_libgcc_mutex', '_openmp_mutex', 'libgomp']);
    expect(d?.get('_openmp_mutex')?.why).toBe('needs libgomp.so.1, which this machine does not have');
    expect(d?.get('libgomp')?.why).toBe("holds libgomp.so.1.0.0, which _openmp_mutex 4.5's libgomp.so.1 links to");
    expect(d?.get('_libgcc_mutex')?.why).toBe('needed by _openmp_mutex 4.5');
  });

  it('counts a library the tree itself brings as met', () => {
    const d = decideRuntime([loaderNeeding('GLIBCXX_3.4.33')], gcc14(), debian12(), ['libstdc++.so.6']);
    expect(installed(d)).toEqual([]);
  });
});

describe('a plan for another machine', () => {
  it('keeps every runtime package, saying why, once for all components, and reads no archive', async () => {
    const archive = (pkg: string, runtime?: object) => ({ package: pkg, version: '1', filename: `${pkg}.conda`, url: `https://example.invalid/${pkg}.conda`, sha256: pkg.padEnd(64, '0'), format: 'conda' as const, map: [], ...(runtime ? { runtime } : {}) });
    const plan = {
      platform: 'linux-x64', host: { native: false }, prefix: '/nowhere', planKey: 'k',
      components: [
        { name: 'level-zero', status: 'planned', notes: [], archives: [archive('level-zero'), archive('libstdcxx', {})] },
        { name: 'unified-runtime', status: 'planned', notes: [], archives: [archive('intel-cmplr-lib-ur'), archive('libstdcxx', {})] },
      ],
    } as unknown as InstallPlan;
    const decided = await settleRuntime(plan, realDeps(), [], async () => {
      throw new Error('no archive is read for another machine');
    });
    expect(decided.components[0]!.archives.map((a) => [a.package, a.runtime])).toEqual([
      ['level-zero', undefined],
      ['libstdcxx', { install: true, why: 'planned for another machine, whose libraries cannot be read from here' }],
    ]);
    // Needed by both components, unpacked once: with the first.
    expect(decided.components[1]!.archives.map((a) => a.package)).toEqual(['intel-cmplr-lib-ur']);
    expect(decided.components[1]!.notes).toEqual(['runtime library libstdcxx 1: installed with level-zero']);
    expect(decided.planKey).not.toBe('k');
  });
});
