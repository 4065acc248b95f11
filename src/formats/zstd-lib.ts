// zstd decompressed in this process by the system's libzstd (through koffi), straight into a buffer the caller owns
// and reuses: a stream's fresh 64 KiB chunks would fault in fresh pages for every few hundred KB of output.
import { nodeLayout } from '../host/index.js';
import { koffi } from '../runtime/koffi.js';

interface Functions {
  createDStream: () => unknown;
  freeDStream: (ds: unknown) => number;
  decompress: (ds: unknown, dst: Uint8Array, dstCapacity: number, dstPos: number[], src: Uint8Array, srcSize: number, srcPos: number[]) => number;
  isError: (code: number) => number;
  errorName: (code: number) => string;
}

/** An opened libzstd: its name as it was opened (a worker thread opens the same one). */
export interface ZstdLibrary {
  name: string;
  fns: Functions;
}

const opened = new Map<string, ZstdLibrary | null>();

/** Opens libzstd by this name; undefined when koffi or the library is missing, or the library is older than 1.4. */
export function openZstdLibrary(name: string): ZstdLibrary | undefined {
  let lib = opened.get(name);
  if (lib === undefined) {
    try {
      const l = koffi().load(name);
      lib = {
        name,
        fns: {
          createDStream: l.func('void *ZSTD_createDStream(void)') as Functions['createDStream'],
          freeDStream: l.func('size_t ZSTD_freeDStream(void *)') as Functions['freeDStream'],
          // 1.4.0 and later: the positions as plain arguments, so dst and src can be any part of a JavaScript buffer.
          decompress: l.func(
            'size_t ZSTD_decompressStream_simpleArgs(void *, void *dst, size_t dstCapacity, _Inout_ size_t *dstPos, const void *src, size_t srcSize, _Inout_ size_t *srcPos)',
          ) as Functions['decompress'],
          isError: l.func('unsigned int ZSTD_isError(size_t)') as Functions['isError'],
          errorName: l.func('const char *ZSTD_getErrorName(size_t)') as Functions['errorName'],
        },
      };
    } catch {
      lib = null;
    }
    opened.set(name, lib);
  }
  return lib ?? undefined;
}

/** This machine's libzstd (its layout's names, first that opens), looked up once per process. */
export function systemZstd(platform: NodeJS.Platform = process.platform): ZstdLibrary | undefined {
  for (const name of nodeLayout(platform).zstdLibraries) {
    const lib = openZstdLibrary(name);
    if (lib) return lib;
  }
  return undefined;
}

/**
 * One decompression (a zstd stream of one or more frames, each checksum checked where the frame has one). Owns
 * native memory: `close` it.
 */
export class ZstdInflater {
  private ds: unknown;
  /** What the last call answered: 0 once a frame is whole and all of it handed out. */
  private hint = -1;

  constructor(private readonly lib: ZstdLibrary) {
    this.ds = lib.fns.createDStream();
    if (!this.ds) throw new Error(`ZSTD_createDStream of ${lib.name} failed`);
  }

  /**
   * Decompresses from `src` into `dst` until one of them runs out; returns how much of each it took. Output it holds
   * back (dst was full) comes out in the next call, with or without more input.
   */
  inflate(src: Uint8Array, dst: Uint8Array): { read: number; written: number } {
    const dstPos = [0];
    const srcPos = [0];
    const r = this.lib.fns.decompress(this.ds, dst, dst.length, dstPos, src, src.length, srcPos);
    if (this.lib.fns.isError(r)) throw new Error(`zstd: ${this.lib.fns.errorName(r)}`);
    // A call that moved nothing (no input, nothing held back) answers for the next frame; the last one's answer stands.
    if (srcPos[0] || dstPos[0]) this.hint = r;
    return { read: srcPos[0]!, written: dstPos[0]! };
  }

  /** Throws unless the input ended where a frame ended (after all its output was taken). */
  finish(): void {
    if (this.hint !== 0) throw new Error(this.hint === -1 ? 'zstd: no data' : 'zstd: the compressed data ended early');
  }

  close(): void {
    if (this.ds) this.lib.fns.freeDStream(this.ds);
    this.ds = undefined;
  }
}
