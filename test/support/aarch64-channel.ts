// A conda-forge-shaped channel for linux-aarch64, from real AArch64 files: Debian trixie's arm64 libgcc_s and libstdc++
// as conda-forge's libgcc and libstdcxx, and a Level Zero loader double compiled for AArch64 and linked against
// Debian's arm64 C library (Debian builds no Level Zero for arm64), with trixie's headers; served from a plain directory.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildCacheDirOnce, ensureArm64Debs, ensureDebs, fixtureCacheDir, type Arm64Debs, type DebSet } from './debs.js';
import { buildCondaPackage, condaForgePc, zstdCompress, type ArchiveEntry, type CondaSpec } from './packages.js';

const run = promisify(execFile);

/** The compiler that emits AArch64 objects here (clang targets every arch; the system gcc only x86-64). */
export const AARCH64_CC = process.env.XPU_SETUP_CLANG || 'clang-15';

/** The test double's loader: exports zeInit and zeDriverGet, answering as a loader with no driver does. */
const LOADER_DOUBLE_C = `/* xpu-setup test double: not the Level Zero loader. Declared, not included: the AArch64 C library is linked as a file. */
extern char *getenv(const char *);
typedef int ze_result_t;
ze_result_t zeInit(int flags) { (void)flags; return getenv("ZE_ENABLE_ALT_DRIVERS") ? 0 : 0x78000001; }
ze_result_t zeDriverGet(unsigned *count, void **drivers) { (void)drivers; if (count) *count = 0; return 0x78000001; }
`;

/** conda-forge's build strings for these linux-aarch64 packages. */
const BUILDS = { levelZero: 'h5ad3122_0', libgcc: 'he277a41_2', libstdcxx: 'h3f4de04_2' };

export interface Aarch64Channel {
  /** The directory to serve: `<name>/linux-aarch64/...` and `<name>/noarch/repodata.json` per channel. */
  dir: string;
  /**
   * Channels: `arm` (every file AArch64), `mislabelled` (its level-zero holds trixie's x86-64 loader, in the
   * linux-aarch64 subdir), `no-runtime` (Level Zero without the libgcc and libstdcxx it depends on).
   */
  channels: { arm: string; mislabelled: string; noRuntime: string };
  levelZero: string;
  gcc: string;
}

