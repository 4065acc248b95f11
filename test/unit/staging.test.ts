// Staging on its own: real tar.gz archives (GNU tar or tarBuffer) extracted member by member; what lands, what is refused, and the unpack limits.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATIO_FLOOR, type UnpackLimits } from '../../src/records/limits.js';
import { Staging } from '../../src/install/staging.js';
import { tarBuffer, type ArchiveEntry } from '../support/packages.js';
import { failure } from '../support/failure.js';

let work: string;
let n = 0;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-staging-'));
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

const RULES = [{ from: 'pkg/', to: '' }];
const LABEL = 'pkg.tar.gz (https://example.invalid/pkg.tar.gz)';
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

async function fresh(limits?: UnpackLimits, names: 'posix' | 'windows' = 'posix'): Promise<Staging> {
  const root = path.join(work, `stage-${n++}`);
  await fs.mkdir(root);
  return new Staging(root, limits, names);
}

/** A .tar.gz of the entries, in the order given. */
async function tgz(entries: ArchiveEntry[]): Promise<string> {
  const file = path.join(work, `a-${n++}.tar.gz`);
  await fs.writeFile(file, gzipSync(tarBuffer(entries)));
  return file;
}

/** A .tar.gz made by GNU tar from a tree that `build` writes under pkg/: directory entries, hard links and modes as tar stores them. */
async function tgzOfTree(build: (pkg: string) => Promise<void>): Promise<string> {
  const src = path.join(work, `tree-${n++}`);
  await fs.mkdir(path.join(src, 'pkg'), { recursive: true });
  await build(path.join(src, 'pkg'));
  const file = `${src}.tar.gz`;
  execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '-czf', file, '-C', src, 'pkg']);
  return file;
}

const mode = async (f: string) => (await fs.lstat(f)).mode & 0o777;

