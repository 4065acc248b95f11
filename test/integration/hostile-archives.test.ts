// Hostile and damaged packages through the project's own readers and staging: typed refusals, nothing written outside.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveFormat } from '../../src/formats/index.js';
import { resolveInTree } from '../../src/formats/safe-path.js';
import type { UnpackLimits } from '../../src/records/limits.js';
import { Staging } from '../../src/install/staging.js';
import { zipBuffer, type ArchiveEntry } from '../support/packages.js';
import { compareSnapshots, makeSentinel, snapshotTree } from '../faults/matrix.js';
import {
  buildHostile,
  symlinkChain,
  tarBz2WithOverstatedSize,
  zipWithCorruptDeflate,
  zipWithMethod,
  zipWithUnderstatedSize,
  zipWithWrongCrc,
  type HostileFormat,
} from '../faults/hostile.js';

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-hostile-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

const RULES = [{ from: 'lib/', to: 'lib/' }, { from: 'include/', to: 'include/' }];
const DEB_RULES = [{ from: 'usr/lib/x86_64-linux-gnu/', to: 'lib/' }, { from: 'usr/include/', to: 'include/' }];
const READER: Record<HostileFormat, ArchiveFormat> = { conda: 'conda', 'tar.bz2': 'tar.bz2', wheel: 'wheel', deb: 'deb' };

/**
 * Extracts `bytes` into <case>/root (the staging tree) beside a sentinel directory <case>/sentinel, the place an
 * escaping member aims at; returns the error and whether anything outside the staging tree changed.
 */
async function attempt(format: ArchiveFormat, filename: string, bytes: Buffer, limits?: UnpackLimits): Promise<{ error: unknown; outside: string; staging: Staging }> {
  const dir = await fs.mkdtemp(path.join(tmp, 'case-'));
  const file = path.join(dir, filename);
  await fs.writeFile(file, bytes);
  const sentinel = path.join(dir, 'sentinel');
  await makeSentinel(sentinel);
  const before = await snapshotTree(dir);
  const staging = new Staging(path.join(dir, 'root'), limits);
  await fs.mkdir(staging.root);
  const error = await staging
    .extract(format, file, filename, format === 'deb' ? DEB_RULES : RULES)
    .then(() => staging.checkLinks())
    .then(() => undefined, (e: unknown) => e);
  const after = await snapshotTree(dir);
  // Only the staging tree itself may differ.
  for (const k of [...after.keys()]) if (k === 'root' || k.startsWith('root/')) after.delete(k);
  for (const k of [...before.keys()]) if (k === 'root' || k.startsWith('root/')) before.delete(k);
  return { error, outside: compareSnapshots(before, after), staging };
}

const FORMATS: HostileFormat[] = ['conda', 'tar.bz2', 'wheel', 'deb'];
const id = { name: 'level-zero-devel', version: '9.9.9' };

describe('symlink chains that resolve outside only once every link exists', () => {
  it.each(FORMATS)('%s: a member written through a link is refused and nothing outside changes', async (format) => {
    const b = await buildHostile(format, symlinkChain('sentinel', true), id);
    const r = await attempt(READER[format], b.filename, b.bytes);
    expect(r.error, String(r.error)).toMatchObject({ code: 'UNSAFE_PATH' });
    expect((r.error as Error).message).toMatch(/lib\/esc/);
    expect(r.outside).toBe('unchanged');
  });

  it.each(FORMATS)('%s: links alone, in the order that reads as inside, are refused once both exist', async (format) => {
    const b = await buildHostile(format, symlinkChain('sentinel', false, 'esc'), id);
    const r = await attempt(READER[format], b.filename, b.bytes);
    expect(r.error, String(r.error)).toMatchObject({ code: 'UNSAFE_PATH' });
    expect((r.error as Error).message).toMatch(/resolves outside the prefix through other links/);
    expect(r.outside).toBe('unchanged');
  });

  it('resolveInTree follows links as the kernel would', () => {
    const links = new Map([['lib/a/b/up', '../..'], ['lib/esc', 'a/b/up/../../x']]);
    expect(resolveInTree('lib/a/b/up', links)).toBe('lib');
    expect(resolveInTree('lib/esc', links)).toBeUndefined();
    expect(resolveInTree('lib/ok/x', new Map([['lib/ok', '../include']]))).toBe('include/x');
    expect(resolveInTree('lib/l1', new Map([['lib/l1', 'l2'], ['lib/l2', 'l1']]))).toBe('loop');
  });

  it('a loop of links is refused as a loop', async () => {
    const b = await buildHostile('conda', [{ path: 'lib/l1', type: 'symlink', target: 'l2' }, { path: 'lib/l2', type: 'symlink', target: 'l1' }], id);
    const r = await attempt('conda', b.filename, b.bytes);
    expect(r.error).toMatchObject({ code: 'UNSAFE_PATH' });
    expect((r.error as Error).message).toMatch(/loop of links/);
  });
});

