// Zips read while their download writes them: the same members, bytes and modes as the central-directory reader; every
// layout it cannot follow handed back to that reader; damaged members named; a download that starts over never trusted.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveDownload } from '../../src/fetch/live.js';
import { NotStreamable, readArchive, readArchiveLive, type ArchiveEntry, type ArchiveFormat, type ModeFix } from '../../src/formats/index.js';
import { Staging } from '../../src/install/staging.js';
import { zipWithCorruptDeflate, zipWithMethod, zipWithWrongCrc } from '../faults/hostile.js';
import { failure } from '../support/failure.js';

/** The error a promise rejects with, of any type. */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}
import { FIXTURE_MTIME_MS, zipBuffer } from '../support/packages.js';

let work: string;
let n = 0;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-zip-live-'));
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

interface Seen {
  path: string;
  type: string;
  mode: number;
  body?: string;
}

function visitor(seen: Seen[]) {
  return async (entry: ArchiveEntry, body: NodeJS.ReadableStream | undefined) => {
    const s: Seen = { path: entry.path, type: entry.type, mode: entry.mode };
    seen.push(s);
    if (body) {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      s.body = Buffer.concat(chunks).toString('latin1');
    }
  };
}

/**
 * Writes `bytes` into a file the way a download does, `piece` bytes at a time with a pause between writes, telling
 * a LiveDownload; resolves when the last write is in (and the download "ended", unless `end` is false).
 */
async function download(bytes: Buffer, piece: number, opts: { end?: boolean; pauseEvery?: number; sized?: boolean } = {}): Promise<{ live: LiveDownload; file: string; done: Promise<void> }> {
  const file = path.join(work, `dl-${n++}.zip`);
  const live = new LiveDownload();
  const fh = await fs.open(file, 'w');
  live.begin(file, 0, opts.sized === false ? undefined : bytes.length);
  const done = (async () => {
    for (let at = 0, i = 0; at < bytes.length; at += piece, i++) {
      const part = bytes.subarray(at, at + piece);
      await fh.write(part);
      live.advance(part.length);
      if (i % (opts.pauseEvery ?? 4) === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await fh.close();
    if (opts.end !== false) live.end();
  })();
  return { live, file, done };
}

/** Reads the same bytes both ways: live, as they are written, and from the finished file. */
async function both(format: ArchiveFormat, bytes: Buffer, piece = 7): Promise<{ live: Seen[]; fixes: ModeFix[]; file: Seen[] }> {
  const dl = await download(bytes, piece);
  const source = (await dl.live.follow())!;
  const live: Seen[] = [];
  const fixes = await readArchiveLive(format, source, 'the.zip', visitor(live));
  await source.close();
  await dl.done;
  const file: Seen[] = [];
  await readArchive(format, dl.file, visitor(file));
  return { live, fixes, file };
}

const blob = (size: number, seed: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + seed * 13 + (i >> 5)) & 0xff));

/** A zip whose members come from streams: yazl then writes sizes after the data (general purpose bit 3). */
function zipWithDescriptors(name: string, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    zip.addReadStream(Readable.from([data]), name, { mtime: new Date(FIXTURE_MTIME_MS), mode: 0o644 });
    zip.end();
  });
}

