// zstd decoding four ways (the zstd program, libzstd in this process, fzstd, node:zlib where Node has it) gives the
// same bytes; failures and an early stop end the stream, never the process; libzstd never decodes far ahead of its
// reader; the program is found on PATH only when executable.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decompress as fzstd } from 'fzstd';
import { findZstd, withFittedWindow, zstdDecompressBytes, zstdDecompressor, zstdLibrary } from '../../src/formats/decompress.js';
import { systemZstd, ZstdInflater } from '../../src/formats/zstd-lib.js';

let work: string;
let program: string;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-zstd-'));
  program = findZstd(process.env.PATH)!;
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

/** Text and random bytes, several MiB, compressed by the zstd program (the oracle for the format). */
function sample(): { plain: Buffer; frame: Buffer } {
  const text = Buffer.from('{"name":"level-zero","version":"1.20.6","depends":["libgcc >=13"]},\n'.repeat(60_000));
  const plain = Buffer.concat([text, randomBytes(3 << 20), text]);
  return { plain, frame: execFileSync(program, ['-c', '-q', '-3'], { input: plain, maxBuffer: 64 << 20 }) };
}

async function decode(frame: Buffer, d: NodeJS.ReadWriteStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(Readable.from([frame.subarray(0, 1000), frame.subarray(1000)]), d, async function* (src) {
    for await (const c of src) chunks.push(c as Buffer);
  });
  return Buffer.concat(chunks);
}

