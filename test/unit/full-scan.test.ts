// A full repodata.json.zst scanned through the system's libzstd, decompressed into the scanner's own buffer: the same
// records as the stream scanner finds in the plain text, on this thread and in the bundle's worker thread (the file
// scripts/bundle.mjs builds, which `npm test` builds first); a cut, damaged or empty body is an error, and an error of
// the body itself passes through as it is.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openZstdLibrary, systemZstd, ZstdInflater } from '../../src/formats/zstd-lib.js';
import { PieceStream } from '../../src/base/pieces.js';
import { scanZstdRepodata, worthAWorker } from '../../src/index/full-scan.js';
import { RepodataScanner } from '../../src/index/repodata-scan.js';
import { REPO } from '../e2e/cli.js';

const WORKER = path.join(REPO, 'dist', 'xpu-setup-scan-worker.cjs');
const NAMES = ['level-zero', 'level-zero-devel', 'libgcc', 'libgcc-ng', 'libstdcxx', '_openmp_mutex', '_libgcc_mutex'];

/** Records shaped like conda-forge's: every one depends on the GCC runtime, a few are the wanted packages. */
function repodata(records: number): Buffer {
  const table = (ext: string) =>
    Object.fromEntries(
      Array.from({ length: records }, (_, i) => {
        const name = i % 701 === 7 ? 'level-zero' : i % 709 === 9 ? 'libgcc' : i % 719 === 11 ? '_openmp_mutex' : `pkg-${i % 500}`;
        const rec = {
          build: `h${(i * 2654435761) % 1e8}_${i % 3}`,
          build_number: i % 3,
          depends: ['libgcc >=13', 'libstdcxx >=13', '_openmp_mutex >=4.5', `pkg-${(i + 1) % 500} >=1.${i % 9}`],
          license: 'MIT',
          md5: (i * 7919).toString(16).padStart(32, '0'),
          name,
          sha256: (i * 104729).toString(16).padStart(64, '0'),
          size: 1000 + i,
          subdir: 'linux-64',
          timestamp: 1700000000000 + i,
          version: `1.${i % 40}.${i % 7}`,
        };
        return [`${name}-${rec.version}-${rec.build}${ext}`, rec];
      }),
    );
  return Buffer.from(
    JSON.stringify({ info: { subdir: 'linux-64' }, packages: table('.tar.bz2'), 'packages.conda': table('.conda'), removed: ['level-zero-0.1-h_0.conda'], repodata_version: 1 }),
  );
}

const plain = repodata(20_000);
const zstd = (b: Buffer, ...flags: string[]) => execFileSync('zstd', ['-q', '-c', '-3', ...flags], { input: b, maxBuffer: 256 << 20 });
const frame = zstd(plain);

function expected(): unknown {
  const s = new RepodataScanner(NAMES);
  s.push(plain);
  const doc = s.result();
  // level-zero, libgcc and _openmp_mutex records in both tables: the comparisons below are not of two empty answers.
  expect(Object.keys(doc['packages.conda']!).length + Object.keys(doc.packages!).length).toBeGreaterThan(150);
  return doc;
}

function body(bytes: Buffer, chunk = 65536): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  return Readable.from(parts, { objectMode: false });
}

/** The body as a connection hands it on: pieces of one buffer, overwritten once each is taken. */
function pieces(bytes: Buffer, chunk = 65536, end?: Error): PieceStream {
  return new PieceStream(async (each) => {
    const reused = Buffer.alloc(chunk);
    for (let i = 0; i < bytes.length; i += chunk) {
      const piece = reused.subarray(0, Math.min(chunk, bytes.length - i));
      bytes.copy(piece, 0, i, i + piece.length);
      await each(piece);
      reused.fill(0x7b);
    }
    if (end) throw end;
  });
}

const lib = systemZstd()!;

