// Raw deflate inflated piece by piece into one reused output buffer (through zlib's native handle), and the same
// through the public stream where that handle is missing: the same bytes, the same failures.
import { createHash, randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateRawPieces } from '../../src/formats/inflate.js';
import type { Pump } from '../../src/base/pieces.js';

/** `data` handed over in pieces of `size` bytes from one buffer that is overwritten for each piece, as a download's are. */
function reusedPieces(data: Buffer, size: number): Pump {
  return async (each) => {
    const buf = Buffer.alloc(size);
    for (let at = 0; at < data.length; at += size) {
      const n = data.copy(buf, 0, at, at + size);
      await each(buf.subarray(0, n));
      buf.fill(0xee);
    }
  };
}

async function inflate(data: Buffer, viaStream: boolean): Promise<{ out: Buffer; pieces: number }> {
  const parts: Buffer[] = [];
  await inflateRawPieces(reusedPieces(data, 7000), (piece) => void parts.push(Buffer.from(piece)), (cause) => Object.assign(new Error('corrupt'), { cause }), { viaStream });
  return { out: Buffer.concat(parts), pieces: parts.length };
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('inflateRawPieces', () => {
  // Text that compresses (2.5 MB out of far less) and random bytes (stored blocks), past one output buffer each.
  const text = Buffer.from(Array.from({ length: 60_000 }, (_, i) => `line ${i} of a shared library's strings\n`).join(''));
  const cases = { compressible: text, incompressible: randomBytes(3 * 1024 * 1024 + 5) };

  for (const [name, plain] of Object.entries(cases)) {
    it(`gives back the ${name} bytes whole, through the native handle and through the stream alike`, async () => {
      const deflated = zlib.deflateRawSync(plain);
      const native = await inflate(deflated, false);
      const stream = await inflate(deflated, true);
      expect(digest(native.out)).toBe(digest(plain));
      expect(digest(stream.out)).toBe(digest(plain));
      // The native path hands its output over in pieces of its one 1 MiB buffer.
      expect(native.pieces).toBeGreaterThanOrEqual(Math.ceil(plain.length / (1 << 20)));
    });
  }

  it('says corrupt data and data cut short through `corrupt`, on both paths', async () => {
    const deflated = zlib.deflateRawSync(text);
    const damaged = Buffer.from(deflated);
    for (let i = 100; i < 140; i++) damaged[i] = damaged[i]! ^ 0x5a;
    const cut = deflated.subarray(0, deflated.length - 100);
    for (const viaStream of [false, true]) {
      await expect(inflate(damaged, viaStream)).rejects.toMatchObject({ message: 'corrupt', cause: expect.objectContaining({ code: 'Z_DATA_ERROR' }) });
      await expect(inflate(cut, viaStream)).rejects.toMatchObject({ message: 'corrupt' });
    }
  });

  it("passes the reader's own failure through as it is", async () => {
    const deflated = zlib.deflateRawSync(text);
    const mine = new Error('disk full');
    for (const viaStream of [false, true]) {
      await expect(inflateRawPieces(reusedPieces(deflated, 7000), () => Promise.reject(mine), () => new Error('corrupt'), { viaStream })).rejects.toBe(mine);
    }
  });
});
