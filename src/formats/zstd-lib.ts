// zstd decompressed in this process (through koffi) straight into a buffer the caller owns and reuses: a stream's
// fresh 64 KiB chunks would fault in fresh pages for every few hundred KB of output.
import { nodeLayout } from '../platform/index.js';
import { koffi } from '../base/koffi.js';

/** size_t comes back as a number, or a bigint past 2^53 (an error code). */
type SizeT = number | bigint;

interface Functions {
  createDStream: () => unknown;
  freeDStream: (ds: unknown) => SizeT;
  decompress: (ds: unknown, dst: Uint8Array, dstCapacity: number, dstPos: number[], src: Uint8Array, srcSize: number, srcPos: number[]) => SizeT;
  isError: (code: SizeT) => number;
  errorName: (code: SizeT) => string;
}

/** An opened zstd: where it was found, so a worker thread opens the same one, and its functions. */
export interface ZstdLibrary {
  /** A library's name, or null: the running program's own (Node 22.15 and later carry zstd). */
  name: string | null;
  fns: Functions;
}

const opened = new Map<string | null, ZstdLibrary | null>();

/**
 * zstd's functions from this library (null: from the running program); undefined when koffi is missing, or the
 * library is, or it is older than 1.4 (no ZSTD_decompressStream_simpleArgs).
 */
export function openZstdLibrary(name: string | null): ZstdLibrary | undefined {
  let lib = opened.get(name);
  if (lib === undefined) {
    try {
      const l = koffi().load(name as string);
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

/**
 * The zstd this process can call, looked up once: the running program's own where it exports one (Node 22.15 and
 * later), else the system library by its layout's names. A program that exports zstd but not all of what is used here
 * gets none: a system library opened beside it would bind its own internal calls to the program's copy, of another
 * version (Node 24 with Debian's libzstd 1.5.4 failed with "Error (generic)").
 */
export function systemZstd(platform: NodeJS.Platform = process.platform): ZstdLibrary | undefined {
  const own = openZstdLibrary(null);
  if (own) return own;
  if (programHasZstd()) return undefined;
  for (const name of nodeLayout(platform).zstdLibraries) {
    const lib = openZstdLibrary(name);
    if (lib) return lib;
  }
  return undefined;
}

function programHasZstd(): boolean {
  try {
    koffi().load(null as unknown as string).func('unsigned int ZSTD_versionNumber(void)');
    return true;
  } catch {
    return false;
  }
}

/**
 * One decompression (a zstd stream of one or more frames, each checksum checked where the frame has one). Owns
 * native memory: `close` it.
 */
export class ZstdInflater {
  private ds: unknown;
  /** What the last call answered: 0 once a frame is whole and all of it handed out. */
  private hint: SizeT = -1;

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
    if (Number(this.hint) !== 0) throw new Error(this.hint === -1 ? 'zstd: no data' : 'zstd: the compressed data ended early');
  }

  close(): void {
    if (this.ds) this.lib.fns.freeDStream(this.ds);
    this.ds = undefined;
  }
}