describe('libzstd through koffi', () => {
  it("uses Node's own zstd where Node has one (22.15 and later), else the system library by its layout name", () => {
    // A system libzstd beside Node 24's own bound its internal calls to Node's copy and failed on real input.
    expect(lib.name).toBe(typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function' ? null : 'libzstd.so.1');
    expect(openZstdLibrary('libzstd.so.1')).toBeDefined();
    expect(openZstdLibrary('libzstd-not-here.so.9')).toBeUndefined();
  });

  it('holds back what does not fit and hands it out on calls without input; a cut stream does not finish', () => {
    const text = Buffer.from('x'.repeat(300_000) + 'end');
    const z = new ZstdInflater(lib);
    const out: Buffer[] = [];
    const dst = Buffer.alloc(1000);
    let at = 0;
    const compressed = zstd(text);
    for (let more = true; more; ) {
      const { read, written } = z.inflate(compressed.subarray(at), dst);
      at += read;
      out.push(Buffer.from(dst.subarray(0, written)));
      more = at < compressed.length || written === dst.length;
    }
    z.finish();
    z.close();
    expect(Buffer.concat(out).equals(text)).toBe(true);

    const cut = new ZstdInflater(lib);
    cut.inflate(compressed.subarray(0, compressed.length - 4), Buffer.alloc(400_000));
    expect(() => cut.finish()).toThrow(/ended early/);
    cut.close();
  });
});

describe('which thread scans', () => {
  it('a body known to be small is scanned at once on this thread; a large one, or one of unknown size, in a worker', () => {
    expect(worthAWorker(1 << 20)).toBe(false);
    expect(worthAWorker(84 << 20)).toBe(true);
    expect(worthAWorker(undefined)).toBe(true);
  });
});

describe.each([
  ['on this thread', false as const],
  ['in the bundle worker thread', WORKER],
])('scanZstdRepodata %s', (_where, worker) => {
  it('finds exactly what the stream scanner finds in the plain text, fed in network-sized or uneven chunks', async () => {
    if (worker) expect(existsSync(worker)).toBe(true);
    const want = expected();
    expect(await scanZstdRepodata(body(frame), NAMES, lib, { worker })).toEqual(want);
    expect(await scanZstdRepodata(body(frame, 997), NAMES, lib, { worker })).toEqual(want);
  });

  it('reads a stream to its last byte when one piece of it is larger than the worker\'s pipe', async () => {
    // One piece larger than the 1 MiB pipe: the stream has ended while most of the piece still waits for room.
    expect(frame.length).toBeGreaterThan(1_200_000);
    expect(await scanZstdRepodata(body(frame, frame.length), NAMES, lib, { worker })).toEqual(expected());
  });

  it('takes pieces straight from a buffer the body reuses, and the same from a stream of them', async () => {
    const want = expected();
    expect(await scanZstdRepodata(pieces(frame), NAMES, lib, { worker })).toEqual(want);
    expect(await scanZstdRepodata(pieces(frame, 300_001), NAMES, lib, { worker })).toEqual(want);
  });

  it('reads a stream of several frames (what concatenated .zst files are)', async () => {
    const half = plain.length >> 1;
    const two = Buffer.concat([zstd(plain.subarray(0, half)), zstd(plain.subarray(half))]);
    expect(await scanZstdRepodata(body(two), NAMES, lib, { worker })).toEqual(expected());
  });

  it('refuses a body cut short, a damaged one (its checksum), and one that is not zstd', async () => {
    await expect(scanZstdRepodata(body(frame.subarray(0, frame.length - 100)), NAMES, lib, { worker })).rejects.toThrow(/ended early/);
    const bad = Buffer.from(frame);
    for (let i = 5000; i < 5100; i++) bad[i] = bad[i]! ^ 0x5a;
    await expect(scanZstdRepodata(body(bad), NAMES, lib, { worker })).rejects.toThrow(/^zstd: /);
    await expect(scanZstdRepodata(body(Buffer.from('{"packages": {}}')), NAMES, lib, { worker })).rejects.toThrow(/^zstd: /);
    await expect(scanZstdRepodata(body(Buffer.alloc(0)), NAMES, lib, { worker })).rejects.toThrow(/^zstd: no data/);
  });

  it('a body that fails after damaged data reports its own failure, the cause (a cached copy is checked at its end)', async () => {
    const bad = Buffer.from(frame);
    for (let i = 5000; i < 5100; i++) bad[i] = bad[i]! ^ 0x5a;
    const failure = new Error('does not match its sha256');
    const parts = [bad.subarray(0, 100_000), bad.subarray(100_000)];
    const failing = new Readable({
      read() {
        const part = parts.shift();
        if (part) this.push(part);
        else this.destroy(failure);
      },
    });
    await expect(scanZstdRepodata(failing, NAMES, lib, { worker })).rejects.toBe(failure);
    await expect(scanZstdRepodata(pieces(bad, 65536, failure), NAMES, lib, { worker })).rejects.toBe(failure);
  });

  it('a body that fails passes its own error on', async () => {
    const failure = new Error('connection reset');
    const failing = new Readable({
      read() {
        this.push(frame.subarray(0, 200_000));
        this.destroy(failure);
      },
    });
    await expect(scanZstdRepodata(failing, NAMES, lib, { worker })).rejects.toBe(failure);
  });
});
