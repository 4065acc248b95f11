// Stream decompressors. zstd: node:zlib where Node has it (>= 22.15), else the system's libzstd in this process
// (zstd-lib.ts), else the zstd program when one is on PATH (about ten times faster than JavaScript on a
// conda-forge-sized repodata, and it checks the frame checksum), else fzstd (pure JS). bzip2: unbzip2-stream. The
// JavaScript decoders load only when one is used.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { Duplex, Transform, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { nodeLayout } from '../platform/index.js';
import { systemZstd, ZstdInflater } from './zstd-lib.js';

type ZlibWithZstd = typeof zlib & { createZstdDecompress?: (opts?: zlib.ZlibOptions) => Duplex };

/** The first executable `zstd` on `searchPath` (PATH's format on this OS). */
export function findZstd(searchPath: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  const name = `zstd${nodeLayout(platform).exeSuffix}`;
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** PATH's zstd, looked up once per process (null: not looked up yet). */
let zstdProgramOnPath: string | undefined | null = null;

export interface ZstdOptions {
  /**
   * The zstd program to run; false: never run one (fzstd decodes). Default: native zlib when Node has it, else libzstd
   * in this process, else the program on PATH.
   */
  program?: string | false;
}

/** How much decompressed output a stream hands on at a time. */
const DECOMPRESSED_CHUNK = 1 << 20;

export async function zstdDecompressor(opts: ZstdOptions = {}): Promise<Duplex> {
  const native = (zlib as ZlibWithZstd).createZstdDecompress;
  // Output in 1 MiB chunks: zlib's default of 16 KiB costs a JavaScript callback per 16 KiB of hundreds of MB.
  if (native && opts.program === undefined) return native({ chunkSize: DECOMPRESSED_CHUNK });
  // In this process: no program started, no pipe each way (a tenth of a conda install's CPU on Node 20).
  const lib = opts.program === undefined ? systemZstd() : undefined;
  if (lib) return zstdLibrary(new ZstdInflater(lib));
  if (opts.program === undefined && zstdProgramOnPath === null) zstdProgramOnPath = findZstd(process.env.PATH);
  const program = opts.program === undefined ? zstdProgramOnPath : opts.program;
  return program ? zstdProgram(program) : zstdJs((await import('fzstd')).Decompress);
}

/**
 * `zstd -d` as a stream: what is written goes to its stdin, what it writes is handed on straight from its stdout (no
 * stream between: on a conda-forge-sized index each hop costs a JavaScript call per 64 KiB read, about 0.1 s of CPU);
 * its exit status and message become the stream's error; destroying the stream stops it.
 */
function zstdProgram(program: string): Duplex {
  const child = spawn(program, ['-d', '-c', '-q'], { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4000) stderr += d;
  });
  const duplex = new Duplex({
    readableHighWaterMark: DECOMPRESSED_CHUNK,
    read() {
      child.stdout.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      if (child.stdin.write(chunk)) cb();
      else child.stdin.once('drain', () => cb());
    },
    final(cb) {
      child.stdin.end();
      cb();
    },
    destroy(err, cb) {
      // A reader that stops early would leave the program blocked on a full pipe.
      if (child.exitCode === null && child.signalCode === null) child.kill();
      cb(err);
    },
  });
  child.stdout.on('data', (c: Buffer) => {
    if (!duplex.push(c)) child.stdout.pause();
  });
  child.on('error', (e) => duplex.destroy(e));
  child.on('close', (code, signal) => {
    if (code === 0) duplex.push(null);
    else duplex.destroy(new Error(`${program} -d failed (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n').pop() ?? ''}`));
  });
  // Input the program no longer reads (it failed, or the reader stopped) is not an error of its own.
  child.stdin.on('error', () => undefined);
  return duplex;
}

/**
 * libzstd as a stream: what is written is decoded into 1 MiB buffers handed on as the reader takes them. Output waits
 * for the reader (a bomb is never decoded ahead of it); the next input is taken once the last is used up.
 */
export function zstdLibrary(z: ZstdInflater): Duplex {
  let input: Uint8Array | undefined;
  let at = 0;
  /** The write (or, at the end, final) waiting for its input to be used up. */
  let done: ((e?: Error | null) => void) | undefined;
  let ending = false;
  const take = () => {
    const cb = done;
    done = undefined;
    cb?.();
  };
  const pump = () => {
    while (input || ending) {
      const out = Buffer.allocUnsafe(DECOMPRESSED_CHUNK);
      const { read, written } = z.inflate(input ? input.subarray(at) : new Uint8Array(0), out);
      at += read;
      const wanted = written ? d.push(out.subarray(0, written)) : true;
      // A full buffer may leave output held back, and a frame's end leaves the next frame's input: more comes once
      // the reader wants it.
      if (written === out.length || (input && at < input.length)) {
        if (!read && !written) throw new Error('zstd: the decoder took no input and gave no output');
        if (wanted) continue;
        return;
      }
      // Less than a buffer and no input left: nothing is held back.
      input = undefined;
      if (ending) {
        z.finish();
        z.close();
        d.push(null);
        ending = false;
      }
      take();
      return;
    }
  };
  const guarded = () => {
    try {
      pump();
    } catch (e) {
      d.destroy(e as Error);
    }
  };
  const d = new Duplex({
    readableHighWaterMark: DECOMPRESSED_CHUNK,
    write(chunk: Buffer, _enc, cb) {
      input = chunk;
      at = 0;
      done = cb;
      guarded();
    },
    final(cb) {
      ending = true;
      done = cb;
      guarded();
    },
    read() {
      guarded();
    },
    destroy(err, cb) {
      z.close();
      cb(err);
    },
  });
  return d;
}

