// The tar and zip readers through readArchive: member types, modes, directory entries, and damaged archives, from archives built byte by byte.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, type ArchiveEntry, type ArchiveFormat } from '../../src/formats/index.js';
import { zipWithCorruptDeflate, zipWithWrongCrc } from '../faults/hostile.js';
import { failure } from '../support/failure.js';

let work: string;
let n = 0;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-readers-'));
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

interface Member {
  name: string;
  /** The tar typeflag: '0' file, '\0' old file, '7' contiguous file, '5' directory, '1' hard link, '2' symlink, '6' FIFO. */
  flag: string;
  data?: Buffer;
  mode?: number;
  link?: string;
}

/** One ustar header block, checksum included. */
function header(m: Member): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, at: number, len: number) => h.write(s, at, len, 'latin1');
  const octal = (v: number, len: number) => v.toString(8).padStart(len - 1, '0');
  put(m.name, 0, 100);
  put(octal(m.mode ?? 0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(m.data?.length ?? 0, 12), 124, 12);
  put(octal(Math.floor(Date.UTC(2025, 0, 1) / 1000), 12), 136, 12);
  h.write(m.flag, 156, 1, 'latin1');
  put(m.link ?? '', 157, 100);
  put('ustar\u000000', 257, 8);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${octal(sum, 7)}\u0000 `, 148, 8);
  return h;
}

function tar(members: Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    parts.push(header(m));
    if (m.data?.length) parts.push(m.data, Buffer.alloc((512 - (m.data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

async function save(bytes: Buffer, ext: string): Promise<string> {
  const file = path.join(work, `a-${n++}.${ext}`);
  await fs.writeFile(file, bytes);
  return file;
}

interface Seen {
  entry: ArchiveEntry;
  body?: string;
}

/** Reads the archive, taking each file body whole; a visitor error for `failOn` stops it. */
async function read(format: ArchiveFormat, file: string, failOn?: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  await readArchive(format, file, async (entry, body) => {
    if (entry.path === failOn) throw new Error(`visitor refuses ${entry.path}`);
    const s: Seen = { entry };
    seen.push(s);
    if (body) {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      s.body = Buffer.concat(chunks).toString();
    }
  });
  return seen;
}

describe('tar reader', () => {
  it('yields every kind of file, directories, hard links and symlinks, with modes and bodies only for files', async () => {
    const file = await save(gzipSync(tar([
      { name: './', flag: '5', mode: 0o755 },
      { name: '.', flag: '5', mode: 0o755 },
      { name: 'pkg/', flag: '5', mode: 0o755 },
      { name: 'pkg/a', flag: '0', data: Buffer.from('plain'), mode: 0o755 },
      { name: 'pkg/old', flag: '\0', data: Buffer.from('old style') },
      { name: 'pkg/contig', flag: '7', data: Buffer.from('contiguous') },
      { name: 'pkg/hard', flag: '1', link: './pkg/a' },
      { name: 'pkg/soft', flag: '2', link: 'a', mode: 0o777 },
    ])), 'tar.gz');
    const seen = await read('tar.gz', file);
    expect(seen.map((s) => [s.entry.path, s.entry.type, s.entry.mode, s.entry.linkTarget, s.body])).toEqual([
      ['pkg', 'dir', 0o755, undefined, undefined],
      ['pkg/a', 'file', 0o755, undefined, 'plain'],
      ['pkg/old', 'file', 0o644, undefined, 'old style'],
      ['pkg/contig', 'file', 0o644, undefined, 'contiguous'],
      ['pkg/hard', 'hardlink', 0o644, 'pkg/a', undefined],
      ['pkg/soft', 'symlink', 0o777, 'a', undefined],
    ]);
    expect(seen[1]!.entry.size).toBe(5);
  });

  it('skips a root directory written as "/", and refuses a file that names the root', async () => {
    const ok = await save(gzipSync(tar([{ name: '/', flag: '5', mode: 0o755 }, { name: 'pkg/a', flag: '0', data: Buffer.from('a') }])), 'tar.gz');
    expect((await read('tar.gz', ok)).map((s) => s.entry.path)).toEqual(['pkg/a']);
    const bad = await save(gzipSync(tar([{ name: '.', flag: '0', data: Buffer.from('not a directory') }])), 'tar.gz');
    expect(await failure(read('tar.gz', bad))).toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/refusing archive member "\." in .*: empty path$/) });
  });

  it('refuses a member of another type (a FIFO), naming it and the archive', async () => {
    const file = await save(gzipSync(tar([{ name: 'pkg/fifo', flag: '6' }])), 'tar.gz');
    const e = await failure(read('tar.gz', file));
    expect([e.code, e.message, e.details]).toEqual(['BAD_ARCHIVE', `${file}: member "pkg/fifo" has unsupported type FIFO`, { archive: file, member: 'pkg/fifo', type: 'FIFO' }]);
    expect(e.hints).toEqual(['only files, directories and links are installed; the package is not one xpu-setup can use']);
  });

  it('refuses a hard link that climbs out of the archive', async () => {
    const file = await save(gzipSync(tar([{ name: 'pkg/a', flag: '0', data: Buffer.from('x') }, { name: 'pkg/h', flag: '1', link: '../../etc/passwd' }])), 'tar.gz');
    expect((await failure(read('tar.gz', file))).code).toBe('UNSAFE_PATH');
  });

  it('after the visitor fails, no later member is visited', async () => {
    const file = await save(gzipSync(tar([
      { name: 'pkg/a', flag: '0', data: Buffer.from('a') },
      { name: 'pkg/b', flag: '0', data: Buffer.from('b') },
      { name: 'pkg/c', flag: '0', data: Buffer.from('c') },
    ])), 'tar.gz');
    const visited: string[] = [];
    await expect(readArchive('tar.gz', file, async (entry, body) => {
      visited.push(entry.path);
      body?.resume();
      if (entry.path === 'pkg/a') throw new Error('visitor refuses pkg/a');
    })).rejects.toThrow('visitor refuses pkg/a');
    expect(visited).toEqual(['pkg/a']);
  });

  it('an archive cut inside a member ends that member\'s body with an error and is BAD_ARCHIVE, not a hang', async () => {
    const whole = gzipSync(tar([{ name: 'pkg/big', flag: '0', data: Buffer.alloc(600_000, 7) }]), { level: 0 });
    const file = await save(whole.subarray(0, 300_000), 'tar.gz');
    let bodyError = '';
    const e = await failure(readArchive('tar.gz', file, async (_entry, body) => {
      try {
        for await (const _c of body as Readable) void _c;
      } catch (err) {
        bodyError = (err as Error).message;
        throw err;
      }
    }));
    expect([e.code, e.message, e.details]).toEqual(['BAD_ARCHIVE', `${file} is not a readable tar archive: it ends inside member "pkg/big"`, { archive: file, member: 'pkg/big' }]);
    expect(e.hints).toEqual(['the download may be damaged: remove it from the cache and run again']);
    // The member's body fails with the archive's own fault, so a writer under it says the archive, not the write.
    expect(bodyError).toBe(e.message);
  });
});

/** A zip built with yazl: files (with modes) and empty directories. */
function zip(entries: Array<{ path: string; data?: Buffer; mode?: number }>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
    for (const e of entries) {
      if (e.data) z.addBuffer(e.data, e.path, { mtime: new Date(Date.UTC(2025, 0, 1)), mode: e.mode ?? 0o100644, compress: false });
      else z.addEmptyDirectory(e.path, { mtime: new Date(Date.UTC(2025, 0, 1)) });
    }
    z.end();
  });
}

/** Same-length byte replacement in both copies of a name (local header and central directory). */
const patch = (b: Buffer, from: string, to: string) => Buffer.from(b.toString('latin1').split(from).join(to), 'latin1');

describe('zip reader', () => {
  it('yields directories (not the root), files with their modes, and decodes backslashes as separators', async () => {
    let bytes = await zip([
      { path: 'QQQ' },
      { path: 'Q' },
      { path: 'pkg' },
      { path: 'pkg/tool', data: Buffer.from('tool'), mode: 0o100755 },
      { path: 'pkg/none', data: Buffer.from('none'), mode: 0o100000 },
      { path: 'pkg/sub_x', data: Buffer.from('sub') },
    ]);
    bytes = patch(patch(patch(bytes, 'QQQ/', '././'), 'Q/', './'), 'pkg/sub_x', 'pkg\\sub\\x');
    const seen = await read('zip', await save(bytes, 'zip'));
    expect(seen.map((s) => [s.entry.path, s.entry.type, s.entry.mode, s.body])).toEqual([
      ['pkg', 'dir', 0o755, undefined],
      ['pkg/tool', 'file', 0o755, 'tool'],
      ['pkg/none', 'file', 0o644, 'none'],
      ['pkg/sub/x', 'file', 0o644, 'sub'],
    ]);
  });

  it('skips a root directory entry written as "/"', async () => {
    const bytes = patch(await zip([{ path: 'R' }, { path: 'pkg/a', data: Buffer.from('a') }]), 'R/', '//');
    expect((await read('zip', await save(bytes, 'zip'))).map((s) => s.entry.path)).toEqual(['pkg/a']);
  });

  it('a file that is not a zip is BAD_ARCHIVE naming it', async () => {
    const file = await save(Buffer.from('this is not a zip archive at all, only some text\n'.repeat(20)), 'zip');
    const e = await failure(read('zip', file));
    expect([e.code, e.message, e.details]).toEqual(['BAD_ARCHIVE', `${file} is not a readable zip archive`, { file }]);
    expect(e.hints).toEqual(['the download may be damaged: remove it from the cache and run again']);
  });

  it('a damaged local header or central directory entry is BAD_ARCHIVE, never an unhandled error', async () => {
    const good = await zip([{ path: 'pkg/a', data: Buffer.from('a') }, { path: 'pkg/b', data: Buffer.from('b') }]);
    const local = Buffer.from(good);
    local.write('PK\u0009\u0009', 0, 'latin1');
    const e = await failure(read('zip', await save(local, 'zip')));
    expect([e.code, e.message]).toEqual(['BAD_ARCHIVE', `${path.join(work, `a-${n - 1}.zip`)} is not a readable zip archive`]);

    const central = Buffer.from(good);
    const second = central.lastIndexOf(Buffer.from('PK\u0001\u0002', 'latin1'));
    central.write('PK\u0009\u0009', second, 'latin1');
    const file = await save(central, 'zip');
    const e2 = await failure(read('zip', file));
    expect([e2.code, e2.message]).toEqual(['BAD_ARCHIVE', `${file} is not a readable zip archive`]);
  });

  it('a damaged member says which member and why', async () => {
    const data = Buffer.from('int ze_api_stub;\n'.repeat(4096));
    const crc = await save(await zipWithWrongCrc('lib/x.so', data), 'zip');
    const e = await failure(read('zip', crc));
    expect([e.code, e.details]).toEqual(['BAD_ARCHIVE', { archive: crc, member: 'lib/x.so' }]);
    expect(e.message).toMatch(new RegExp(`^${crc.replace(/[.]/g, '\\.')}: member lib/x\\.so fails its CRC-32 check \\(stored [0-9a-f]+, computed [0-9a-f]+\\)$`));
    expect(e.hints).toEqual(['the download is damaged or the archive is hostile: remove it from the cache and run again; nothing from it was installed']);
    const deflate = await save(await zipWithCorruptDeflate('lib/x.so', data), 'zip');
    // Damaged deflate data either fails to inflate or inflates to another length; either way the member is named.
    expect((await failure(read('zip', deflate))).message).toMatch(
      new RegExp(`^${deflate.replace(/[.]/g, '\\.')}: member lib/x\\.so (cannot be read \\(corrupt compressed data\\)|holds \\d+ bytes, its directory entry declares 69632)$`),
    );
  });

  it('leaves no file descriptor open after reading, nor after a reader that stopped early', async () => {
    const file = await save(await zip([{ path: 'pkg/a', data: Buffer.alloc(4 << 20, 1) }, { path: 'pkg/b', data: Buffer.from('b') }]), 'zip');
    await read('zip', file);
    const fds = async () => (await fs.readdir('/proc/self/fd')).length;
    const before = await fds();
    for (let i = 0; i < 20; i++) await read('zip', file);
    expect(await fds()).toBeLessThan(before + 5);
    for (let i = 0; i < 20; i++) {
      await expect(readArchive('zip', file, async (_entry, body) => {
        body!.destroy();
        throw new Error('stopped early');
      })).rejects.toThrow('stopped early');
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(await fds()).toBeLessThan(before + 5);
  });
});

describe('every member passes the path check, also those no reader yields', () => {
  /** A zip whose member `stand-in` is renamed to `name` (same length, so every offset stays right). */
  async function zipNamed(stand: string, name: string): Promise<Buffer> {
    const { zipBuffer } = await import('../support/packages.js');
    const z = await zipBuffer([
      { path: 'x-1.0.data/data/include/ok.h', data: Buffer.from('ok') },
      { path: stand, data: Buffer.from('evil') },
    ], false);
    return Buffer.from(z.toString('latin1').split(stand).join(name), 'latin1');
  }

  it('a wheel member outside .data/data named "../../evil.txt" is UNSAFE_PATH, from the file and while it arrives', async () => {
    const bytes = await zipNamed('aa/aa/evil.txt', '../../evil.txt');
    const file = await save(bytes, 'whl');
    const e = await failure(read('wheel', file));
    expect([e.code, e.details.member]).toEqual(['UNSAFE_PATH', '../../evil.txt']);
    const { LiveDownload } = await import('../../src/fetch/live.js');
    const { readArchiveLive } = await import('../../src/formats/index.js');
    const live = new LiveDownload();
    live.begin(file, 0, bytes.length);
    const source = (await live.follow())!;
    live.advance(bytes.length);
    live.end();
    const e2 = await failure(readArchiveLive('wheel', source, file, async (_e, body) => {
      if (body) for await (const c of body) void c;
    }));
    await source.close();
    expect([e2.code, e2.details.member]).toEqual(['UNSAFE_PATH', '../../evil.txt']);
  });

  it('a .tar.bz2 member under info/ that climbs out is UNSAFE_PATH though info/ is never installed', async () => {
    const { bzip2Compress } = await import('../support/packages.js');
    const file = await save(await bzip2Compress(tar([
      { name: 'info/../../../evil.txt', flag: '0', data: Buffer.from('evil') },
      { name: 'include/ok.h', flag: '0', data: Buffer.from('ok') },
    ])), 'tar.bz2');
    const e = await failure(read('tar.bz2', file));
    expect([e.code, e.details.member]).toEqual(['UNSAFE_PATH', 'info/../../../evil.txt']);
  });
});

describe('sparse files', () => {
  it.each(['gnu', 'pax'])('a sparse file made by GNU tar (--format=%s) is BAD_ARCHIVE, not dropped or unpacked as its map', async (format) => {
    const { execFileSync } = await import('node:child_process');
    const src = await fs.mkdtemp(path.join(work, 'sparse-'));
    await fs.mkdir(path.join(src, 'pkg'));
    const holes = path.join(src, 'pkg', 'holes.bin');
    await fs.writeFile(holes, '');
    await fs.truncate(holes, 1 << 20);
    await fs.appendFile(holes, 'data');
    const file = path.join(work, `sparse-${format}-${n++}.tar.gz`);
    execFileSync('tar', ['--sparse', `--format=${format}`, '-czf', file, '-C', src, 'pkg']);
    const e = await failure(read('tar.gz', file));
    expect([e.code, e.message]).toEqual(['BAD_ARCHIVE', expect.stringMatching(/is a (GNU )?sparse file.*which xpu-setup does not unpack/)]);
  });
});