describe('reading a zip while it downloads', () => {
  it('yields what the central-directory reader yields, stored or deflated, and returns the modes it learned last', async () => {
    for (const compress of [false, true]) {
      const bytes = await zipBuffer(
        [
          { path: 'pkg/tool', data: Buffer.from('#!/bin/sh\n'), mode: 0o100755 },
          { path: 'pkg/lib/libx.so.1', data: blob(300_000, 1), mode: 0o100755 },
          { path: 'pkg/empty', data: Buffer.alloc(0) },
          { path: 'pkg/none', data: Buffer.from('none'), mode: 0o100000 },
          { path: 'pkg/include/x.h', data: Buffer.from('int x;\n'.repeat(5000)) },
        ],
        compress,
      );
      const r = await both('zip', bytes, compress ? 7 : 4093);
      expect(r.live.map((s) => [s.path, s.type, s.body])).toEqual(r.file.map((s) => [s.path, s.type, s.body]));
      expect(r.live.every((s) => s.mode === 0o644)).toBe(true);
      const modes = new Map(r.file.map((s) => [s.path, s.mode]));
      const fixed = new Map(r.live.map((s) => [s.path, s.mode]));
      for (const f of r.fixes) fixed.set(f.path, f.mode);
      expect(fixed).toEqual(modes);
      expect(r.fixes).toEqual([{ path: 'pkg/tool', mode: 0o755 }, { path: 'pkg/lib/libx.so.1', mode: 0o755 }]);
    }
  });

  it('a wheel yields only its .data/data members, at their installed paths, as readWheelData does', async () => {
    const bytes = await zipBuffer(
      [
        { path: 'ur-1.0.dist-info/METADATA', data: Buffer.from('Name: ur\n') },
        { path: 'ur-1.0.data/data/lib/libur_loader.so.0', data: blob(70_000, 2), mode: 0o100755 },
        { path: 'ur-1.0.data/data/include/ur_api.h', data: Buffer.from('/* ur */\n') },
        { path: 'ur-1.0.dist-info/RECORD', data: Buffer.from('x,,\n') },
      ],
      true,
    );
    const r = await both('wheel', bytes, 4096);
    expect(r.live.map((s) => [s.path, s.body?.length])).toEqual([['lib/libur_loader.so.0', 70_000], ['include/ur_api.h', 9]]);
    expect(r.live.map((s) => s.body)).toEqual(r.file.map((s) => s.body));
    expect(r.fixes).toEqual([{ path: 'lib/libur_loader.so.0', mode: 0o755 }]);
  });

  it('hands back to the central-directory reader what it cannot follow: sizes after the data, links, a directory that disagrees', async () => {
    const notStreamable = async (bytes: Buffer, why: RegExp) => {
      const dl = await download(bytes, 512);
      const source = (await dl.live.follow())!;
      const e = await rejection(readArchiveLive('zip', source, 'the.zip', visitor([])));
      await source.close();
      await dl.done;
      expect(e).toBeInstanceOf(NotStreamable);
      expect((e as Error).message).toMatch(why);
      // The finished file is still read the usual way.
      await readArchive('zip', dl.file, visitor([]));
    };
    await notStreamable(await zipWithDescriptors('pkg/a', blob(10_000, 3)), /pkg\/a keeps its sizes after its data/);
    await notStreamable(await zipBuffer([{ path: 'pkg/a', data: Buffer.from('a') }, { path: 'pkg/link', data: Buffer.from('a'), mode: 0o120777 }], false), /pkg\/link is a symbolic link/);
    // The central directory names another member than the local header at that offset.
    const renamed = await zipBuffer([{ path: 'pkg/aaaa', data: Buffer.from('a') }], false);
    const cd = renamed.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    renamed.write('b', cd + 46 + 4, 'latin1');
    await notStreamable(renamed, /record of pkg\/aaaa differs from its local header/);
  });

  it('a damaged member is BAD_ARCHIVE naming it, as from the finished file', async () => {
    const data = Buffer.from('int ze_api_stub;\n'.repeat(4096));
    for (const bytes of [await zipWithWrongCrc('lib/x.so', data), await zipWithCorruptDeflate('lib/x.so', data)]) {
      const dl = await download(bytes, 1000);
      const source = (await dl.live.follow())!;
      const e = await failure(readArchiveLive('zip', source, 'the.zip', visitor([])));
      await source.close();
      await dl.done;
      expect([e.code, e.details]).toEqual(['BAD_ARCHIVE', { archive: 'the.zip', member: 'lib/x.so' }]);
    }
    for (const [method, encrypted, why] of [[14, false, 'uses compression method 14'], [0, true, 'is encrypted']] as const) {
      const dl = await download(await zipWithMethod('lib/x.so', data, method, encrypted), 1000);
      const source = (await dl.live.follow())!;
      const e = await failure(readArchiveLive('zip', source, 'the.zip', visitor([])));
      await source.close();
      expect([e.code, e.message]).toEqual(['BAD_ARCHIVE', `the.zip: member lib/x.so ${why}${method === 14 ? '; only stored (0) and deflate (8) are read' : ''}`]);
    }
  });
});