describe('Staging.extract', () => {
  it('writes files with their modes, links and hard-link copies, counts the members and records each one', async () => {
    const tool = '#!/bin/sh\necho tool\n';
    const lib = Buffer.from('not a real library, only bytes\n'.repeat(40));
    const file = await tgzOfTree(async (pkg) => {
      await fs.mkdir(path.join(pkg, 'bin'));
      await fs.mkdir(path.join(pkg, 'lib'));
      await fs.writeFile(path.join(pkg, 'bin', 'tool'), tool, { mode: 0o755 });
      await fs.chmod(path.join(pkg, 'bin', 'tool'), 0o755);
      await fs.writeFile(path.join(pkg, 'lib', 'a.so.1'), lib);
      await fs.chmod(path.join(pkg, 'lib', 'a.so.1'), 0o600);
      await fs.symlink('a.so.1', path.join(pkg, 'lib', 'a.so'));
      await fs.link(path.join(pkg, 'lib', 'a.so.1'), path.join(pkg, 'lib', 'z.so.1'));
    });
    const s = await fresh();
    // pkg/, pkg/bin/ and pkg/lib/ are directory entries: they make directories, not members.
    expect(await s.extract('tar.gz', file, LABEL, RULES)).toBe(4);
    expect(await fs.readFile(s.abs('bin/tool'), 'utf8')).toBe(tool);
    expect(await mode(s.abs('bin/tool'))).toBe(0o755);
    // One mode rule for every format: 0755 or 0644, whatever the archive says.
    expect(await mode(s.abs('lib/a.so.1'))).toBe(0o644);
    expect(await fs.readlink(s.abs('lib/a.so'))).toBe('a.so.1');
    expect(await fs.readFile(s.abs('lib/z.so.1'))).toEqual(lib);
    expect(s.files.get('bin/tool')).toEqual({ path: 'bin/tool', sha256: sha(tool), size: tool.length, mtimeMs: expect.any(Number) });
    expect(s.files.get('lib/a.so')).toEqual({ path: 'lib/a.so', sha256: '', size: 0, link: 'a.so.1' });
    expect(s.files.get('lib/z.so.1')).toEqual({ path: 'lib/z.so.1', sha256: sha(lib), size: lib.length, mtimeMs: (await fs.stat(s.abs('lib/z.so.1'))).mtimeMs });
    expect([...s.files.keys()].sort()).toEqual(['bin/tool', 'lib/a.so', 'lib/a.so.1', 'lib/z.so.1']);
    expect(await s.has('lib/a.so')).toBe(true);
    expect(await s.has('lib/none')).toBe(false);
  });

  it('a file member with no permission bits is written 0644', async () => {
    const s = await fresh();
    const file = await tgz([{ path: 'pkg/f', type: 'file', data: Buffer.from('x'), mode: 0 }]);
    await s.extract('tar.gz', file, LABEL, RULES);
    expect(await mode(s.abs('f'))).toBe(0o644);
  });

  it('under umask 000 a member declaring 06777 is written 0755 and one declaring 0666 is written 0644, directories 0755', async () => {
    const old = process.umask(0);
    try {
      const s = await fresh();
      const file = await tgz([
        { path: 'pkg/lib/suid.so', type: 'file', data: Buffer.from('x'), mode: 0o6777 },
        { path: 'pkg/lib/open.h', type: 'file', data: Buffer.from('y'), mode: 0o666 },
        { path: 'pkg/lib/sticky', type: 'file', data: Buffer.from('z'), mode: 0o1644 },
      ]);
      await s.extract('tar.gz', file, LABEL, RULES);
      const full = async (f: string) => (await fs.lstat(f)).mode & 0o7777;
      expect([await full(s.abs('lib/suid.so')), await full(s.abs('lib/open.h')), await full(s.abs('lib/sticky')), await full(s.abs('lib'))]).toEqual([0o755, 0o644, 0o644, 0o755]);
    } finally {
      process.umask(old);
    }
  });

  it.each([
    ['pkg/include/CON', 'device name Windows reserves'],
    ['pkg/include/aux.h', 'device name Windows reserves'],
    ['pkg/nul.txt', 'device name Windows reserves'],
    ['pkg/bin/COM1.dll', 'device name Windows reserves'],
    ['pkg/lib/trailing.', 'ends in a dot or a space'],
    ['pkg/lib/trailing ', 'ends in a dot or a space'],
    ['pkg/lib/a:b', 'names a stream'],
  ])('for a Windows target, %j is UNSAFE_PATH (%s); for Linux it installs', async (member, why) => {
    const file = await tgz([{ path: member, type: 'file', data: Buffer.from('x') }]);
    const e = await failure((await fresh(undefined, 'windows')).extract('tar.gz', file, LABEL, RULES));
    expect([e.code, e.message]).toEqual(['UNSAFE_PATH', expect.stringContaining(why)]);
    expect(await (await fresh()).extract('tar.gz', file, LABEL, RULES)).toBe(1);
  });

  it('for a Windows target, members differing only by case are UNSAFE_PATH, as files and as directories', async () => {
    const files = await tgz([
      { path: 'pkg/include/level_zero/ze_api.h', type: 'file', data: Buffer.from('a') },
      { path: 'pkg/include/level_zero/ZE_API.H', type: 'file', data: Buffer.from('b') },
    ]);
    const e = await failure((await fresh(undefined, 'windows')).extract('tar.gz', files, LABEL, RULES));
    expect([e.code, e.message]).toEqual(['UNSAFE_PATH', expect.stringContaining('"include/level_zero/ZE_API.H" and "include/level_zero/ze_api.h" are one name on Windows')]);
    const dirs = await tgz([
      { path: 'pkg/include/level_zero/ze_api.h', type: 'file', data: Buffer.from('a') },
      { path: 'pkg/include/Level_Zero/other.h', type: 'file', data: Buffer.from('b') },
    ]);
    expect((await failure((await fresh(undefined, 'windows')).extract('tar.gz', dirs, LABEL, RULES))).code).toBe('UNSAFE_PATH');
    expect(await (await fresh()).extract('tar.gz', dirs, LABEL, RULES)).toBe(2);
  });

  it('a hostile name in a member no rule maps still makes the archive hostile', async () => {
    const file = await tgz([
      { path: 'pkg/ok.h', type: 'file', data: Buffer.from('a') },
      { path: 'docs/../../../evil.txt', type: 'file', data: Buffer.from('b') },
    ]);
    const e = await failure((await fresh()).extract('tar.gz', file, LABEL, RULES));
    expect([e.code, e.details.member]).toEqual(['UNSAFE_PATH', 'docs/../../../evil.txt']);
  });

  it('refuses a hard link to a symlink, and one whose target the rules do not map', async () => {
    const file = await tgzOfTree(async (pkg) => {
      await fs.writeFile(path.join(pkg, 'a'), 'data');
      await fs.symlink('a', path.join(pkg, 'l'));
      await fs.link(path.join(pkg, 'l'), path.join(pkg, 'm'));
    });
    const e = await failure((await fresh()).extract('tar.gz', file, LABEL, RULES));
    expect([e.code, e.message, e.details]).toEqual(['BAD_ARCHIVE', `${LABEL}: hard link m points at l, which was not extracted before it`, { archive: LABEL, member: 'm' }]);

    const file2 = await tgzOfTree(async (pkg) => {
      await fs.writeFile(path.join(pkg, 'a'), 'data');
      await fs.link(path.join(pkg, 'a'), path.join(pkg, 'b'));
    });
    const e2 = await failure((await fresh()).extract('tar.gz', file2, LABEL, [{ from: 'pkg/b', to: 'b' }]));
    expect([e2.code, e2.message, e2.details]).toEqual(['BAD_ARCHIVE', `${LABEL}: hard link pkg/b leaves the mapped tree`, { archive: LABEL }]);
  });

  it('refuses a second member at one path, naming the first archive when it was another', async () => {
    const s = await fresh();
    const twice = await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.from('1') }, { path: 'pkg/a', type: 'file', data: Buffer.from('2') }]);
    const e = await failure(s.extract('tar.gz', twice, LABEL, RULES));
    expect([e.code, e.message, e.details]).toEqual(['DUPLICATE_MEMBER', `${LABEL} has a second member at a`, { archive: LABEL, member: 'a', first: LABEL }]);
    expect(e.hints).toEqual([expect.stringMatching(/^a package that writes one path twice is malformed or hostile .*; nothing from it was installed and the prefix was not changed$/)]);

    const s2 = await fresh();
    await s2.extract('tar.gz', await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.from('1') }]), 'first.tar.gz', RULES);
    const e2 = await failure(s2.extract('tar.gz', await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.from('2') }]), 'second.tar.gz', RULES));
    expect(e2.message).toBe('second.tar.gz has a second member at a (the first came from first.tar.gz)');
    expect(await fs.readFile(s2.abs('a'), 'utf8')).toBe('1');
  });

  it('refuses a file where members made a directory, and a member under a file', async () => {
    const e = await failure((await fresh()).extract('tar.gz', await tgz([
      { path: 'pkg/a/b/c', type: 'file', data: Buffer.from('c') },
      { path: 'pkg/a/b', type: 'file', data: Buffer.from('b') },
    ]), LABEL, RULES));
    expect([e.code, e.message, e.details]).toEqual(['DUPLICATE_MEMBER', `${LABEL} puts a file or link at a/b, where other members make a directory`, { archive: LABEL, member: 'a/b' }]);
    expect(e.hints).toEqual(['the package is malformed or hostile; nothing from it was installed and the prefix was not changed']);

    const e2 = await failure((await fresh()).extract('tar.gz', await tgz([
      { path: 'pkg/a', type: 'file', data: Buffer.from('a') },
      { path: 'pkg/a/b', type: 'file', data: Buffer.from('b') },
    ]), LABEL, RULES));
    expect([e2.code, e2.message, e2.details]).toEqual(['DUPLICATE_MEMBER', `${LABEL} puts a/b under a, which is a file`, { archive: LABEL, member: 'a/b', file: 'a' }]);
    expect(e2.hints).toEqual(['the package is malformed; nothing from it was installed and the prefix was not changed']);
  });

  it('never writes a member through a symlink member, nor through a link it did not make', async () => {
    const outside = path.join(work, `outside-${n++}`);
    await fs.mkdir(outside);
    const e = await failure((await fresh()).extract('tar.gz', await tgz([
      { path: 'pkg/lib', type: 'symlink', target: 'real' },
      { path: 'pkg/lib/x', type: 'file', data: Buffer.from('x') },
    ]), LABEL, RULES));
    expect([e.code, e.message, e.details]).toEqual(['UNSAFE_PATH', `refusing archive member "lib/x" in ${LABEL}: it would be written through the symlink lib`, { archive: LABEL, member: 'lib/x', link: 'lib' }]);
    expect(e.hints).toEqual(['no member is ever written through a link; the package is malformed or hostile; nothing from it was installed and the prefix was not changed']);

    // A directory of the tree that is a link nobody declared (not a member): the write is refused all the same.
    const s = await fresh();
    await fs.symlink(outside, path.join(s.root, 'evil'));
    const e2 = await failure(s.extract('tar.gz', await tgz([{ path: 'pkg/evil/x', type: 'file', data: Buffer.from('x') }]), LABEL, RULES));
    expect([e2.code, e2.message, e2.details]).toEqual(['UNSAFE_PATH', `refusing to write evil/x: its directory is not inside the staging tree ${s.root}`, { member: 'evil/x', staging: s.root }]);
    expect(e2.hints).toEqual(['nothing from it was installed and the prefix was not changed']);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('refuses a link that leaves the tree through links before it, and one that leaves only once later links exist', async () => {
    const e = await failure((await fresh()).extract('tar.gz', await tgz([
      { path: 'pkg/p/q/a/b', type: 'symlink', target: '../..' },
      { path: 'pkg/p/q/a/c', type: 'symlink', target: 'b/../..' },
    ]), LABEL, RULES));
    expect([e.code, e.message, e.details]).toEqual(['UNSAFE_PATH', `refusing archive member "p/q/a/c" in ${LABEL}: link target "b/../.." resolves outside the prefix through other links`, { archive: LABEL, member: 'p/q/a/c', target: 'b/../..' }]);
    expect(e.hints).toEqual(['the package is malformed or hostile; nothing from it was installed and the prefix was not changed']);

    // In the other order each link is fine when it is made; only the finished set escapes.
    const s = await fresh();
    await s.extract('tar.gz', await tgz([
      { path: 'pkg/p/q/a/c', type: 'symlink', target: 'b/../..' },
      { path: 'pkg/p/q/a/b', type: 'symlink', target: '../..' },
    ]), LABEL, RULES);
    expect(() => s.checkLinks()).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH', message: expect.stringContaining(LABEL) }));
  });

  it('a member whose name no file system can hold is NAME_TOO_LONG, naming the archive, the member shortened and the limit, before anything is written', async () => {
    const s = await fresh();
    const long = `lib/${'n'.repeat(300)}.so`;
    const e = await failure(s.extract('tar.gz', await tgz([{ path: `pkg/${long}`, type: 'file', data: Buffer.from('f') }]), LABEL, RULES));
    expect(e.code).toBe('NAME_TOO_LONG');
    expect(e.message).toMatch(new RegExp(`^${LABEL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} has a member whose name is too long for this file system: lib/n+…n+\\.so \\(a name of 303 bytes; the limit is 255\\)$`));
    expect(e.details).toEqual({ archive: LABEL, member: long, length: 303, limit: 255, unit: 'bytes' });
    expect(e.hints?.[1]).toBe('choose another version or source of the component (--source), or report the package to its maintainers');
    await expect(fs.stat(path.join(s.root, 'lib'))).rejects.toThrow();
  });
});

