// The apt kind's dependency closure over captured real answers: Debian 12's `apt-cache show` of compute-runtime 22.43
// and its IGC, gmmlib and opencl-clang packages, and a dpkg status file of a machine with the LLVM 14 runtime.
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Deps, ExecResult } from '../../src/base/deps.js';
import type { Host } from '../../src/platform/types.js';
import { apt, meetsRelation, parseAptCacheShow } from '../../src/kinds/apt.js';
import { parseRelationGroup } from '../../src/formats/deb.js';
import { NotAvailable, type SourceContext } from '../../src/kinds/kind.js';
import { silentReporter } from '../../src/base/reporter.js';
import { absentFiles } from '../fixtures/detect/fake-deps.js';
import { openGateway } from '../../src/index/gateway.js';

const fixture = (name: string): string => fs.readFileSync(new URL(`../fixtures/apt/${name}`, import.meta.url), 'utf8');
const SHOW = fixture('bookworm-gpu-driver.apt-cache-show.txt');
const STATUS = fixture('bookworm-host.dpkg-status.txt');

const debian: Host = {
  platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36',
  distro: { id: 'debian', versionId: '12', idLike: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' },
};

/**
 * apt-cache over the captured stanzas, as it answers: `show` with every stanza of the names asked for, `policy` with
 * each name's candidate (the first stanza's version, or the one `pinned` names), unknown and purely virtual names left
 * out of both.
 */
function machine(status: string | undefined, show = SHOW, pinned: Record<string, string> = {}): { deps: Deps; asked: string[][] } {
  const stanzas = show.split(/\n\s*\n/).filter((s) => s.trim());
  const field = (s: string, f: string) => new RegExp(`^${f}: (\\S+)`, 'm').exec(s)![1]!;
  const asked: string[][] = [];
  const deps: Deps = {
    platform: 'linux', arch: 'x64', env: {},
    exec: async (_file, args): Promise<ExecResult> => {
      asked.push(args);
      const names = args.slice(1);
      const mine = stanzas.filter((s) => names.includes(field(s, 'Package')));
      if (args[0] === 'policy') {
        const out = names.filter((n) => mine.some((s) => field(s, 'Package') === n)).map((n) => `${n}:\n  Installed: (none)\n  Candidate: ${pinned[n] ?? field(mine.find((s) => field(s, 'Package') === n)!, 'Version')}\n  Version table:\n`);
        return { exitCode: 0, stdout: out.join(''), stderr: '' };
      }
      const out = mine.join('\n\n');
      return { exitCode: out ? 0 : 100, stdout: out ? `${out}\n` : '', stderr: out ? '' : 'E: No packages found' };
    },
    readFile: async (p) => (p === '/var/lib/dpkg/status' ? status : undefined),
    readDir: async () => undefined, readLink: async () => undefined, exists: async () => false, now: () => 0,
    ...absentFiles,
  };
  return { deps, asked };
}

const spec = { kind: 'apt' as const, packages: ['intel-opencl-icd'], map: [{ from: 'usr/lib/x86_64-linux-gnu/', to: 'lib/' }] };

async function close(deps: Deps) {
  const ctx: SourceContext = { host: debian, deps, reporter: silentReporter, gateway: openGateway(deps), indexes: {} };
  const r = await apt.resolve(spec, ctx);
  return apt.closure!(spec, r, ctx, 'gpu-driver', []);
}

describe('Depends as apt writes them', () => {
  it('reads alternatives, relations, architecture qualifiers and the obsolete < and >', () => {
    expect(parseRelationGroup('libigc1 (>= 1.0.12504.6)')).toEqual([{ name: 'libigc1', op: '>=', version: '1.0.12504.6' }]);
    expect(parseRelationGroup('ocl-icd-libopencl1 | libopencl1')).toEqual([{ name: 'ocl-icd-libopencl1' }, { name: 'libopencl1' }]);
    expect(parseRelationGroup('python3:any (<< 3.12)')).toEqual([{ name: 'python3', op: '<<', version: '3.12' }]);
    expect(parseRelationGroup('libfoo (< 2)')).toEqual([{ name: 'libfoo', op: '<=', version: '2' }]);
  });

  it("compares versions in dpkg's order, a relation without a revision against the whole version", () => {
    expect(meetsRelation('1.0.12504.6-1+deb12u1', { name: 'libigc1', op: '<<', version: '1.0.12504.6+~' })).toBe(true);
    expect(meetsRelation('1.0.12504.6-1+deb12u1', { name: 'libigc1', op: '>=', version: '1.0.12504.6' })).toBe(true);
    expect(meetsRelation('22.3.3+ds1-1', { name: 'libigdgmm12', op: '>=', version: '22.3.2+ds1' })).toBe(true);
    expect(meetsRelation('1:14.0.6-12', { name: 'libclang-cpp14', op: '>=', version: '1:14.0.6' })).toBe(true);
    expect(meetsRelation('1.0~rc1-1', { name: 'x', op: '>=', version: '1.0' })).toBe(false);
  });

  it("keeps each stanza's Depends (Pre-Depends first) and Provides", () => {
    const igc = parseAptCacheShow(SHOW).find((r) => r.package === 'libigc1')!;
    expect(igc.provides).toEqual(['libigc1+llvm14']);
    expect(igc.depends).toContain('libllvmspirvlib14');
  });
});

describe("the apt kind's closure", () => {
  it("adds what intel-opencl-icd's Depends name that the machine lacks, follows them, and leaves it what it has", async () => {
    const { deps, asked } = machine(STATUS);
    const c = await close(deps);
    expect(c.archives.map((a) => `${a.package} ${a.version}`)).toEqual([
      'intel-opencl-icd 22.43.24595.41-1',
      'libigdgmm12 22.3.3+ds1-1',
      'libigc1 1.0.12504.6-1+deb12u1',
      'libigdfcl1 1.0.12504.6-1+deb12u1',
      'libopencl-clang14 14.0.0-4',
    ]);
    // The upper bound and the virtual libigc1+llvm14 are met by the libigc1 the closure already holds (it provides it).
    expect(c.archives.find((a) => a.package === 'libigc1')!.requiredBy).toEqual(['intel-opencl-icd 22.43.24595.41-1: libigc1 (>= 1.0.12504.6)']);
    expect(c.archives.find((a) => a.package === 'libopencl-clang14')!.requiredBy).toEqual(['libigdfcl1 1.0.12504.6-1+deb12u1: libopencl-clang14']);
    expect(c.archives.every((a) => a.url.startsWith('apt:') && /^[0-9a-f]{64}$/.test(a.sha256))).toBe(true);
    // One round per level of the closure, each two starts of apt-cache side by side (policy and show of the same names),
    // asking only what the machine's installed packages do not settle: the package, what it names that the machine
    // lacks, and libopencl-clang14. What libopencl-clang14 names (libclang-cpp14, libllvm14) is installed: no round.
    expect(asked.map((a) => a[0])).toEqual(['policy', 'show', 'policy', 'show', 'policy', 'show']);
    expect(asked.slice(0, 2)).toEqual([['policy', 'intel-opencl-icd'], ['show', 'intel-opencl-icd']]);
    for (let i = 0; i < asked.length; i += 2) expect(asked[i]!.slice(1)).toEqual(asked[i + 1]!.slice(1));
    expect(asked[3]).toEqual(expect.arrayContaining(['libigc1', 'libigdfcl1', 'libigdgmm12']));
    expect(asked[5]).toEqual(['show', 'libopencl-clang14']);
    for (const installed of ['libc6', 'libstdc++6', 'libgcc-s1', 'libllvm14', 'libclang-cpp14', 'zlib1g', 'ocl-icd-libopencl1']) expect(asked.flat()).not.toContain(installed);
    expect(asked.flat()).not.toContain('--no-all-versions');
  });

  it("starts apt-cache once alone (the start that builds a missing binary cache), then a round's two side by side", async () => {
    const { deps } = machine(STATUS);
    const answer = deps.exec;
    const log: string[] = [];
    deps.exec = async (file, args, opts) => {
      log.push(`start ${args[0]}`);
      await new Promise((r) => setTimeout(r, 5));
      log.push(`end ${args[0]}`);
      return answer(file, args, opts);
    };
    await close(deps);
    expect(log.slice(0, 6)).toEqual(['start policy', 'end policy', 'start show', 'end show', 'start policy', 'start show']);
  });

  it("takes the version apt would install (policy's candidate), not the newest apt shows", async () => {
    const newer = `${SHOW}\nPackage: libigdgmm12\nVersion: 22.9.0+ds1-1\nArchitecture: amd64\nFilename: pool/main/i/intel-gmmlib/libigdgmm12_22.9.0+ds1-1_amd64.deb\nSize: 1\nSHA256: ${'b'.repeat(64)}\n`;
    const gmm = async (pinned: Record<string, string>) => (await close(machine(STATUS, newer, pinned).deps)).archives.find((a) => a.package === 'libigdgmm12')!.version;
    expect(await gmm({})).toBe('22.3.3+ds1-1');
    expect(await gmm({ libigdgmm12: '22.9.0+ds1-1' })).toBe('22.9.0+ds1-1');
  });

  it('a machine without the LLVM 14 runtime gets it from apt too, or is told which package apt lacks', async () => {
    const withoutLlvm = STATUS.split(/\n\s*\n/).filter((s) => !/^Package: libllvm14$/m.test(s)).join('\n\n');
    const err = await close(machine(withoutLlvm).deps).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotAvailable);
    expect((err as NotAvailable).reason).toBe('libigc1 1.0.12504.6-1+deb12u1 needs libllvm14, which this machine does not have installed; apt has no package libllvm14');
  });

  it('a relation the installed package is too old for is not met by it', async () => {
    const oldGmm = `${STATUS}\nPackage: libigdgmm12\nStatus: install ok installed\nArchitecture: amd64\nVersion: 22.1.0-1\n`;
    const c = await close(machine(oldGmm).deps);
    expect(c.archives.map((a) => a.package)).toContain('libigdgmm12');
    const newGmm = `${STATUS}\nPackage: libigdgmm12\nStatus: install ok installed\nArchitecture: amd64\nVersion: 22.3.3+ds1-1\n`;
    expect((await close(machine(newGmm).deps)).archives.map((a) => a.package)).not.toContain('libigdgmm12');
  });

  it("without dpkg's status it follows nothing and says so", async () => {
    const c = await close(machine(undefined).deps);
    expect(c.archives.map((a) => a.package)).toEqual(['intel-opencl-icd']);
    expect(c.notes.skipped).toEqual(["the dependencies were not followed: dpkg's status file cannot be read"]);
  });
});

describe('a package that needs a newer glibc than the host has', () => {
  it("is no candidate: the closure says the glibc it needs and the host's, and never adds a libc6 of apt's to the prefix", async () => {
    // The same stanza as apt shows it for a sid build (libc6 (>= 2.38)), with a newer libc6 in apt's lists beside it.
    const show = SHOW.replace(/^(Package: intel-opencl-icd\n(?:.+\n)*?Depends: )libc6 \(>= 2\.34\)/m, '$1libc6 (>= 2.38)') + '\nPackage: libc6\nVersion: 2.43-1\nArchitecture: amd64\nFilename: pool/main/g/glibc/libc6_2.43-1_amd64.deb\nSize: 1\nSHA256: ' + 'a'.repeat(64) + '\n';
    const { deps } = machine(STATUS, show);
    await expect(close(deps)).rejects.toThrow(new NotAvailable('intel-opencl-icd 22.43.24595.41-1 needs glibc 2.38; this host has glibc 2.36'));
  });
});