describe('duplicate members', () => {
  const twice: [string, ArchiveEntry[]][] = [
    ['the same file twice', [{ path: 'lib/libze_loader.so.1', type: 'file', data: Buffer.from('first') }, { path: 'lib/libze_loader.so.1', type: 'file', data: Buffer.from('second') }]],
    ['a file, then a link at its path', [{ path: 'lib/libze_loader.so.1', type: 'file', data: Buffer.from('first') }, { path: 'lib/libze_loader.so.1', type: 'symlink', target: 'other' }]],
  ];
  it.each(FORMATS.flatMap((f) => twice.map(([what, p]) => [f, what, p] as const)))('%s: %s is refused as DUPLICATE_MEMBER', async (format, _what, payload) => {
    const b = await buildHostile(format, payload, id);
    const r = await attempt(READER[format], b.filename, b.bytes);
    expect(r.error, String(r.error)).toMatchObject({ code: 'DUPLICATE_MEMBER' });
    expect((r.error as Error).message).toMatch(/second member at lib\/libze_loader\.so\.1/);
    // The first member is not replaced either.
    expect(await fs.readFile(r.staging.abs('lib/libze_loader.so.1'), 'utf8').catch(() => 'absent')).toMatch(/^(first|absent)$/);
  });

  it('a file, then members under it, says what happened (not "check free space")', async () => {
    const b = await buildHostile('tar.bz2', [{ path: 'lib/x', type: 'file', data: Buffer.from('f') }, { path: 'lib/x/y', type: 'file', data: Buffer.from('g') }], id);
    const r = await attempt('tar.bz2', b.filename, b.bytes);
    expect(r.error).toMatchObject({ code: 'DUPLICATE_MEMBER' });
    expect((r.error as Error).message).toMatch(/puts lib\/x\/y under lib\/x, which is a file/);
  });

  it('a member name too long for the file system names the archive, the member shortened and the limit', async () => {
    const long = `lib/${'n'.repeat(300)}.so`;
    const b = await buildHostile('tar.bz2', [{ path: long, type: 'file', data: Buffer.from('f') }], id);
    const r = await attempt('tar.bz2', b.filename, b.bytes);
    expect(r.error).toMatchObject({ code: 'NAME_TOO_LONG', details: { archive: expect.stringContaining(b.filename), member: long, length: 303, limit: 255 } });
    // The archive, the member shortened (not 300 characters of it, nor the staging path), the limit.
    expect((r.error as Error).message).toBe(`${(r.error as XpuLike & { details: { archive: string } }).details.archive} has a member whose name is too long for this file system: lib/${'n'.repeat(24)}…nnnnn.so (a name of 303 bytes; the limit is 255)`);
    expect((r.error as XpuLike).hints.join(' ')).not.toMatch(/free space|shorter --prefix/);
  });
});

type XpuLike = Error & { hints: string[] };

