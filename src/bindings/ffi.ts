// Native memory blocks for koffi calls: every struct is a byte block read and written at fixed offsets.
import { XpuError } from '../base/errors.js';
import { nodeLayout } from '../platform/index.js';
import { koffi, type KoffiModule } from '../base/koffi.js';
import { loadDllSafely } from './win-dll.js';

export { koffi } from '../base/koffi.js';

/** A zeroed block of native memory with little-endian accessors; free() it when done. */
export class Block {
  readonly ptr: bigint;
  readonly size: number;
  private readonly dv: DataView;
  private freed = false;

  constructor(size: number) {
    this.size = Math.max(8, size);
    this.ptr = koffi().alloc('uint8_t', this.size) as bigint;
    this.dv = new DataView(koffi().view(this.ptr, this.size));
    new Uint8Array(this.dv.buffer).fill(0);
  }

  u32(off: number): number { return this.dv.getUint32(off, true); }
  i32(off: number): number { return this.dv.getInt32(off, true); }
  u64(off: number): number { return Number(this.dv.getBigUint64(off, true)); }
  ptrAt(off: number): bigint { return this.dv.getBigUint64(off, true); }
  f32(off: number): number { return this.dv.getFloat32(off, true); }
  setU32(off: number, v: number): this { this.dv.setUint32(off, v >>> 0, true); return this; }
  setU64(off: number, v: number | bigint): this { this.dv.setBigUint64(off, BigInt(v), true); return this; }
  setF32(off: number, v: number): this { this.dv.setFloat32(off, v, true); return this; }
  bytes(off: number, len: number): Uint8Array { return new Uint8Array(this.dv.buffer, off, len); }

  /** A NUL-terminated string stored inline at off (char name[len]). */
  str(off: number, len: number): string {
    const b = this.bytes(off, len);
    const end = b.indexOf(0);
    return Buffer.from(b.subarray(0, end < 0 ? len : end)).toString('utf8');
  }

  hex(off: number, len: number): string {
    return Buffer.from(this.bytes(off, len)).toString('hex');
  }

  free(): void {
    if (!this.freed) koffi().free(this.ptr);
    this.freed = true;
  }
}

/** Copies a JS buffer into a new native block (e.g. a SPIR-V module or a C string). */
export function blockFrom(data: Uint8Array, nulTerminate = false): Block {
  const b = new Block(data.length + (nulTerminate ? 1 : 0));
  b.bytes(0, data.length).set(data);
  return b;
}

/** Reads len bytes at an arbitrary native address. */
export function readNative(ptr: bigint, len: number): Uint8Array {
  return new Uint8Array(koffi().view(ptr, len)).slice();
}

/** Frees blocks in reverse order of creation, even when a step failed. */
export class Arena {
  private readonly blocks: Block[] = [];
  alloc(size: number): Block { const b = new Block(size); this.blocks.push(b); return b; }
  from(data: Uint8Array, nul = false): Block { const b = blockFrom(data, nul); this.blocks.push(b); return b; }
  free(): void { while (this.blocks.length) this.blocks.pop()!.free(); }
}

export type Lib = ReturnType<KoffiModule['load']>;

/**
 * Opens a library by its full path, and makes its symbol lookups name it: koffi's own error ("Cannot find function
 * 'x'") does not say where. On Windows it is first loaded with the safe DLL search (beside itself, then
 * `dependencyDirs`, then System32), so its imports (the addon's ze_loader.dll) come from the prefix and never from
 * PATH or the current directory; koffi then opens the module already loaded.
 */
export function loadLibrary(path: string, opts: { dependencyDirs?: string[] } = {}): Lib {
  if (nodeLayout(process.platform).loadLibrary === 'LoadLibraryExW') {
    const err = loadDllSafely(path, opts.dependencyDirs);
    if (err) {
      const why = err === 126 ? ' (a DLL it needs was not found)' : err === 193 ? ' (not a 64-bit Windows DLL)' : '';
      throw new XpuError('RUNTIME', `LoadLibraryExW(${path}) failed with Win32 error ${err}${why}`, { details: { library: path, win32Error: err } });
    }
  }
  const lib = koffi().load(path);
  const func = lib.func.bind(lib) as (...args: unknown[]) => unknown;
  const named = (...args: unknown[]): unknown => {
    try {
      return func(...args);
    } catch (e) {
      const message = String((e as Error)?.message ?? e).replace(/\s*in shared library\s*$/i, '');
      throw new XpuError('RUNTIME', `${message} in ${path}`, { cause: e, details: { library: path } });
    }
  };
  // koffi's handle is sealed: wrap it rather than patch it.
  return new Proxy(lib, {
    get(target, key) {
      if (key === 'func') return named;
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