describe('zstdDecompressor', () => {
  it('the test machine has the zstd program (scripts/test-packages.txt)', () => {
    expect(program).toMatch(/zstd$/);
  });

  it('the zstd program and fzstd give the same bytes as the input', async () => {
    const { plain, frame } = sample();
    expect((await decode(frame, await zstdDecompressor({ program }))).equals(plain)).toBe(true);
    expect((await decode(frame, await zstdDecompressor({ program: false }))).equals(plain)).toBe(true);
    const native = (zlib as { createZstdDecompress?: () => NodeJS.ReadWriteStream }).createZstdDecompress;
    if (native) expect((await decode(frame, native())).equals(plain)).toBe(true);
  });

  it('damaged input fails the stream with the program and its message', async () => {
    const { plain, frame } = sample();
    const bad = Buffer.from(frame);
    for (let i = 2000; i < 2400; i++) bad[i] = bad[i]! ^ 0x5a;
    await expect(decode(bad, await zstdDecompressor({ program }))).rejects.toThrow(new RegExp(`${program} -d failed \\(exit 1\\): .+`));
    await expect(decode(Buffer.from('not zstd at all'), await zstdDecompressor({ program }))).rejects.toThrow(/-d failed \(exit 1\)/);
    // fzstd skips the frame checksum: the same damage passes as other bytes (the archive's sha256 is what guards it).
    const js = await decode(bad, await zstdDecompressor({ program: false })).catch(() => undefined);
    expect(js === undefined || !js.equals(plain)).toBe(true);
  });

  it('a program that cannot start fails the stream, not the process', async () => {
    await expect(decode(Buffer.from('x'), await zstdDecompressor({ program: path.join(work, 'no-such-zstd') }))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a reader that stops early ends the program', async () => {
    const { frame } = sample();
    // This test's own zstd is a child of this process; pgrep exits 1 once none is left.
    const running = () => {
      try {
        return execFileSync('pgrep', ['-P', String(process.pid), '-x', 'zstd']).toString().trim() !== '';
      } catch {
        return false;
      }
    };
    const d = await zstdDecompressor({ program });
    expect(running()).toBe(true);
    const stopped = new Promise<void>((resolve) => {
      d.once('data', () => {
        d.destroy();
        resolve();
      });
    });
    d.on('error', () => undefined);
    d.write(frame);
    await stopped;
    for (let i = 0; i < 100; i++) {
      if (!running()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the zstd program still runs after its reader stopped');
  });
});

describe('zstd in this process (libzstd through koffi)', () => {
  const inProcess = () => zstdLibrary(new ZstdInflater(systemZstd()!));

  it('gives the same bytes as the input, across frames and however the input is cut', async () => {
    const { plain, frame } = sample();
    expect((await decode(frame, inProcess())).equals(plain)).toBe(true);
    const two = Buffer.concat([frame, frame]);
    expect((await decode(two, inProcess())).equals(Buffer.concat([plain, plain]))).toBe(true);
  });

  it('fails the stream on damaged input (the frame checksum) and on input cut short', async () => {
    const { frame } = sample();
    const bad = Buffer.from(frame);
    for (let i = 2000; i < 2400; i++) bad[i] = bad[i]! ^ 0x5a;
    await expect(decode(bad, inProcess())).rejects.toThrow(/^zstd: /);
    await expect(decode(frame.subarray(0, frame.length - 100), inProcess())).rejects.toThrow('zstd: the compressed data ended early');
  });

  it('decodes no further ahead of its reader than a buffer or two (a bomb is not held)', async () => {
    const bomb = execFileSync(program, ['-c', '-q', '-19'], { input: Buffer.alloc(256 << 20), maxBuffer: 64 << 20 });
    const d = inProcess();
    d.on('error', () => undefined);
    d.write(bomb);
    await new Promise((r) => setTimeout(r, 200));
    expect(d.readableLength).toBeLessThanOrEqual(2 << 20);
    const first = d.read() as Buffer;
    expect(first.length).toBeGreaterThan(0);
    d.destroy();
  });

  it('zstdDecompressor decodes in this process by default (node:zlib where Node has zstd, else libzstd): no program is started', async () => {
    const { plain, frame } = sample();
    const d = await zstdDecompressor();
    const children = () => {
      try {
        return execFileSync('pgrep', ['-P', String(process.pid), '-x', 'zstd']).toString().trim();
      } catch {
        return '';
      }
    };
    expect(children()).toBe('');
    expect((await decode(frame, d)).equals(plain)).toBe(true);
  });
});

describe('findZstd', () => {
  it('takes the first executable file named zstd on the path, skipping what cannot run', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => path.join(work, n));
    for (const d of [a, b, c]) await fs.mkdir(d!, { recursive: true });
    await fs.writeFile(path.join(a!, 'zstd'), 'not executable');
    await fs.mkdir(path.join(b!, 'zstd'));
    await fs.writeFile(path.join(c!, 'zstd'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findZstd([a, b, c].join(path.delimiter), 'linux')).toBe(path.join(c!, 'zstd'));
    expect(findZstd([a, b].join(path.delimiter), 'linux')).toBeUndefined();
    expect(findZstd(undefined, 'linux')).toBeUndefined();
  });
});

describe('withFittedWindow', () => {
  const record = '{"name":"level-zero","version":"1.20.6","build":"h84d6215_0","depends":["libgcc >=13","libstdcxx >=13"]}';

  it('gives a frame without a content size a window its blocks can fill, and it decodes to the same bytes', async () => {
    const small = Buffer.from(record.repeat(40));
    const large = Buffer.concat([randomBytes(300_000), small]);
    for (const plain of [small, large]) {
      // From a pipe, as a compressing stream writes it: no content size, the level's whole window (8 MiB at -19).
      const frame = execFileSync(program, ['-c', '-q', '-19'], { input: plain });
      expect(frame[4]! & 0xe0).toBe(0);
      const fitted = withFittedWindow(frame);
      expect(fitted[5]! >> 3).toBeLessThan(frame[5]! >> 3);
      expect(2 ** (10 + (fitted[5]! >> 3))).toBeGreaterThanOrEqual(plain.length);
      expect(Buffer.from(fzstd(fitted)).equals(plain)).toBe(true);
    }
    expect((await zstdDecompressBytes(execFileSync(program, ['-c', '-q', '-19'], { input: small }))).equals(small)).toBe(true);
  });

  it('hands on a frame that declares its content size, and what is not a zstd frame, as they are', async () => {
    const file = path.join(work, 'shard.msgpack');
    await fs.writeFile(file, record.repeat(40));
    const sized = execFileSync(program, ['-c', '-q', '-19', file]);
    expect(sized[4]! & 0xc0).not.toBe(0);
    expect(withFittedWindow(sized)).toBe(sized);
    const other = Buffer.from('not zstd at all');
    expect(withFittedWindow(other)).toBe(other);
    const cut = execFileSync(program, ['-c', '-q', '-19'], { input: Buffer.from(record.repeat(40)) }).subarray(0, 12);
    expect(withFittedWindow(cut)).toBe(cut);
  });
});