describe('Staging.writeText', () => {
  it('writes a file with the mode asked for, replacing a package file by rename', async () => {
    const s = await fresh();
    await s.extract('tar.gz', await tgz([{ path: 'pkg/lib/pkgconfig/x.pc', type: 'file', data: Buffer.from('shipped') }]), LABEL, RULES);
    const rec = await s.writeText('lib/pkgconfig/x.pc', 'rerooted\n');
    expect(rec).toEqual({ path: 'lib/pkgconfig/x.pc', sha256: sha('rerooted\n'), size: 9, mtimeMs: expect.any(Number) });
    expect(await fs.readFile(s.abs('lib/pkgconfig/x.pc'), 'utf8')).toBe('rerooted\n');
    await s.writeText('bin/run', '#!/bin/sh\n', 0o755);
    expect(await mode(s.abs('bin/run'))).toBe(0o755);
    await s.writeText('top.txt', 'one segment\n');
    expect(await fs.readdir(s.root)).toEqual(expect.arrayContaining(['top.txt']));
    expect((await fs.readdir(path.join(s.root, 'lib', 'pkgconfig'))).sort()).toEqual(['x.pc']);
  });

  it('never writes over a package symlink, nor through one', async () => {
    const s = await fresh();
    await s.extract('tar.gz', await tgz([
      { path: 'pkg/real/x.pc', type: 'file', data: Buffer.from('x') },
      { path: 'pkg/lib', type: 'symlink', target: 'real' },
      { path: 'pkg/real/y.pc', type: 'symlink', target: 'x.pc' },
      { path: 'pkg/real/deep', type: 'symlink', target: '.' },
    ]), LABEL, RULES);
    const e = await failure(s.writeText('real/y.pc', 'text'));
    expect([e.code, e.message, e.details]).toEqual(['UNSAFE_PATH', "refusing to write real/y.pc over the package's symlink of that name", { member: 'real/y.pc' }]);
    expect(e.hints).toEqual(['nothing from it was installed and the prefix was not changed']);
    const e2 = await failure(s.writeText('lib/pkgconfig/z.pc', 'text'));
    expect([e2.code, e2.message, e2.details]).toEqual(['UNSAFE_PATH', 'refusing to write lib/pkgconfig/z.pc through the symlink lib', { member: 'lib/pkgconfig/z.pc', link: 'lib' }]);
    expect(e2.hints).toEqual(['nothing from it was installed and the prefix was not changed']);
    const e3 = await failure(s.writeText('real/deep/z.pc', 'text'));
    expect(e3.message).toBe('refusing to write real/deep/z.pc through the symlink real/deep');
    expect((await fs.readdir(path.join(s.root, 'real'))).sort()).toEqual(['deep', 'x.pc', 'y.pc']);
    expect(await fs.readFile(s.abs('real/x.pc'), 'utf8')).toBe('x');
  });
});