function zstdJs(Decompress: typeof import('fzstd').Decompress): Duplex {
  let d: InstanceType<typeof Decompress>;
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

export async function bzip2Decompressor(): Promise<Duplex> {
  const unbzip2 = (await import('unbzip2-stream')).default;
  return unbzip2() as unknown as Duplex;
}

export function gzipDecompressor(): Duplex {
  return zlib.createGunzip({ chunkSize: DECOMPRESSED_CHUNK });
}

/** Decompressed output past the caller's limit: the decompression stopped there (a bomb is never held whole). */
export class OutputTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`it decompresses to more than ${limit} bytes`);
  }
}

/**
 * Reads a stream whole (a decompressor's output, fed by the caller), stopping (and destroying it) as soon as more than
 * maxBytes came out.
 */
export async function collectCapped(d: Readable, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const c of d) {
    size += (c as Buffer).length;
    if (size > maxBytes) {
      d.destroy();
      throw new OutputTooLarge(maxBytes);
    }
    parts.push(c as Buffer);
  }
  return Buffer.concat(parts);
}

/**
 * A zstd document held whole (a conda shard, a shard index), never more than maxBytes of output: node:zlib where
 * Node has it; else fzstd for small ones whose blocks cannot make more than that, and otherwise the stream
 * decompressor (the zstd program when on PATH: several times faster than fzstd), stopped at the limit.
 */
export async function zstdDecompressBytes(bytes: Uint8Array, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
  const native = (zlib as typeof zlib & { zstdDecompressSync?: (b: Uint8Array, o?: { maxOutputLength?: number }) => Buffer }).zstdDecompressSync;
  if (native) {
    try {
      return native(bytes, maxBytes < 2 ** 32 ? { maxOutputLength: maxBytes } : {});
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new OutputTooLarge(maxBytes);
      throw e;
    }
  }
  const bound = bytes.length <= 64 * 1024 ? zstdOutputBound(bytes) : undefined;
  if (bound === undefined || bound > maxBytes) {
    const d = await zstdDecompressor();
    d.end(bytes);
    return collectCapped(d, maxBytes);
  }
  const out = (await import('fzstd')).decompress(withFittedWindow(bytes));
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * The most output the zstd frames in b can make, from their block headers (raw and RLE blocks their size, compressed
 * ones 128 KiB at most); undefined when b is not a plain sequence of zstd frames (skippable frames, a dictionary).
 */
export function zstdOutputBound(b: Uint8Array): number | undefined {
  let p = 0;
  let bound = 0;
  while (p < b.length) {
    if (p + 6 > b.length || b[p] !== 0x28 || b[p + 1] !== 0xb5 || b[p + 2] !== 0x2f || b[p + 3] !== 0xfd) return undefined;
    const descriptor = b[p + 4]!;
    const single = (descriptor >> 5) & 1;
    const fcsBytes = [single, 2, 4, 8][descriptor >> 6]!;
    p += 5 + (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 3]! + fcsBytes;
    for (let last = 0; !last; ) {
      if (p + 3 > b.length) return undefined;
      const header = b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) return undefined;
      last = header & 1;
      bound += type === 2 ? MAX_BLOCK : size;
      p += 3 + (type === 1 ? 1 : size);
    }
    if (descriptor & 4) p += 4;
  }
  return p === b.length ? bound : undefined;
}

const MAX_BLOCK = 128 * 1024;

/**
 * A zstd frame that does not declare its content size (what a compressing stream writes) makes fzstd allocate the
 * whole window it declares (4 MiB from `zstd -12`, more from higher levels) and shift all of it after every block:
 * 15-40 ms for a 4 KB conda shard. A frame never reaches back past what it has produced, so a window no larger than
 * what its blocks can produce (raw and RLE blocks their size, compressed ones 128 KiB at most) decodes the same bytes:
 * such frames are handed on with that window in a copy of the header. Anything else is handed on as it is.
 */
export function withFittedWindow(b: Uint8Array): Uint8Array {
  if (b.length < 6 || b[0] !== 0x28 || b[1] !== 0xb5 || b[2] !== 0x2f || b[3] !== 0xfd) return b;
  const descriptor = b[4]!;
  // Single segment or a content size: fzstd sizes its buffer by the content size.
  if (descriptor & 0xe0) return b;
  const exponent = b[5]! >> 3;
  const window = 2 ** (10 + exponent) * (1 + (b[5]! & 7) / 8);
  let p = 6 + [0, 1, 2, 4][descriptor & 3]!;
  let bound = 0;
  for (let last = 0; !last; ) {
    if (p + 3 > b.length) return b;
    const header = b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    if (type === 3) return b;
    last = header & 1;
    bound += type === 2 ? Math.min(MAX_BLOCK, window) : size;
    p += 3 + (type === 1 ? 1 : size);
  }
  if (p > b.length) return b;
  const fitted = Math.max(0, Math.ceil(Math.log2(Math.max(bound, 1))) - 10);
  if (fitted >= exponent) return b;
  const copy = Uint8Array.from(b);
  copy[5] = fitted << 3;
  return copy;
}
