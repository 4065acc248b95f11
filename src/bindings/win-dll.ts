// Windows DLL loading by full path with the safe search flags, and which module file and version a process holds.
import { koffi } from '../base/koffi.js';

/** LoadLibraryExW flags (libloaderapi.h). */
const LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR = 0x100;
const LOAD_LIBRARY_SEARCH_USER_DIRS = 0x400;
const LOAD_LIBRARY_SEARCH_SYSTEM32 = 0x800;

interface Kernel32 {
  LoadLibraryExW: (file: string, reserved: null, flags: number) => unknown;
  AddDllDirectory: (dir: string) => unknown;
  RemoveDllDirectory: (cookie: unknown) => number;
  GetModuleHandleW: (name: string) => unknown;
  GetModuleFileNameW: (module: unknown, buf: Uint16Array, size: number) => number;
  GetLastError: () => number;
}

interface Version {
  GetFileVersionInfoSizeW: (file: string, handle: null) => number;
  GetFileVersionInfoW: (file: string, handle: number, size: number, buf: unknown) => number;
  VerQueryValueW: (block: unknown, sub: string, out: [unknown], len: [number]) => number;
}

let k32: Kernel32 | undefined;
let ver: Version | undefined;

function kernel32(): Kernel32 {
  if (!k32) {
    const lib = koffi().load('kernel32.dll');
    k32 = {
      LoadLibraryExW: lib.func('void * __stdcall LoadLibraryExW(str16 file, void *reserved, uint32_t flags)') as unknown as Kernel32['LoadLibraryExW'],
      AddDllDirectory: lib.func('void * __stdcall AddDllDirectory(str16 dir)') as unknown as Kernel32['AddDllDirectory'],
      RemoveDllDirectory: lib.func('int __stdcall RemoveDllDirectory(void *cookie)') as unknown as Kernel32['RemoveDllDirectory'],
      GetModuleHandleW: lib.func('void * __stdcall GetModuleHandleW(str16 name)') as unknown as Kernel32['GetModuleHandleW'],
      GetModuleFileNameW: lib.func('uint32_t __stdcall GetModuleFileNameW(void *module, _Out_ uint16_t *buf, uint32_t size)') as unknown as Kernel32['GetModuleFileNameW'],
      GetLastError: lib.func('uint32_t __stdcall GetLastError()') as unknown as Kernel32['GetLastError'],
    };
  }
  return k32;
}

/**
 * Loads `file` by its full path. Its own imports are looked for beside it, then in `dependencyDirs`, then in
 * System32: never in the current directory or on PATH, so a ze_loader.dll elsewhere cannot stand in for the
 * prefix's. Returns the Win32 error code on failure, 0 on success; the module stays loaded for koffi to open.
 */
export function loadDllSafely(file: string, dependencyDirs: string[] = []): number {
  const k = kernel32();
  const cookies = dependencyDirs.map((d) => k.AddDllDirectory(d)).filter((c) => c !== null);
  try {
    const flags = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32 | (cookies.length ? LOAD_LIBRARY_SEARCH_USER_DIRS : 0);
    return k.LoadLibraryExW(file, null, flags) === null ? k.GetLastError() : 0;
  } finally {
    for (const c of cookies) k.RemoveDllDirectory(c);
  }
}

/** The full path of the module this process has loaded under `name` (e.g. ze_loader.dll), if any. */
export function loadedModulePath(name: string): string | undefined {
  const k = kernel32();
  const h = k.GetModuleHandleW(name);
  if (h === null) return undefined;
  const buf = new Uint16Array(32_768);
  const n = k.GetModuleFileNameW(h, buf, buf.length);
  return n > 0 ? Buffer.from(buf.buffer, 0, n * 2).toString('utf16le').replace(/^\\\\\?\\/, '') : undefined;
}

/** FileVersion of a DLL's version resource (VS_FIXEDFILEINFO), e.g. "1.8.12.0"; undefined when it has none. */
export function dllFileVersion(file: string): string | undefined {
  if (!ver) {
    const lib = koffi().load('version.dll');
    ver = {
      GetFileVersionInfoSizeW: lib.func('uint32_t __stdcall GetFileVersionInfoSizeW(str16 file, void *handle)') as unknown as Version['GetFileVersionInfoSizeW'],
      GetFileVersionInfoW: lib.func('int __stdcall GetFileVersionInfoW(str16 file, uint32_t handle, uint32_t size, void *buf)') as unknown as Version['GetFileVersionInfoW'],
      VerQueryValueW: lib.func('int __stdcall VerQueryValueW(void *block, str16 sub, _Out_ void **out, _Out_ uint32_t *len)') as unknown as Version['VerQueryValueW'],
    };
  }
  const size = ver.GetFileVersionInfoSizeW(file, null);
  if (!size) return undefined;
  // Native memory, not a Buffer: VerQueryValueW answers with a pointer into this block.
  const block = koffi().alloc('uint8_t', size);
  try {
    if (!ver.GetFileVersionInfoW(file, 0, size, block)) return undefined;
    const out: [unknown] = [null];
    const len: [number] = [0];
    if (!ver.VerQueryValueW(block, '\\', out, len) || len[0] < 52 || out[0] === null) return undefined;
    // VS_FIXEDFILEINFO: signature, struct version, then dwFileVersionMS and dwFileVersionLS.
    const info = koffi().decode(out[0], 'uint32_t', 4) as number[];
    if (info[0] !== 0xfeef04bd) return undefined;
    const ms = info[2]!;
    const ls = info[3]!;
    return `${ms >>> 16}.${ms & 0xffff}.${ls >>> 16}.${ls & 0xffff}`;
  } finally {
    koffi().free(block);
  }
}