describe('unpack limits', () => {
  const limitHint = 'if you trust it, raise the limit with --max-unpacked SIZE or XPU_SETUP_MAX_UNPACKED=SIZE (e.g. 8GiB; 0 = no limit)';

  it('a member of exactly the byte limit fits; one byte more does not, and the message gives the limit', async () => {
    const file = await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.alloc(1000, 1) }]);
    await (await fresh({ maxBytes: 1000, maxRatio: 0 })).extract('tar.gz', file, LABEL, RULES);
    const e = await failure((await fresh({ maxBytes: 999, maxRatio: 0 })).extract('tar.gz', file, LABEL, RULES));
    expect([e.code, e.message]).toEqual(['TOO_LARGE', `${LABEL} unpacks to more than 999 bytes, the limit per archive`]);
    expect(e.details).toEqual({ archive: LABEL, limit: 999, archiveSize: (await fs.stat(file)).size });
    expect(e.hints).toEqual(['a package this large is unusual (an archive bomb?); nothing from it was installed and the prefix was not changed', limitHint]);
  });

  it('says a limit of a MiB or more in MiB', async () => {
    const file = await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.alloc(1024 ** 2 + 1, 1) }]);
    const e = await failure((await fresh({ maxBytes: 1024 ** 2, maxRatio: 0 })).extract('tar.gz', file, LABEL, RULES));
    expect(e.message).toBe(`${LABEL} unpacks to more than 1.0 MiB, the limit per archive`);
    const e2 = await failure((await fresh({ maxBytes: 1.5 * 1024 ** 2, maxRatio: 0 })).extract('tar.gz', await tgz([{ path: 'pkg/a', type: 'file', data: Buffer.alloc(2 * 1024 ** 2, 1) }]), LABEL, RULES));
    expect(e2.message).toBe(`${LABEL} unpacks to more than 1.5 MiB, the limit per archive`);
  });

  it('a hard link counts against the limit like the file it copies', async () => {
    const file = await tgzOfTree(async (pkg) => {
      await fs.writeFile(path.join(pkg, 'a'), Buffer.alloc(1000, 2));
      await fs.link(path.join(pkg, 'a'), path.join(pkg, 'b'));
    });
    await (await fresh({ maxBytes: 2000, maxRatio: 0 })).extract('tar.gz', file, LABEL, RULES);
    const e = await failure((await fresh({ maxBytes: 1500, maxRatio: 0 })).extract('tar.gz', file, LABEL, RULES));
    expect(e.message).toBe(`${LABEL} unpacks to more than 1500 bytes, the limit per archive`);
  });

  it('the ratio applies only above RATIO_FLOOR bytes: exactly the floor passes, more trips the default ratio of 200', async () => {
    // Zeros compress about 1000:1.
    const atFloor = await tgz([{ path: 'pkg/z', type: 'file', data: Buffer.alloc(RATIO_FLOOR) }]);
    const s = await fresh();
    await s.extract('tar.gz', atFloor, LABEL, RULES);
    expect(s.files.get('z')!.size).toBe(RATIO_FLOOR);
    await fs.rm(s.root, { recursive: true });

    const over = await tgz([{ path: 'pkg/z', type: 'file', data: Buffer.alloc(RATIO_FLOOR + 1024 ** 2) }]);
    const size = (await fs.stat(over)).size;
    const s2 = await fresh();
    const e = await failure(s2.extract('tar.gz', over, LABEL, RULES));
    expect([e.code, e.message]).toEqual(['TOO_LARGE', `${LABEL} (${size} bytes) unpacks to more than 200 times its size`]);
    expect(e.details).toEqual({ archive: LABEL, ratioLimit: 200, archiveSize: size, unpackedSoFar: expect.any(Number) });
    expect(e.details.unpackedSoFar as number).toBeGreaterThan(RATIO_FLOOR);
    expect(e.details.unpackedSoFar as number).toBeLessThanOrEqual(RATIO_FLOOR + 1024 ** 2);
    expect(e.hints).toEqual([
      'real packages compress far less; this looks like an archive bomb; nothing from it was installed and the prefix was not changed',
      'if you trust it, raise the limit with --max-ratio N or XPU_SETUP_MAX_RATIO=N (0 = no limit)',
    ]);
    await fs.rm(s2.root, { recursive: true });

    // A ratio above what the archive reaches lets it through.
    const s3 = await fresh({ maxBytes: 0, maxRatio: 100_000 });
    await s3.extract('tar.gz', over, LABEL, RULES);
    expect(s3.files.get('z')!.size).toBe(RATIO_FLOOR + 1024 ** 2);
    await fs.rm(s3.root, { recursive: true });
  });

  it('under the floor a very compressible archive is fine, and the default byte limit is 2 GiB', async () => {
    const s = await fresh();
    await s.extract('tar.gz', await tgz([{ path: 'pkg/z', type: 'file', data: Buffer.alloc(1024 ** 2) }]), LABEL, RULES);
    expect(s.limits).toEqual({ maxBytes: 2 * 1024 ** 3, maxRatio: 200 });
  });
});
