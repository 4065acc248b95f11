// Debian packages through readArchive: the data member read in this process (data.tar, .gz, .zst: no dpkg-deb on
// PATH) gives the same members as dpkg-deb gives for data.tar.xz, for Debian 12's own GPU driver package as for
// packages built here; damaged packages are refused with their name.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, type ArchiveEntry } from '../../src/formats/index.js';
import { ensureGpuDriverDebs } from '../support/debs.js';
import { failure } from '../support/failure.js';
import { tarBuffer, zstdCompress } from '../support/packages.js';

const run = promisify(execFile);
let work: string;
let n = 0;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-deb-reader-'));
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

/** A test double of a library: bytes, not an ELF file. */
const LIB = Buffer.from('stand-in library bytes, not a real one\n'.repeat(4000));
const PAYLOAD = tarBuffer([
  { path: './usr/lib/x86_64-linux-gnu/libxpu_reader_test.so.1.0.0', type: 'file', data: LIB, mode: 0o755 },
  { path: './usr/lib/x86_64-linux-gnu/libxpu_reader_test.so.1', type: 'symlink', target: 'libxpu_reader_test.so.1.0.0' },
  { path: './usr/share/doc/xpu-reader-test/copyright', type: 'file', data: Buffer.from('MIT\n') },
]);

/** A .deb built by `ar` as dpkg-deb lays one out: debian-binary, control.tar.gz, then the members given. */
async function deb(members: Record<string, Buffer>, version = '2.0\n'): Promise<string> {
  const dir = path.join(work, `d${n++}`);
  await fs.mkdir(dir);
  const control = 'Package: xpu-reader-test\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: xpu-setup tests <tests@invalid>\nDescription: a test package of the .deb reader\n';
  const files: Record<string, Buffer> = {
    'debian-binary': Buffer.from(version),
    'control.tar.gz': gzipSync(tarBuffer([{ path: './control', type: 'file', data: Buffer.from(control) }])),
    ...members,
  };
  for (const [name, bytes] of Object.entries(files)) await fs.writeFile(path.join(dir, name), bytes);
  const out = path.join(dir, 'xpu-reader-test_1.0-1_amd64.deb');
  await run('ar', ['rc', out, ...Object.keys(files)], { cwd: dir });
  return out;
}

/** Every member as the reader gives it, with each file's bytes. */
async function read(file: string): Promise<{ entry: ArchiveEntry; data?: string }[]> {
  const out: { entry: ArchiveEntry; data?: string }[] = [];
  await readArchive('deb', file, async (entry, body?: Readable) => {
    if (!body) return void out.push({ entry });
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c as Buffer);
    out.push({ entry, data: Buffer.concat(parts).toString('latin1') });
  }, path.basename(file));
  return out;
}

/** Runs `f` with no dpkg-deb to be found: what it reads, it reads in this process. */
async function withoutDpkg<T>(f: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = path.join(work, 'no-programs-here');
  try {
    return await f();
  } finally {
    process.env.PATH = saved;
  }
}

/** `b` compressed by a program of this machine (`xz`, `bzip2`), as Debian's tools write a data member. */
async function packed(program: 'xz' | 'bzip2', b: Buffer): Promise<Buffer> {
  const f = path.join(work, `x${n++}.tar`);
  await fs.writeFile(f, b);
  await run(program, ['-z', '-k', f]);
  return fs.readFile(`${f}.${program === 'xz' ? 'xz' : 'bz2'}`);
}
const xz = (b: Buffer) => packed('xz', b);

