// Intel's GitHub releases as they are now, for the `modern` API of github-releases.ts, built from Debian sid's real
// driver set (libze-intel-gpu1, intel-opencl-icd, intel-ocloc 26.27.39122.14, libigc2/libigdfcl2 2.40.14, libigdgmm12
// 22.10.2, fetched by .ci/fixtures.sh) renamed as Intel names its release assets:
//
// - 26.27.39122.14: sid's debs as they are (control `Depends: libc6 (>= 2.38)` on the driver, as Intel's 24.04 builds;
//   sid's IGC says 2.43), under Intel's package names and versions, their relations on each other renamed with them;
// - 26.31.39395.13: a TEST DOUBLE of a release built for Ubuntu 26.04: the same files, every control's libc6 floor
//   raised to 2.43, and libze_intel_gpu.so's GLIBC_2.38 version need rewritten to GLIBC_2.43 (the name in .dynstr and
//   its hash in .gnu.version_r), so the ELF needs what the control file says, as the real release's do;
// - IGC in its own repository (intel/intel-graphics-compiler, tags v2.40.14 and v2.40.13) as intel-igc-core-2 and
//   intel-igc-opencl-2 `<version>+<build>` debs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { buildCacheDirOnce, ensureSidDebs, fixtureCacheDir } from './debs.js';

const run = promisify(execFile);

export const MODERN = {
  /** Built for glibc 2.43 (a test double of Intel's 26.04 builds). */
  newest: { tag: '26.31.39395.13', igc: '2.40.13', glibc: '2.43' },
  /** sid's real 26.27 debs under Intel's names: the driver needs glibc 2.38. */
  older: { tag: '26.27.39122.14', igc: '2.40.14', glibc: '2.38' },
  gmmlib: '22.10.2',
  igcBuild: '19640',
} as const;

export interface ModernDeb {
  release: string;
  repository: 'intel/compute-runtime' | 'intel/intel-graphics-compiler';
  filename: string;
  file: string;
  sha256: string;
  size: number;
}

/** Intel's names for sid's packages, and the relations between them renamed alike. */
const INTEL_NAMES: Record<string, string> = { libigc2: 'intel-igc-core-2', libigdfcl2: 'intel-igc-opencl-2' };

/** The ELF hash of a version name, as .gnu.version_r keeps it beside the name. */
function elfHash(name: string): number {
  let h = 0;
  for (const c of Buffer.from(name)) {
    h = ((h << 4) + c) >>> 0;
    const g = h & 0xf0000000;
    if (g) h ^= g >>> 24;
    h &= ~g >>> 0;
  }
  return h >>> 0;
}

/** Rewrites an ELF64's version need `from` to `to` (same length): the name in its string table and the hash beside it. */
export function raiseVersionNeed(elf: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error(`${from} and ${to} differ in length`);
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a);
  const shnum = elf.readUInt16LE(0x3c);
  const sec = (i: number) => ({ type: elf.readUInt32LE(shoff + i * shentsize + 4), offset: Number(elf.readBigUInt64LE(shoff + i * shentsize + 0x18)), link: elf.readUInt32LE(shoff + i * shentsize + 0x28), info: elf.readUInt32LE(shoff + i * shentsize + 0x2c) });
  const out = Buffer.from(elf);
  let done = 0;
  for (let i = 0; i < shnum; i++) {
    const s = sec(i);
    if (s.type !== 0x6ffffffe) continue;
    const strtab = sec(s.link).offset;
    let vn = s.offset;
    for (let n = 0; n < s.info; n++) {
      let aux = vn + out.readUInt32LE(vn + 8);
      for (let k = 0; k < out.readUInt16LE(vn + 2); k++) {
        const at = strtab + out.readUInt32LE(aux + 8);
        if (out.toString('latin1', at, at + from.length + 1) === `${from}\0`) {
          out.write(to, at, 'latin1');
          out.writeUInt32LE(elfHash(to), aux);
          done++;
        }
        aux += out.readUInt32LE(aux + 12);
      }
      vn += out.readUInt32LE(vn + 12);
    }
  }
  if (!done) throw new Error(`no version need ${from}`);
  return out;
}

const STAMP = 'modern-1';

