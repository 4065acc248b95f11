// Stream decompressors: zstd from node:zlib where Node has it (>= 22.15), else fzstd (pure JS); bzip2 via unbzip2-stream.
import { Transform, type Duplex } from 'node:stream';
import * as zlib from 'node:zlib';
import { Decompress } from 'fzstd';
import unbzip2 from 'unbzip2-stream';

type ZlibWithZstd = typeof zlib & { createZstdDecompress?: () => Duplex };

export function zstdDecompressor(): Duplex {
  const native = (zlib as ZlibWithZstd).createZstdDecompress;
  if (native) return native();
  let d: Decompress;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        d.push(chunk);
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    flush(cb) {
      try {
        d.push(new Uint8Array(0), true);
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
  });
  d = new Decompress((data) => {
    t.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  return t;
}

export function bzip2Decompressor(): Duplex {
  return unbzip2() as unknown as Duplex;
}

export function gzipDecompressor(): Duplex {
  return zlib.createGunzip();
}