describe('following a download', () => {
  it('waits for bytes not yet written, and for the download to start', async () => {
    const live = new LiveDownload();
    const following = live.follow();
    const file = path.join(work, `late-${n++}`);
    await fs.writeFile(file, 'abc');
    live.begin(file, 0);
    const source = (await following)!;
    const reading = source.read(5);
    live.advance(3);
    await fs.appendFile(file, 'de');
    live.advance(2);
    expect((await reading).toString()).toBe('abcde');
    live.end();
    expect((await source.read(10)).length).toBe(0);
    await source.close();
  });

  it('gives no reader once the download is over or never wrote (a cached file)', async () => {
    const live = new LiveDownload();
    live.end();
    expect(await live.follow()).toBeUndefined();
  });

  it('a download that writes again from an earlier byte is never trusted by a reader that read past it', async () => {
    const dl = await download(Buffer.alloc(5000, 1), 1000, { end: false });
    await dl.done;
    const source = (await dl.live.follow())!;
    expect((await source.read(3000)).length).toBe(3000);
    dl.live.begin(dl.file, 0);
    expect(await rejection(source.read(10))).toBeInstanceOf(NotStreamable);
    expect(dl.live.whole).toBe(false);
    await source.close();
  });

  it('a failed download fails its reader with the download error', async () => {
    const dl = await download(Buffer.alloc(100, 1), 100, { end: false });
    await dl.done;
    const source = (await dl.live.follow())!;
    await source.read(100);
    dl.live.end(new Error('connection reset'));
    expect((await rejection(source.read(1))).message).toBe('connection reset');
    await source.close();
  });
});

describe('staging an archive as it downloads', () => {
  it('leaves nothing of an archive it could not follow, and the finished file then lands whole', async () => {
    const root = await fs.mkdtemp(path.join(work, 'stage-'));
    const staging = new Staging(root);
    // Two members land before the link at the end sends the archive back to the finished file.
    const bytes = await zipBuffer(
      [
        { path: 'pkg/lib/a.so', data: blob(5000, 4), mode: 0o100755 },
        { path: 'pkg/deep/er/b', data: Buffer.from('b') },
        { path: 'pkg/lib/link', data: Buffer.from('a.so'), mode: 0o120777 },
      ],
      false,
    );
    const rules = [{ from: 'pkg/', to: '' }];
    const dl = await download(bytes, 300);
    const r = await staging.extractLive('zip', dl.live, 'the.zip', rules);
    await dl.done;
    expect(r).toEqual({ notLive: 'not readable front to back: pkg/lib/link is a symbolic link' });
    expect(await fs.readdir(root)).toEqual([]);
    expect(staging.files.size).toBe(0);
    expect(await staging.extract('zip', dl.file, 'the.zip', rules)).toBe(3);
    expect((await fs.stat(path.join(root, 'lib/a.so'))).mode & 0o777).toBe(0o755);
    expect(await fs.readlink(path.join(root, 'lib/link'))).toBe('a.so');
  });

  it('lands the members with their modes when it can follow the download', async () => {
    const root = await fs.mkdtemp(path.join(work, 'stage-'));
    const staging = new Staging(root);
    const bytes = await zipBuffer([{ path: 'w-1.data/data/lib/a.so', data: blob(50_000, 5), mode: 0o100755 }, { path: 'w-1.data/data/lib/b.txt', data: Buffer.from('b') }], true);
    const dl = await download(bytes, 1000);
    expect(await staging.extractLive('wheel', dl.live, 'w.whl', [{ from: '', to: '' }])).toBe(2);
    await dl.done;
    expect((await fs.stat(path.join(root, 'lib/a.so'))).mode & 0o777).toBe(0o755);
    expect((await fs.stat(path.join(root, 'lib/b.txt'))).mode & 0o777).toBe(0o644);
    expect((await fs.readFile(path.join(root, 'lib/a.so'))).equals(blob(50_000, 5))).toBe(true);
  });

  it('leaves to the finished file a download whose size nobody gave, which bounds what it may unpack to', async () => {
    const root = await fs.mkdtemp(path.join(work, 'stage-'));
    const staging = new Staging(root);
    const bytes = await zipBuffer([{ path: 'w-1.data/data/lib/a.so', data: blob(50_000, 6) }], true);
    const dl = await download(bytes, 1000, { sized: false });
    expect(await staging.extractLive('wheel', dl.live, 'w.whl', [{ from: '', to: '' }])).toEqual({ notLive: 'neither the index nor the response gave its size' });
    await dl.done;
    expect(await fs.readdir(root)).toEqual([]);
    expect(await staging.extract('wheel', dl.file, 'w.whl', [{ from: '', to: '' }])).toBe(1);
  });
});