/** sid's deb `src` as Intel's `pkg` at `version`, with its libc6 floor set to `libc` when given; returns the new file. */
async function renamed(src: string, work: string, pkg: string, version: string, filename: string, igc: string, libc: string | undefined, patch?: (root: string) => Promise<void>): Promise<string> {
  const root = path.join(work, 'build', filename);
  await fs.mkdir(path.dirname(root), { recursive: true });
  await run('dpkg-deb', ['-R', src, root]);
  const controlFile = path.join(root, 'DEBIAN', 'control');
  let control = await fs.readFile(controlFile, 'utf8');
  control = control
    .replace(/^Package: .*$/m, `Package: ${pkg}`)
    .replace(/^Version: .*$/m, `Version: ${version}`)
    .replace(/^Maintainer: .*$/m, 'Maintainer: Intel Graphics Team <linux-graphics@intel.com>')
    .replace(/^(Depends|Breaks|Replaces|Recommends): .*$/gm, (line) => line.replace(/\b(libigc2|libigdfcl2) \((>=|<<) [0-9.]+/g, (_, n: string, op: string) => `${INTEL_NAMES[n]!} (${op} ${igc}`).replace(/, (libigc2|libigdfcl2)\+llvm\d+/g, ''));
  if (libc) control = control.replace(/libc6 \(>= [0-9.]+\)/, `libc6 (>= ${libc})`);
  control = control.replace(/^(Description: .*)$/m, `$1\n Test fixture: Debian sid's ${path.basename(src)} renamed as Intel's release asset.`);
  await fs.writeFile(controlFile, control);
  await patch?.(root);
  const out = path.join(work, filename);
  await run('dpkg-deb', ['--root-owner-group', '-Zzstd', '--build', root, out]);
  return out;
}

/** Builds (once, into the test cache) the renamed debs of both releases and their IGC. */
export async function ensureModernDebs(): Promise<ModernDeb[]> {
  const sid = await ensureSidDebs();
  const out = path.join(fixtureCacheDir(), 'github-releases', `${STAMP}-${createHash('sha256').update(JSON.stringify(sid.versions)).digest('hex').slice(0, 12)}`);
  const plan: { release: string; repository: ModernDeb['repository']; from: string; pkg: string; version: string; filename: string; igc: string; libc?: string; patch?: (root: string) => Promise<void> }[] = [];
  const gpuLib = 'usr/lib/x86_64-linux-gnu';
  for (const r of [MODERN.older, MODERN.newest]) {
    const libc = r === MODERN.newest ? r.glibc : undefined;
    const v = `${r.tag}-0`;
    const patch = libc
      ? async (root: string) => {
          const dir = path.join(root, gpuLib);
          for (const name of (await fs.readdir(dir)).filter((n) => /^libze_intel_gpu\.so\.1\.\d/.test(n))) {
            const file = path.join(dir, name);
            await fs.writeFile(file, raiseVersionNeed(await fs.readFile(file), 'GLIBC_2.38', 'GLIBC_2.43'));
          }
        }
      : undefined;
    for (const pkg of ['libze-intel-gpu1', 'intel-opencl-icd', 'intel-ocloc']) {
      plan.push({ release: r.tag, repository: 'intel/compute-runtime', from: sid.debs[pkg]!, pkg, version: v, filename: `${pkg}_${v}_amd64.deb`, igc: r.igc, libc, ...(pkg === 'libze-intel-gpu1' && patch ? { patch } : {}) });
    }
    plan.push({ release: r.tag, repository: 'intel/compute-runtime', from: sid.debs.libigdgmm12!, pkg: 'libigdgmm12', version: MODERN.gmmlib, filename: `libigdgmm12_${MODERN.gmmlib}_amd64.deb`, igc: r.igc });
    const iv = `${r.igc}+${MODERN.igcBuild}`;
    for (const [pkg, from] of [['intel-igc-core-2', 'libigc2'], ['intel-igc-opencl-2', 'libigdfcl2']] as const) {
      plan.push({ release: `v${r.igc}`, repository: 'intel/intel-graphics-compiler', from: sid.debs[from]!, pkg, version: iv, filename: `${pkg}_${iv}_amd64.deb`, igc: r.igc, libc });
    }
  }
  await buildCacheDirOnce(out, STAMP, async (work) => {
    for (const p of plan.filter((x, i) => plan.findIndex((y) => y.filename === x.filename) === i)) await renamed(p.from, work, p.pkg, p.version, p.filename, p.igc, p.libc, p.patch);
    await fs.rm(path.join(work, 'build'), { recursive: true, force: true });
  });
  return Promise.all(
    plan.map(async (p) => {
      const file = path.join(out, p.filename);
      const bytes = await fs.readFile(file);
      return { release: p.release, repository: p.repository, filename: p.filename, file, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
    }),
  );
}