async function walk(dir: string, prefix: string): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = [];
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    const rel = `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...(await walk(p, rel)));
    else if (e.isSymbolicLink()) out.push({ path: rel, type: 'symlink', target: await readlink(p) });
    else out.push({ path: rel, type: 'file', data: await readFile(p), mode: 0o644 });
  }
  return out;
}

/** The loader double for AArch64: needs libc.so.6 (GLIBC_2.17), libstdc++.so.6 and libgcc_s.so.1, as conda-forge's loader does. */
async function compileLoader(arm: Arm64Debs, work: string, version: string): Promise<Buffer> {
  const src = join(work, 'ze_loader_double.c');
  const obj = join(work, 'ze_loader_double.o');
  const out = join(work, `libze_loader.so.${version}`);
  await writeFile(src, LOADER_DOUBLE_C);
  await run(AARCH64_CC, ['--target=aarch64-linux-gnu', '-O2', '-fPIC', '-c', src, '-o', obj]);
  const stdcxx = (await readdir(arm.libDir)).find((n) => /^libstdc\+\+\.so\.6\.\d/.test(n))!;
  await run(arm.lld.bin, ['-shared', '-soname', 'libze_loader.so.1', '-o', out, obj, join(arm.libDir, 'libc.so.6'), join(arm.libDir, stdcxx), join(arm.libDir, 'libgcc_s.so.1')], {
    env: { ...process.env, LD_LIBRARY_PATH: arm.lld.libDir },
  });
  return readFile(out);
}

async function build(work: string, arm: Arm64Debs, trixie: DebSet, gcc: string): Promise<void> {
  const version = trixie.version;
  const loader = await compileLoader(arm, work, version);
  const x86Loader = await readFile(join(trixie.libDir, `libze_loader.so.${version}`));
  const headers = await walk(trixie.includeDir, 'include');
  const pcs = (await walk(join(trixie.libDir, 'pkgconfig'), 'lib/pkgconfig')).map((e) => (e.type === 'file' ? { ...e, data: Buffer.from(condaForgePc(e.data.toString('utf8'))) } : e));
  const stdcxx = (await readdir(arm.libDir)).find((n) => /^libstdc\+\+\.so\.6\.\d/.test(n))!;
  const runtime = (lib: Buffer): ArchiveEntry[] => [
    { path: `lib/libze_loader.so.${version}`, type: 'file', data: lib, mode: 0o755 },
    { path: 'lib/libze_loader.so.1', type: 'symlink', target: `libze_loader.so.${version}` },
  ];
  const l0 = (lib: Buffer): CondaSpec[] => [
    { name: 'level-zero', version, build: BUILDS.levelZero, buildNumber: 0, subdir: 'linux-aarch64', depends: ['libgcc >=13', 'libstdcxx >=13', '__glibc >=2.17'], payload: runtime(lib) },
    {
      name: 'level-zero-devel', version, build: BUILDS.levelZero, buildNumber: 0, subdir: 'linux-aarch64', depends: [`level-zero ${version} ${BUILDS.levelZero}`],
      payload: [...headers, { path: 'lib/libze_loader.so', type: 'symlink', target: 'libze_loader.so.1' }, ...pcs],
    },
  ];
  const gccRuntime: CondaSpec[] = [
    { name: 'libgcc', version: gcc, build: BUILDS.libgcc, buildNumber: 2, subdir: 'linux-aarch64', depends: ['__glibc >=2.17'], payload: [{ path: 'lib/libgcc_s.so.1', type: 'file', data: await readFile(join(arm.libDir, 'libgcc_s.so.1')), mode: 0o644 }] },
    {
      name: 'libstdcxx', version: gcc, build: BUILDS.libstdcxx, buildNumber: 2, subdir: 'linux-aarch64', depends: [`libgcc ${gcc} ${BUILDS.libgcc}`],
      payload: [
        { path: `lib/${stdcxx}`, type: 'file', data: await readFile(join(arm.libDir, stdcxx)), mode: 0o644 },
        { path: 'lib/libstdc++.so.6', type: 'symlink', target: stdcxx },
      ],
    },
  ];
  const channels = [['arm', [...l0(loader), ...gccRuntime]], ['mislabelled', [...l0(x86Loader), ...gccRuntime]], ['no-runtime', l0(loader)]] as const;
  for (const [channel, specs] of channels) {
    const subdir = join(work, channel, 'linux-aarch64');
    await mkdir(subdir, { recursive: true });
    await mkdir(join(work, channel, 'noarch'), { recursive: true });
    const records: Record<string, unknown> = {};
    for (const spec of specs) {
      const p = await buildCondaPackage(spec, 'conda');
      await writeFile(join(subdir, p.filename), p.bytes);
      const { platform: _p, arch: _a, ...index } = p.index;
      records[p.filename] = {
        ...index,
        md5: createHash('md5').update(p.bytes).digest('hex'),
        sha256: createHash('sha256').update(p.bytes).digest('hex'),
        size: p.bytes.length,
      };
    }
    const repodata = (sub: string, conda: Record<string, unknown>) => JSON.stringify({ info: { subdir: sub }, packages: {}, 'packages.conda': conda, removed: [], repodata_version: 1 });
    // As conda-forge serves them: the JSON and its .zst beside it.
    for (const [sub, conda] of [['linux-aarch64', records], ['noarch', {}]] as const) {
      const body = Buffer.from(repodata(sub, conda));
      await writeFile(join(work, channel, sub, 'repodata.json'), body);
      await writeFile(join(work, channel, sub, 'repodata.json.zst'), await zstdCompress(body));
    }
  }
}

let pending: Promise<Aarch64Channel> | undefined;

/** Builds the channels once into the test cache (keyed by this file and the Debian versions they come from). */
export function buildAarch64Channel(): Promise<Aarch64Channel> {
  pending ??= (async () => {
    const [arm, { trixie }] = await Promise.all([ensureArm64Debs(), ensureDebs()]);
    const gcc = arm.versions['libstdc++6']!.replace(/-[^-]+$/, '');
    const key = createHash('sha256')
      .update(await readFile(new URL(import.meta.url)))
      .update(JSON.stringify([arm.versions, trixie.debVersion]))
      .digest('hex')
      .slice(0, 16);
    const dir = join(fixtureCacheDir(), 'aarch64-channel', key);
    await buildCacheDirOnce(dir, key, (work) => build(work, arm, trixie, gcc));
    if (!existsSync(join(dir, 'arm', 'linux-aarch64', 'repodata.json'))) throw new Error(`${dir} is incomplete`);
    return { dir, channels: { arm: 'arm', mislabelled: 'mislabelled', noRuntime: 'no-runtime' }, levelZero: trixie.version, gcc };
  })();
  pending.catch(() => (pending = undefined));
  return pending;
}