describe('readArchive deb', () => {
  // The first read of the file, before the tar parser has loaded: a small package's dpkg-deb exits before the reader
  // attaches, and its output must still be there.
  it('reads data.tar.zst, .gz, .bz2 and plain data.tar itself, with the members dpkg-deb gives for data.tar.xz', async () => {
    const throughDpkg = await read(await deb({ 'data.tar.xz': await xz(PAYLOAD) }));
    expect(throughDpkg.map((m) => m.entry.path)).toEqual(['usr/lib/x86_64-linux-gnu/libxpu_reader_test.so.1.0.0', 'usr/lib/x86_64-linux-gnu/libxpu_reader_test.so.1', 'usr/share/doc/xpu-reader-test/copyright']);
    expect(throughDpkg[0]!.entry.mode).toBe(0o755);
    expect(throughDpkg[0]!.data).toBe(LIB.toString('latin1'));
    expect(throughDpkg[1]!.entry).toMatchObject({ type: 'symlink', linkTarget: 'libxpu_reader_test.so.1.0.0' });
    for (const [member, bytes] of [['data.tar.zst', await zstdCompress(PAYLOAD)], ['data.tar.gz', gzipSync(PAYLOAD)], ['data.tar.bz2', await packed('bzip2', PAYLOAD)], ['data.tar', PAYLOAD]] as const) {
      const file = await deb({ [member]: bytes });
      expect(await withoutDpkg(() => read(file)), member).toEqual(throughDpkg);
    }
  });

  it("reads Debian 12's own intel-opencl-icd (the GPU driver, 22.43) with its data member as zstd, as dpkg-deb reads the package as shipped", async () => {
    const dir = path.join(work, 'real');
    await fs.mkdir(dir);
    const shipped = path.join(path.dirname((await ensureGpuDriverDebs()).root), 'intel-opencl-icd_22.43.24595.41-1_amd64.deb');
    // The same package with its data member recompressed: debian-binary and control.tar.xz as Debian built them.
    await run('ar', ['x', shipped], { cwd: dir });
    expect((await run('ar', ['t', shipped])).stdout.split('\n').filter(Boolean)).toEqual(['debian-binary', 'control.tar.xz', 'data.tar.xz']);
    await run('sh', ['-c', 'xz -dc data.tar.xz | zstd -q -3 -o data.tar.zst'], { cwd: dir });
    const repacked = path.join(dir, 'intel-opencl-icd_22.43.24595.41-1_amd64.deb');
    await run('ar', ['rc', repacked, 'debian-binary', 'control.tar.xz', 'data.tar.zst'], { cwd: dir });
    const digest = async (file: string) => {
      const out: string[] = [];
      await readArchive('deb', file, async (entry, body?: Readable) => {
        const hash = createHash('sha256');
        if (body) for await (const c of body) hash.update(c as Buffer);
        out.push(`${entry.type} ${entry.mode.toString(8)} ${entry.path} ${entry.linkTarget ?? ''} ${body ? hash.digest('hex') : ''}`);
      });
      return out;
    };
    const asShipped = await digest(shipped);
    expect(asShipped).toContainEqual(expect.stringMatching(/^file 644 usr\/lib\/x86_64-linux-gnu\/intel-opencl\/libigdrcl\.so /));
    expect(asShipped).toContainEqual(expect.stringMatching(/^file 644 usr\/lib\/x86_64-linux-gnu\/libze_intel_gpu\.so\.1\.3\.24595 /));
    expect(asShipped).toContainEqual(expect.stringMatching(/^symlink 777 usr\/lib\/x86_64-linux-gnu\/libze_intel_gpu\.so\.1 libze_intel_gpu\.so\.1\.3\.24595 $/));
    expect(asShipped).toContainEqual(expect.stringMatching(/^file 755 usr\/bin\/ocloc /));
    expect(await withoutDpkg(() => digest(repacked))).toEqual(asShipped);
  });

  it('reads past members other than the data member (a signature) before it', async () => {
    const file = await deb({ _gpgorigin: Buffer.from('-----BEGIN PGP SIGNATURE-----\n'), 'data.tar.zst': await zstdCompress(PAYLOAD) });
    expect((await withoutDpkg(() => read(file))).map((m) => m.entry.path)).toHaveLength(3);
  });

  it('goes to dpkg-deb for data.tar.xz, and says so when there is none', async () => {
    const file = await deb({ 'data.tar.xz': await xz(PAYLOAD) });
    const e = await failure(withoutDpkg(() => read(file)));
    expect(e).toMatchObject({ code: 'BAD_ARCHIVE', message: expect.stringContaining('cannot run dpkg-deb') });
  });

  it('names the member a data.tar.zst cut short ends in', async () => {
    const whole = await fs.readFile(await deb({ 'data.tar.zst': await zstdCompress(PAYLOAD) }));
    const cut = path.join(work, 'cut_1.0_amd64.deb');
    await fs.writeFile(cut, whole.subarray(0, whole.length - 200));
    const e = await failure(withoutDpkg(() => read(cut)));
    expect(e).toMatchObject({ code: 'BAD_ARCHIVE', message: expect.stringMatching(/^cut_1\.0_amd64\.deb is not a readable tar archive/) });
  });

  it('refuses what is not a Debian package of format 2, naming the file and why', async () => {
    const notAr = path.join(work, 'not-ar_1.0_amd64.deb');
    await fs.writeFile(notAr, Buffer.from('PK\x03\x04 a zip, not a package'));
    const cases: [string, RegExp][] = [
      [notAr, /^not-ar_1\.0_amd64\.deb is not a readable Debian package: it does not start as an ar archive/],
      [await deb({ 'data.tar.gz': gzipSync(PAYLOAD) }, '3.0\n'), /is not a readable Debian package: its first member is not debian-binary of format 2\.x/],
      [await deb({ 'payload.tar': PAYLOAD }), /is not a readable Debian package: it has no data\.tar member/],
    ];
    for (const [file, says] of cases) {
      const e = await failure(withoutDpkg(() => read(file)));
      expect(e, file).toMatchObject({ code: 'BAD_ARCHIVE', message: expect.stringMatching(says) });
    }
  });
});