describe('zip integrity', () => {
  const data = Buffer.from('int ze_api_stub;\n'.repeat(4096));
  it('a stored member with a wrong CRC is refused (yauzl checks sizes, not CRCs)', async () => {
    const r = await attempt('zip', 'crc.zip', await zipWithWrongCrc('lib/libze_loader.so.1', data));
    expect(r.error).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect((r.error as Error).message).toMatch(/fails its CRC-32 check/);
  });

  it('corrupt deflate data is a typed error, not an unhandled stream error', async () => {
    const r = await attempt('zip', 'deflate.zip', await zipWithCorruptDeflate('lib/libze_loader.so.1', data));
    expect(r.error).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect((r.error as Error).message).toMatch(/deflate\.zip/);
  });

  it('a central directory that understates a size is a typed error', async () => {
    const r = await attempt('zip', 'small.zip', await zipWithUnderstatedSize('lib/libze_loader.so.1', data));
    expect(r.error).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect((r.error as Error).message).toMatch(/small\.zip/);
  });

  it.each([
    ['bzip2 (12)', 12, false, /uses compression method 12/],
    ['zstd (93)', 93, false, /uses compression method 93/],
    ['an encrypted member', 8, true, /is encrypted/],
  ] as const)('a member it cannot read, %s, is BAD_ARCHIVE and nothing outside changes', async (_what, method, encrypted, message) => {
    const r = await attempt('zip', 'method.zip', await zipWithMethod('lib/libze_loader.so.1', data, method, encrypted));
    expect(r.error).toMatchObject({ code: 'BAD_ARCHIVE', details: { member: 'lib/libze_loader.so.1' } });
    expect((r.error as Error).message).toMatch(message);
    expect(r.outside).toBe('unchanged');
  });

  it('members larger than one read unpack byte for byte, stored and deflated', async () => {
    const random = Buffer.alloc(5 * 1024 * 1024 + 7);
    for (let i = 0; i < random.length; i += 4) random.writeUInt32LE((Math.imul(i, 2654435761) ^ (i >>> 7)) >>> 0, Math.min(i, random.length - 4));
    const text = Buffer.from('ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags);\n'.repeat(100_000));
    for (const deflate of [false, true]) {
      const bytes = await zipBuffer([{ path: 'lib/libbig.so', data: random }, { path: 'include/big.h', data: text }], deflate);
      const r = await attempt('zip', `big-${deflate}.zip`, bytes);
      expect(r.error).toBeUndefined();
      expect((await fs.readFile(r.staging.abs('lib/libbig.so'))).equals(random)).toBe(true);
      expect((await fs.readFile(r.staging.abs('include/big.h'))).equals(text)).toBe(true);
    }
  });

  it('a member climbing out is refused by safePath itself, not only by the zip library', async () => {
    // The reader decodes names itself, so yauzl's own check never runs: with a safePath that let ".." through,
    // this member would land outside and the test would fail.
    const safe = await zipBuffer([{ path: 'lib/aa/aa/aa/evil.so', data: Buffer.from('x') }], true);
    const bytes = Buffer.from(safe.toString('latin1').split('lib/aa/aa/aa/evil.so').join('lib/../../../evil.so'), 'latin1');
    const r = await attempt('zip', 'climb.zip', bytes);
    expect(r.error).toMatchObject({ code: 'UNSAFE_PATH', details: { why: 'parent directory reference' } });
    expect(r.outside).toBe('unchanged');
  });
});

describe('tar damage and archive bombs', () => {
  it('a tar header that overstates a member size is BAD_ARCHIVE naming the archive', async () => {
    const bytes = await tarBz2WithOverstatedSize([
      { path: 'info/index.json', type: 'file', data: Buffer.from('{}') },
      { path: 'lib/libze_loader.so.1', type: 'file', data: Buffer.alloc(3000, 7) },
    ]);
    const r = await attempt('tar.bz2', 'over.tar.bz2', bytes);
    expect(r.error, String(r.error)).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect((r.error as Error).message).toMatch(/over\.tar\.bz2/);
  });

  it('stops at the per-archive byte limit with TOO_LARGE and names the override', async () => {
    const b = await buildHostile('conda', [{ path: 'lib/big.so', type: 'file', data: Buffer.alloc(3 << 20) }], id);
    const r = await attempt('conda', b.filename, b.bytes, { maxBytes: 1 << 20, maxRatio: 0 });
    expect(r.error).toMatchObject({ code: 'TOO_LARGE' });
    expect((r.error as XpuLike).hints.join(' ')).toMatch(/--max-unpacked SIZE or XPU_SETUP_MAX_UNPACKED/);
    expect((await fs.stat(r.staging.abs('lib/big.so'))).size).toBeLessThanOrEqual((1 << 20) + (1 << 16) * 4);
  });

  it('stops at the ratio limit for a small archive that unpacks to much more', async () => {
    const b = await buildHostile('conda', [{ path: 'lib/bomb.so', type: 'file', data: Buffer.alloc(48 << 20) }], id);
    expect(b.bytes.length).toBeLessThan(64 << 10);
    const r = await attempt('conda', b.filename, b.bytes, { maxBytes: 0, maxRatio: 200 });
    expect(r.error).toMatchObject({ code: 'TOO_LARGE' });
    expect((r.error as Error).message).toMatch(/more than 200 times its size/);
  });

  it('with the limits lifted the same archive unpacks whole', async () => {
    const b = await buildHostile('conda', [{ path: 'lib/bomb.so', type: 'file', data: Buffer.alloc(48 << 20) }], id);
    const r = await attempt('conda', b.filename, b.bytes, { maxBytes: 0, maxRatio: 0 });
    expect(r.error).toBeUndefined();
    expect((await fs.stat(r.staging.abs('lib/bomb.so'))).size).toBe(48 << 20);
  });
});
