// Fault matrix, archives and install: hostile and damaged packages served by the local index, the CLI run as a process.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readElfNeeds } from '../../src/formats/elf.js';
import { readArchive } from '../../src/formats/index.js';
import { joined, runCli, scrubbedEnv } from '../e2e/cli.js';
import { startFixtureIndex, type CondaChannelName, type FixtureIndex } from '../support/index-server.js';
import type { ArchiveEntry, FixtureArtifact, FixturePackages } from '../support/packages.js';
import { buildHostile, damageZipMember, libraryCalling, libraryNeeding, symlinkChain, tarBz2WithOverstatedSize, type HostileFormat } from './hostile.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { compareSnapshots, FaultTable, makeSentinel, snapshotTree } from './matrix.js';

const table = new FaultTable('fault matrix: archives and install (CLI as a process, local index on 127.0.0.1)');
const fx = withFixtureRun('faults');
let fixtures: FixturePackages;

beforeAll(() => {
  fixtures = fx.index.fixtures;
});

afterAll(() => table.print());

type Pick = (a: FixtureArtifact, f: FixturePackages) => boolean;
const L0_RUNTIME_CONDA: Pick = (a, f) => a.format === 'conda' && a.name === 'level-zero' && a.version === f.l0Versions.bookworm && a.platform === 'linux-x64';
const L0_DEVEL_CONDA: Pick = (a, f) => a.format === 'conda' && a.name === 'level-zero-devel' && a.version === f.l0Versions.bookworm && a.platform === 'linux-x64';
const L0_DEVEL_TARBZ2: Pick = (a, f) =>
  a.format === 'tar.bz2' && a.name === 'level-zero-devel' && a.version === f.l0Versions.trixie && a.platform === 'linux-x64' && a.conda?.build_number === 0;
/**
 * UR installed alone loads with this machine's loader, Debian 12's 1.8.12, so the Linux cases take the newest UR before
 * 2026 (whose adapters call what loader 1.25 added, and are refused before the swap here).
 */
const UR_FOR_DEBIAN_12 = { require: 'unified-runtime<2026', version: '2025.3.2' };
const UR_WHEEL: Pick = (a) => a.format === 'wheel' && a.name === 'intel-cmplr-lib-ur' && a.version === UR_FOR_DEBIAN_12.version && a.platform === 'linux-x64';
const UR_WIN_WHEEL: Pick = (a, f) => a.format === 'wheel' && a.name === 'intel-cmplr-lib-ur' && a.version === f.urVersions.newer && a.platform === 'win-x64';

/** The payload of a real fixture package, read with the project's own reader, to be altered. */
async function payloadOf(a: FixtureArtifact): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = [];
  await readArchive(a.format === 'zip' ? 'zip' : a.format, a.path, async (e, body) => {
    if (e.type === 'symlink') out.push({ path: e.path, type: 'symlink', target: e.linkTarget! });
    else if (e.type === 'file') {
      const chunks: Buffer[] = [];
      for await (const c of body!) chunks.push(c as Buffer);
      out.push({ path: e.path, type: 'file', data: Buffer.concat(chunks), mode: e.mode });
    } else body?.resume();
  });
  return out;
}

function identity(a: FixtureArtifact) {
  return { name: a.name, version: a.version, build: a.conda?.build, buildNumber: a.conda?.build_number };
}

/** Rebuilds the picked fixture package from `payload` (same name, so the index lists it in its place). */
function rebuilt(pick: Pick, format: HostileFormat, payload: (real: ArchiveEntry[]) => ArchiveEntry[] | Promise<ArchiveEntry[]>) {
  return async (f: FixturePackages) => {
    const a = f.artifacts.find((x) => pick(x, f))!;
    const b = await buildHostile(format, await payload(await payloadOf(a)), identity(a));
    return { pick, bytes: b.bytes };
  };
}

interface Case {
  name: string;
  /** Replaces one served package with other bytes. */
  serve?: (f: FixturePackages) => Promise<{ pick: Pick; bytes: Buffer; listedSize?: number }>;
  channel?: CondaChannelName;
  component: 'level-zero' | 'unified-runtime';
  args?: string[];
  env?: Record<string, string>;
  /** Install the good packages first: the failing run must leave that working prefix exactly as it was. */
  baseline?: boolean;
  /** Mount a small tmpfs at this part of the case ('parent': the prefix's parent; 'cache': the cache; 'cache-ro': the cache, read-only). */
  tmpfs?: 'parent' | 'cache' | 'cache-ro';
  prepare?: (prefix: string, cache: string) => Promise<void>;
  /** What the run must say (stderr, error message and hints). */
  says?: RegExp;
  /** The cache (filled by the baseline) is mounted read-only over itself for the run. */
  readOnlyCache?: boolean;
  /** The umask the run starts under. */
  umask?: string;
  platform?: 'win-x64';
  /** The prefix's own name (default "prefix"). */
  prefixName?: string;
  /** What must hold of the prefix after a run that succeeded. */
  check?: (prefix: string) => Promise<void>;
  exit: number;
  code: string;
  /** The most the run may hold in memory, where memory is the point of the case (peak RSS, MiB). */
  maxRssMb?: number;
}

/** The permission bits of every file and directory under dir, by path. */
async function modes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) continue;
      out.set(r, (await fs.lstat(path.join(d, e.name))).mode & 0o7777);
      if (e.isDirectory()) await walk(path.join(d, e.name), r);
    }
  };
  await walk(dir, '');
  return out;
}

const zero = (n: number) => Buffer.alloc(n);
/** A conda build prefix as conda-build pads it, the placeholder info/paths.json names. */
const BUILD_PREFIX = `/home/conda/feedstock_root/build_artifacts/level-zero_1733300000000/_h_env_${'placehold_'.repeat(8)}pl`;
const BIG_TEXT_BYTES = 640 << 20;
const header: ArchiveEntry = { path: 'include/level_zero/ze_api.h', type: 'file', data: Buffer.from('/* stand-in */\n') };

const CASES: Case[] = [
  { name: 'conda: symlink chain, member written through it', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'UNSAFE_PATH',
    serve: async (f) => ({ pick: L0_DEVEL_CONDA, bytes: (await buildHostile('conda', symlinkChain('sentinel', true), identity(f.artifacts.find((a) => L0_DEVEL_CONDA(a, f))!))).bytes }) },
  { name: 'tar.bz2: symlink chain, links only (resolves out once both exist)', component: 'level-zero', channel: 'tarbz2', exit: 1, code: 'UNSAFE_PATH',
    serve: async (f) => ({ pick: L0_DEVEL_TARBZ2, bytes: (await buildHostile('tar.bz2', symlinkChain('sentinel', false, 'esc'), identity(f.artifacts.find((a) => L0_DEVEL_TARBZ2(a, f))!))).bytes }) },
  { name: 'wheel: symlink chain, member written through it', component: 'unified-runtime', exit: 1, code: 'UNSAFE_PATH',
    serve: rebuilt(UR_WHEEL, 'wheel', (real) => [...real, ...symlinkChain('sentinel', true).slice(1)]) },
  { name: 'wheel: member "lib/../../../../../evil.so"', component: 'unified-runtime', exit: 1, code: 'UNSAFE_PATH',
    serve: async (f) => {
      const b = await buildHostile('wheel', [...(await payloadOf(f.artifacts.find((a) => UR_WHEEL(a, f))!)), { path: 'lib/aa/aa/aa/aa/aa/evil.so', type: 'file', data: Buffer.from('x') }], identity(f.artifacts.find((a) => UR_WHEEL(a, f))!));
      // Same length, so every offset in the zip stays right; zip writers refuse to write such a name themselves.
      return { pick: UR_WHEEL, bytes: Buffer.from(b.bytes.toString('latin1').split('lib/aa/aa/aa/aa/aa/evil.so').join('lib/../../../../../evil.so'), 'latin1') };
    } },
  { name: 'conda: the same member twice', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'DUPLICATE_MEMBER',
    serve: rebuilt(L0_DEVEL_CONDA, 'conda', (real) => [...real, real.find((e) => e.path === 'include/level_zero/ze_api.h')!]) },
  { name: 'conda: duplicate overwrites the loader (working prefix kept)', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 1, code: 'DUPLICATE_MEMBER',
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', (real) => [...real, { path: 'lib/libze_loader.so.1.8.0', type: 'file', data: Buffer.from('not a library') }]) },
  { name: 'wheel: member "../../evil.txt" outside .data (never mapped)', component: 'unified-runtime', exit: 1, code: 'UNSAFE_PATH',
    serve: async (f) => {
      const b = await buildHostile('wheel', await payloadOf(f.artifacts.find((a) => UR_WHEEL(a, f))!), identity(f.artifacts.find((a) => UR_WHEEL(a, f))!));
      // The wheel's RECORD lives outside .data too: renamed (same length) to climb out, it is a member no rule maps.
      const record = /[a-z_]+-[0-9.]+\.dist-info\/RECORD/.exec(b.bytes.toString('latin1'))![0];
      const evil = `../../${'e'.repeat(record.length - 10)}.txt`;
      return { pick: UR_WHEEL, bytes: Buffer.from(b.bytes.toString('latin1').split(record).join(evil), 'latin1') };
    } },
  { name: 'wheel: members 06777 and 0666 under umask 000 (installed 0755, 0644)', component: 'unified-runtime', umask: '000', exit: 0, code: '-',
    serve: rebuilt(UR_WHEEL, 'wheel', (real) => real.map((e, i) => (e.type === 'file' ? { ...e, mode: i === 0 ? 0o6777 : 0o666 } : e))),
    check: async (prefix) => {
      const bad = [...(await modes(prefix))].filter(([, m]) => (m & 0o7022) !== 0 || ![0o755, 0o644].includes(m));
      expect(bad).toEqual([]);
    } },
  { name: 'wheel for win-x64: a member named AUX.dll', component: 'unified-runtime', platform: 'win-x64', exit: 1, code: 'UNSAFE_PATH',
    serve: rebuilt(UR_WIN_WHEEL, 'wheel', (real) => [...real, { path: 'Library/bin/AUX.dll', type: 'file', data: Buffer.from('x') }]) },
  { name: 'wheel for win-x64: ur_api.h beside UR_API.H', component: 'unified-runtime', platform: 'win-x64', exit: 1, code: 'UNSAFE_PATH',
    serve: rebuilt(UR_WIN_WHEEL, 'wheel', (real) => [...real, { path: 'Library/include/ur_api.h', type: 'file', data: Buffer.from('a') }, { path: 'Library/include/UR_API.H', type: 'file', data: Buffer.from('b') }]) },
  { name: 'wheel: member CRC-32 wrong', component: 'unified-runtime', exit: 1, code: 'BAD_ARCHIVE',
    serve: async (f) => { const a = f.artifacts.find((x) => UR_WHEEL(x, f))!; return { pick: UR_WHEEL, bytes: damageZipMember(await fs.readFile(a.path), `intel_cmplr_lib_ur-${a.version}.data/data/lib/libur_loader.so.0`, 'crc') }; } },
  { name: 'wheel: corrupt deflate data', component: 'unified-runtime', exit: 1, code: 'BAD_ARCHIVE',
    serve: async (f) => { const a = f.artifacts.find((x) => UR_WHEEL(x, f))!; return { pick: UR_WHEEL, bytes: damageZipMember(await fs.readFile(a.path), `intel_cmplr_lib_ur-${a.version}.data/data/lib/libur_loader.so.0`, 'deflate') }; } },
  { name: 'wheel: central directory understates a size', component: 'unified-runtime', exit: 1, code: 'BAD_ARCHIVE',
    serve: async (f) => { const a = f.artifacts.find((x) => UR_WHEEL(x, f))!; return { pick: UR_WHEEL, bytes: damageZipMember(await fs.readFile(a.path), `intel_cmplr_lib_ur-${a.version}.data/data/lib/libur_loader.so.0`, 'understate') }; } },
  // Pinned and held to the one source, so that no other candidate can stand in (a candidate that does, in the same
  // run, is test/e2e/driver-glibc.test.ts's and ur-needs.test.ts's).
  { name: 'wheel: no .data members (working prefix kept)', component: 'unified-runtime', baseline: true, exit: 1, code: 'PREFIX_CHECK', args: ['--source', 'pypi', '--require', 'unified-runtime==2025.3.2'],
    serve: rebuilt(UR_WHEEL, 'wheel', () => []) },
  { name: 'tar.bz2: header overstates a member size', component: 'level-zero', channel: 'tarbz2', exit: 1, code: 'BAD_ARCHIVE',
    serve: async (f) => ({ pick: L0_DEVEL_TARBZ2, bytes: await tarBz2WithOverstatedSize([{ path: 'info/index.json', type: 'file', data: Buffer.from('{}') }, header, { path: 'lib/libze_loader.so', type: 'file', data: zero(5000) }]) }) },
  { name: 'conda: bomb, a small package unpacking 256 MiB of zeros', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'TOO_LARGE',
    serve: rebuilt(L0_DEVEL_CONDA, 'conda', (real) => [...real, { path: 'lib/zeros.bin', type: 'file', data: zero(256 << 20) }]) },
  { name: 'server sends 4 MiB for a file the index lists at 116 KB', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'TOO_LARGE',
    serve: async (f) => ({ pick: L0_DEVEL_CONDA, bytes: Buffer.concat([await fs.readFile(f.artifacts.find((a) => L0_DEVEL_CONDA(a, f))!.path), zero(4 << 20)]), listedSize: f.artifacts.find((a) => L0_DEVEL_CONDA(a, f))!.size }) },
  { name: 'good packages, --max-unpacked 64KiB', component: 'level-zero', channel: 'bookworm', args: ['--max-unpacked', '64KiB'], exit: 1, code: 'TOO_LARGE' },
  { name: 'good packages, XPU_SETUP_MAX_UNPACKED=0 (no limit)', component: 'level-zero', channel: 'bookworm', env: { XPU_SETUP_MAX_UNPACKED: '0' }, exit: 0, code: '-' },
  { name: 'conda: member name too long for the file system', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'NAME_TOO_LONG',
    serve: rebuilt(L0_DEVEL_CONDA, 'conda', (real) => [...real, { path: `lib/${'n'.repeat(300)}.so`, type: 'file', data: Buffer.from('x') }]) },
  { name: 'reinstall over a file of yours (not in the receipt): kept and named', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 0, code: '-',
    says: /kept 1 file of yours in .* that xpu-setup did not install: etc\/mine\.conf/,
    prepare: async (prefix) => {
      await fs.mkdir(path.join(prefix, 'etc'), { recursive: true });
      await fs.writeFile(path.join(prefix, 'etc', 'mine.conf'), 'mine\n');
      // An installed file edited: the run reinstalls rather than finding the prefix up to date.
      await fs.appendFile(path.join(prefix, 'include/level_zero/ze_api.h'), '\n/* edited */\n');
    },
    check: async (prefix) => expect(await fs.readFile(path.join(prefix, 'etc', 'mine.conf'), 'utf8')).toBe('mine\n') },
  { name: 'conda: upgrade whose loader does not load here (working prefix kept)', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 1, code: 'PREFIX_CHECK', args: ['--source', 'conda'],
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', (real) => real.map((e) => (e.path === 'lib/libze_loader.so.1.8.0' ? { ...e, data: Buffer.from('\x7fELF not really a library\n') } : e))) },
  { name: 'conda: header that does not compile (working prefix kept)', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 1, code: 'PREFIX_CHECK', args: ['--source', 'conda'],
    serve: rebuilt(L0_DEVEL_CONDA, 'conda', (real) => real.map((e) => (e.path === 'include/level_zero/ze_api.h' ? { ...e, data: Buffer.from('#error this header is broken\n') } : e))) },
  { name: 'receipt cut short (kept xpu-setup env files): reinstalled whole', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 0, code: '-',
    prepare: async (prefix) => {
      const f = path.join(prefix, 'xpu-setup.receipt.json');
      await fs.writeFile(f, (await fs.readFile(f, 'utf8')).slice(0, 200));
    },
    check: async (prefix) => expect(JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')).components).toHaveLength(1) },
  { name: 'receipt of 200 MB (sparse): not read, reinstalled whole', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 0, code: '-',
    prepare: async (prefix) => fs.truncate(path.join(prefix, 'xpu-setup.receipt.json'), 200 * 1024 * 1024) },
  { name: 'lock left by a pid now owned by another process', component: 'level-zero', channel: 'bookworm', exit: 0, code: '-',
    prepare: async (prefix) => {
      await fs.mkdir(path.dirname(prefix), { recursive: true });
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ host: (await import('node:os')).hostname(), pid: 1, startTime: '999999999' }));
    } },
  { name: 'prefix path holding `"` and `,`: installed, headers compiled, addon linked', component: 'level-zero', channel: 'bookworm', prefixName: 'pre"f,ix', exit: 0, code: '-',
    check: async (prefix) => {
      const sh = execFileSync('sh', ['-c', '. "$1/env.sh" && printf %s "$LEVEL_ZERO_V1_SDK_PATH"', 'sh', prefix]).toString();
      expect(sh).toBe(prefix);
      // The addon finds the prefix's loader by its RUNPATH, whole (-Wl,-rpath,<path> would have cut it at the comma).
      const addons = (await fs.readdir(path.join(prefix, 'lib', 'xpu-setup'))).filter((n) => n.endsWith('.so'));
      expect(addons).toHaveLength(1);
      expect(readElfNeeds(await fs.readFile(path.join(prefix, 'lib', 'xpu-setup', addons[0]!)))?.runpath).toEqual([path.join(prefix, 'lib')]);
    } },
  { name: 'win-x64 prefix path holding `%` and `!`: env.bat escapes both readings', component: 'unified-runtime', platform: 'win-x64', prefixName: 'pre%fi!x', exit: 0, code: '-',
    check: async (prefix) => {
      const lines = (await fs.readFile(path.join(prefix, 'env.bat'), 'utf8')).split('\r\n');
      const q = (s: string) => s.replace(/%/g, '%%');
      // Without delayed expansion `%` is doubled; with it (a value holding `!`) `!` is `^!` too.
      expect(lines).toContain(`set "LEVEL_ZERO_V1_SDK_PATH=${q(prefix)}"`);
      expect(lines).toContain(`set "_XPU_V=${q(prefix).replace(/!/g, '^!')}"`);
    } },
  { name: 'prefix path holding a newline: refused up front', component: 'level-zero', channel: 'bookworm', prefixName: 'pre\nfix', exit: 2, code: 'USAGE' },
  { name: 'full disk under the prefix\'s parent (256 KiB tmpfs)', component: 'level-zero', channel: 'bookworm', tmpfs: 'parent', exit: 1, code: 'NO_SPACE' },
  { name: 'full disk in the cache (64 KiB tmpfs)', component: 'level-zero', channel: 'bookworm', tmpfs: 'cache', exit: 1, code: 'NO_SPACE' },
  { name: 'read-only cache directory (ro tmpfs): the cache named, not the prefix', component: 'level-zero', channel: 'bookworm', tmpfs: 'cache-ro', exit: 1, code: 'INSTALL',
    says: /the download cache \S+\/cache cannot be written: .*read-only file system[^]*hint: check the cache directory \S+\/cache .*--cache-dir or XPU_SETUP_CACHE_DIR; the prefix was not changed/ },
  { name: 'read-only cache holding every archive: installed from it', component: 'level-zero', channel: 'bookworm', baseline: true, readOnlyCache: true, exit: 0, code: '-',
    prepare: async (prefix) => fs.rm(prefix, { recursive: true }) },
  { name: 'cache entry replaced by a directory: named, removed, fetched again', component: 'level-zero', channel: 'bookworm', baseline: true, exit: 0, code: '-',
    prepare: async (prefix, cache) => {
      // The baseline filled the cache; without its prefix the next run fetches (a prefix that is up to date needs no cache).
      await fs.rm(prefix, { recursive: true });
      const shard = path.join(cache, 'sha256');
      const sub = (await fs.readdir(shard))[0]!;
      const entry = path.join(shard, sub, (await fs.readdir(path.join(shard, sub)))[0]!);
      await fs.rm(entry);
      await fs.mkdir(path.join(entry, 'inside'), { recursive: true });
    },
    says: /warning: the cache entry \S+\/cache\/sha256\/[0-9a-f]{2}\/[0-9a-f]{64} was damaged \(a directory where a downloaded file belongs\): removed, and the archive fetched again/,
    check: async (prefix) => {
      const shard = path.join(path.dirname(path.dirname(prefix)), 'cache', 'sha256');
      for (const sub of await fs.readdir(shard)) for (const n of await fs.readdir(path.join(shard, sub))) expect((await fs.lstat(path.join(shard, sub, n))).isFile()).toBe(true);
    } },
  { name: 'conda: a library needs "../../../../../../../../../dev/urandom" (a path: never searched, never read)', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'PREFIX_CHECK', maxRssMb: 400,
    says: /needs \.\.\/\.\.\/.*dev\/urandom: the name holds "\/"/,
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libhostile.so.1', type: 'file', data: await libraryNeeding('../../../../../../../../../dev/urandom'), mode: 0o755 }]) },
  { name: 'conda: a library needs "../../../../../../../../dev/stdin" (the run\'s stdin a pipe held open)', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'PREFIX_CHECK', maxRssMb: 400,
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libhostile.so.1', type: 'file', data: await libraryNeeding('../../../../../../../../dev/stdin'), mode: 0o755 }]) },
  { name: 'conda: RUNPATH $ORIGIN/../../sentinel finds a non-library outside the prefix: named, not read', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'PREFIX_CHECK',
    says: /needs keep\.txt: its RPATH or RUNPATH leads to \S+\/sentinel\/keep\.txt, outside the tree/,
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libhostile.so.1', type: 'file', data: await libraryNeeding('keep.txt', { runpath: '$ORIGIN/../../sentinel' }), mode: 0o755 }]) },
  { name: 'conda: a library needs libze_loader.so.1 through RUNPATH /tmp/../proc/self (outside): the tree\'s copy is the one', component: 'level-zero', channel: 'bookworm', exit: 0, code: '-',
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libhostile.so.1', type: 'file', data: await libraryNeeding('libze_loader.so.1', { runpath: '/tmp/../proc/self' }), mode: 0o755 }]) },
  { name: 'conda: 12,000 undefined symbols whose names run together (no NUL between them)', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'PREFIX_CHECK', maxRssMb: 400,
    says: /libcalls\.so\.1: .*runs past 65536 bytes .*taken as a library that does not load/,
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libcalls.so.1', type: 'file', data: await libraryCalling(12_000, { runTogether: true }), mode: 0o755 }]) },
  { name: 'conda: a library calls one function of a 100,000-byte name', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'PREFIX_CHECK', maxRssMb: 400,
    says: /libcalls\.so\.1: .*runs past 65536 bytes/,
    serve: rebuilt(L0_RUNTIME_CONDA, 'conda', async (real) => [...real, { path: 'lib/libcalls.so.1', type: 'file', data: await libraryCalling(1, { nameLength: 100_000 }), mode: 0o755 }]) },
  { name: 'conda: a one-byte text placeholder filling a 24 MiB file (growth counted against --max-ratio)', component: 'level-zero', channel: 'bookworm', exit: 1, code: 'TOO_LARGE', maxRssMb: 500,
    says: /unpacks to more than 200 times its size/,
    serve: async (f) => {
      const a = f.artifacts.find((x) => L0_DEVEL_CONDA(x, f))!;
      const b = await buildHostile('conda', [...(await payloadOf(a)).filter((e) => !e.path.startsWith('info/')), { path: 'include/level_zero/grow.h', type: 'file', data: Buffer.alloc(24 << 20, 'q') }], { ...identity(a), placeholders: { 'include/level_zero/grow.h': { placeholder: 'q', mode: 'text' } } });
      return { pick: L0_DEVEL_CONDA, bytes: b.bytes };
    } },
  { name: 'conda: a 640 MiB text file with its build prefix at both ends (rewritten as it streams)', component: 'level-zero', channel: 'bookworm', exit: 0, code: '-', maxRssMb: 400, args: ['--max-ratio', '0'],
    serve: async (f) => {
      const a = f.artifacts.find((x) => L0_DEVEL_CONDA(x, f))!;
      const big = Buffer.alloc(BIG_TEXT_BYTES, 'x');
      big.write(`prefix=${BUILD_PREFIX}\n`, 0);
      big.write(`\n${BUILD_PREFIX}/lib\n`, big.length - BUILD_PREFIX.length - 6);
      const b = await buildHostile('conda', [...(await payloadOf(a)).filter((e) => !e.path.startsWith('info/')), { path: 'lib/cmake/level-zero/big.cmake', type: 'file', data: big }], { ...identity(a), placeholders: { 'lib/cmake/level-zero/big.cmake': { placeholder: BUILD_PREFIX, mode: 'text' } } });
      return { pick: L0_DEVEL_CONDA, bytes: b.bytes };
    },
    check: async (prefix) => {
      const fh = await fs.open(path.join(prefix, 'lib/cmake/level-zero/big.cmake'));
      try {
        const { size } = await fh.stat();
        const head = Buffer.alloc(prefix.length + 8);
        const tail = Buffer.alloc(prefix.length + 6);
        await fh.read(head, 0, head.length, 0);
        await fh.read(tail, 0, tail.length, size - tail.length);
        expect([head.toString(), tail.toString(), size]).toEqual([`prefix=${prefix}\n`, `\n${prefix}/lib\n`, BIG_TEXT_BYTES + 2 * (prefix.length - BUILD_PREFIX.length)]);
      } finally {
        await fh.close();
      }
    } },
];

function canMount(): boolean {
  return process.getuid?.() === 0;
}

async function withTmpfs<T>(dir: string, size: string, fn: () => Promise<T>, readOnly = false): Promise<T> {
  await fs.mkdir(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${readOnly ? ',ro' : ''}`, 'tmpfs', dir]);
  try {
    return await fn();
  } finally {
    execFileSync('umount', ['-l', dir]);
  }
}

async function served(c: Case): Promise<FixtureIndex> {
  if (!c.serve) return fx.index;
  const { pick, bytes, listedSize } = await c.serve(fixtures);
  const file = fx.at(`${createHash('sha256').update(c.name).digest('hex').slice(0, 8)}-${fixtures.artifacts.find((a) => pick(a, fixtures))!.filename}`);
  await fs.writeFile(file, bytes);
  const artifacts = fixtures.artifacts.map((a) =>
    pick(a, fixtures)
      ? { ...a, path: file, size: listedSize ?? bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), md5: createHash('md5').update(bytes).digest('hex') }
      : a,
  );
  return startFixtureIndex({ fixtures: { ...fixtures, artifacts } });
}

describe('fault matrix: archives and install', () => {
  it.for(CASES)('$name', async (c, ctx) => {
    if ((c.tmpfs || c.readOnlyCache) && !canMount()) {
      table.add({ case: c.name, exit: NaN, code: 'skipped', ms: 0, outside: 'skipped: mounting needs root' });
      // Counted as skipped by the runner too, not as passed.
      ctx.skip('mounting needs root');
    }
    const dir = await fs.mkdtemp(fx.at('case-'));
    const parent = path.join(dir, 'p');
    const prefixName = c.prefixName ?? 'prefix';
    const prefix = path.join(parent, prefixName);
    const cache = path.join(dir, 'cache');
    const home = path.join(dir, 'home');
    const run = async (index: FixtureIndex) => {
      const args = ['setup', '--prefix', prefix, '--cache-dir', cache, '--component', c.component, '--no-smoke', '--json', ...(c.args ?? [])];
      if (c.channel) args.push('--conda-channel', index.condaChannelUrl(c.channel));
      if (c.platform) args.push('--platform', c.platform);
      const requires = ['level-zero>=1.8', ...(c.component === 'unified-runtime' && !c.platform ? [UR_FOR_DEBIAN_12.require] : [])];
      return runCli(args, scrubbedEnv(home, { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: requires.join(','), ...(c.env ?? {}) }), { umask: c.umask, peakRss: c.maxRssMb !== undefined, timeoutMs: 120_000 });
    };
    const body = async () => {
      await makeSentinel(path.join(parent, 'sentinel'));
      if (c.baseline) {
        const base = await run(fx.index);
        expect(base.exitCode, base.stderr).toBe(0);
      }
      const before = await snapshotTree(parent);
      await c.prepare?.(prefix, cache);
      const index = await served(c);
      if (c.readOnlyCache) {
        execFileSync('mount', ['--bind', cache, cache]);
        execFileSync('mount', ['-o', 'remount,ro,bind', cache]);
      }
      const t0 = Date.now();
      const r = await run(index).finally(() => {
        if (c.readOnlyCache) execFileSync('umount', [cache]);
        return index === fx.index ? undefined : index.close();
      });
      const ms = Date.now() - t0;
      let doc: { ok?: boolean; error?: { code?: string; message?: string; hints?: string[] } } = {};
      expect(() => (doc = JSON.parse(r.stdout)), `stdout must be one JSON document:\n${r.stdout}\n${r.stderr}`).not.toThrow();
      const after = await snapshotTree(parent);
      // A successful run changes the prefix (and leaves nothing else); a failed one changes nothing at all.
      if (r.exitCode === 0) for (const snap of [before, after]) for (const k of [...snap.keys()]) if (k === prefixName || k.startsWith(`${prefixName}/`)) snap.delete(k);
      if (r.exitCode === 0) for (const k of [...after.keys()]) if (k.endsWith('.xpu-setup.lock')) after.set(k, 'leftover lock');
      const outside = compareSnapshots(before, after);
      table.add({ case: c.name, exit: r.exitCode, code: doc.ok ? '-' : (doc.error?.code ?? '?'), ms, outside: r.peakRssKb ? `${outside}, peak ${Math.round(r.peakRssKb / 1024)} MiB` : outside });
      if (c.maxRssMb !== undefined) expect(r.peakRssKb! / 1024).toBeLessThan(c.maxRssMb);
      expect({ exit: r.exitCode, code: doc.ok ? '-' : doc.error?.code }, r.stderr).toEqual({ exit: c.exit, code: c.code });
      expect(r.stderr).not.toMatch(/internal error|Unhandled|\n\s+at .*\(.*:\d+:\d+\)/);
      if (c.says) expect(joined(r.stderr)).toMatch(c.says);
      // What a package names is said, not poured out: no message runs to tens of KB.
      expect(r.stderr.length).toBeLessThan(32 * 1024);
      if (c.exit !== 0) {
        expect(doc.error?.message?.length).toBeGreaterThan(10);
        expect(doc.error?.hints?.length).toBeGreaterThan(0);
      }
      expect(outside).toBe('unchanged');
      if (c.check && r.exitCode === 0) await c.check(prefix);
      if (c.baseline && c.exit !== 0) expect(doc.error?.hints?.join(' ')).toMatch(/previous prefix was kept|prefix was not changed/);
    };
    if (c.tmpfs === 'parent') await withTmpfs(parent, '256k', body);
    else if (c.tmpfs === 'cache') await withTmpfs(cache, '64k', body);
    else if (c.tmpfs === 'cache-ro') await withTmpfs(cache, '64k', body, true);
    else await body();
  });
});

describe('fault matrix: the receipt as input', () => {
  it('doctor on a receipt that names "../fifo" and a file through a linked directory reads neither', async () => {
    const dir = await fs.mkdtemp(fx.at('doctor-'));
    const prefix = path.join(dir, 'p', 'prefix');
    const env = scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const base = await runCli(['--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--no-probe'], env);
    expect(base.exitCode, base.stderr).toBe(0);
    // A FIFO: a reader that opened it would wait for ever, so the run ending at all shows it was never opened.
    execFileSync('mkfifo', [path.join(dir, 'p', 'fifo')]);
    await fs.mkdir(path.join(dir, 'elsewhere'));
    execFileSync('mkfifo', [path.join(dir, 'elsewhere', 'lib.so')]);
    await fs.symlink(path.join(dir, 'elsewhere'), path.join(prefix, 'via'));
    const file = path.join(prefix, 'xpu-setup.receipt.json');
    const receipt = JSON.parse(await fs.readFile(file, 'utf8')) as { files: { path: string; sha256: string; size: number }[] };
    receipt.files.push({ path: '../fifo', sha256: '0'.repeat(64), size: 1 }, { path: 'via/lib.so', sha256: '0'.repeat(64), size: 1 });
    await fs.writeFile(file, JSON.stringify(receipt));
    const t0 = Date.now();
    const r = await runCli(['doctor', '--prefix', prefix, '--json'], env);
    const ms = Date.now() - t0;
    const doc = JSON.parse(r.stdout) as { checks: { id: string; status: string; message: string }[] };
    const check = doc.checks.find((c) => c.id === 'prefix')!;
    table.add({ case: 'doctor: receipt names ../fifo and via/<link to outside>', exit: r.exitCode, code: check.status, ms, outside: 'unchanged' });
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/named outside the prefix, not read: \.\.\/fifo, via\/lib\.so/);
  });
});

describe('fault matrix: lockfiles and bundles as input', () => {
  type LockDoc = { platforms: Record<string, { key?: string; components: { name: string; version: string; archives: { url: string }[] }[] }> };
  const read = async (f: string) => JSON.parse(await fs.readFile(f, 'utf8')) as LockDoc;

  it('a lockfile whose version was edited by hand is refused, nothing installed', async () => {
    const dir = await fs.mkdtemp(fx.at('lock-'));
    const home = path.join(dir, 'home');
    const env = scrubbedEnv(home, { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const lockfile = path.join(dir, 'xpu-setup.lock.json');
    const w = await runCli(['lock', '--platform', 'linux-x64', '--lockfile', lockfile, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero'], env);
    expect(w.exitCode, w.stderr).toBe(0);
    const doc = await read(lockfile);
    doc.platforms['linux-x64']!.components[0]!.version = '1.99.0';
    await fs.writeFile(lockfile, JSON.stringify(doc, null, 2));
    const prefix = path.join(dir, 'prefix');
    const t0 = Date.now();
    const r = await runCli(['--locked', '--lockfile', lockfile, '--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--no-smoke', '--json'], env);
    const code = JSON.parse(r.stdout).error?.code as string;
    const prefixMade = await fs.stat(prefix).then(() => true, () => false);
    table.add({ case: 'lockfile: version edited by hand (1.99.0)', exit: r.exitCode, code, ms: Date.now() - t0, outside: prefixMade ? 'PREFIX CREATED' : 'unchanged' });
    expect([r.exitCode, code, prefixMade]).toEqual([1, 'LOCKFILE', false]);
    expect(r.stderr).toMatch(/does not match its key/);
  });

  it('a bundle whose lockfile names an http URL elsewhere (key rewritten to match) is refused, that host never asked', async () => {
    const dir = await fs.mkdtemp(fx.at('bundle-'));
    const env = scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const bundle = path.join(dir, 'bundle');
    const b = await runCli(['bundle', '--platform', 'linux-x64', '--out', bundle, '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--cache-dir', path.join(dir, 'bcache')], env);
    expect(b.exitCode, b.stderr).toBe(0);
    const lockfile = path.join(bundle, 'xpu-setup.lock.json');
    const doc = await read(lockfile);
    const entry = doc.platforms['linux-x64']!;
    const asked = fx.index.requests.length;
    entry.components[0]!.archives[0]!.url = `${fx.index.condaChannelUrl('bookworm')}/linux-64/elsewhere.conda`;
    const { lockKeyOf } = await import('../../src/plan/lockfile.js');
    entry.key = lockKeyOf('linux-x64', entry.components as never);
    await fs.writeFile(lockfile, JSON.stringify(doc, null, 2));
    const prefix = path.join(dir, 'prefix');
    const t0 = Date.now();
    const r = await runCli(['--from', bundle, '--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--no-smoke', '--json'], env);
    const code = JSON.parse(r.stdout).error?.code as string;
    table.add({ case: 'bundle: lockfile names an http URL off the bundle', exit: r.exitCode, code, ms: Date.now() - t0, outside: fx.index.requests.length === asked ? 'unchanged' : 'HOST ASKED' });
    expect([r.exitCode, code]).toEqual([1, 'LOCKFILE']);
    expect(r.stderr).toMatch(/which is not under the bundle/);
    expect(fx.index.requests.length).toBe(asked);
  });
});

describe('fault matrix: a plan reused while the index changed', () => {
  it('an archive re-published inside the 10-minute plan reuse: the sha256 mismatch says --refresh, not "the server"', async () => {
    const dir = await fs.mkdtemp(fx.at('reuse-'));
    const a = fixtures.artifacts.find((x) => L0_DEVEL_CONDA(x, fixtures))!;
    const copy = path.join(dir, a.filename);
    await fs.copyFile(a.path, copy);
    const index = await startFixtureIndex({ fixtures: { ...fixtures, artifacts: fixtures.artifacts.map((x) => (x === a ? { ...x, path: copy } : x)) } });
    try {
      const env = scrubbedEnv(path.join(dir, 'home'), { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
      const args = ['--prefix', path.join(dir, 'prefix'), '--cache-dir', path.join(dir, 'cache'), '--conda-channel', index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--no-smoke', '--json'];
      expect((await runCli([...args, '--dry-run'], env)).exitCode).toBe(0);
      // Re-published under the same name and size, other bytes.
      const bytes = await fs.readFile(copy);
      bytes[bytes.length - 1] = (bytes[bytes.length - 1]! ^ 0xff) & 0xff;
      await fs.writeFile(copy, bytes);
      const t0 = Date.now();
      const r = await runCli(args, env);
      const doc = JSON.parse(r.stdout) as { error?: { code?: string; hints?: string[] } };
      table.add({ case: 'archive re-published within the plan reuse', exit: r.exitCode, code: doc.error?.code ?? '-', ms: Date.now() - t0, outside: 'unchanged' });
      expect([r.exitCode, doc.error?.code]).toEqual([1, 'HASH_MISMATCH']);
      expect(doc.error?.hints?.[0]).toMatch(/reused the plan made at .* run again with --refresh/);
    } finally {
      await index.close();
    }
  });
});
