// Reads OpenCL devices through the ICD loader with koffi: the extension list Triton wants, when an Intel ICD is present.
import { nodeLayout } from '../platform/index.js';
import { Arena, loadLibrary } from './ffi.js';
import type { OpenClDevice } from './types.js';

const CL = {
  PLATFORM_NAME: 0x0902,
  PLATFORM_VENDOR: 0x0903,
  DEVICE_TYPE: 0x1000,
  DEVICE_VENDOR_ID: 0x1001,
  DEVICE_NAME: 0x102b,
  DRIVER_VERSION: 0x102d,
  DEVICE_EXTENSIONS: 0x1030,
  DEVICE_PCI_BUS_INFO_KHR: 0x410f,
  DEVICE_IP_VERSION_INTEL: 0x4250,
  DEVICE_ID_INTEL: 0x4251,
  DEVICE_TYPE_ALL: 0xffffffff,
} as const;


export interface OpenClScan {
  library: string;
  devices: OpenClDevice[];
  /** Why nothing was read, when nothing was. */
  error?: string;
}

type Fn = (...a: unknown[]) => number;

function clType(t: number): OpenClDevice['type'] {
  if (t & 4) return 'gpu';
  if (t & 2) return 'cpu';
  if (t & 8) return 'accelerator';
  return 'other';
}

/** Lists every OpenCL device of every platform; an absent ICD loader is a note, not an error. */
export function scanOpenCl(platform: NodeJS.Platform, library: string = nodeLayout(platform).openclLibrary): OpenClScan {
  let lib;
  try {
    lib = loadLibrary(library);
  } catch (e) {
    return { library, devices: [], error: `cannot load ${library}: ${(e as Error).message}` };
  }
  const getPlatforms = lib.func('int32_t clGetPlatformIDs(uint32_t n, void *platforms, void *count)') as Fn;
  const getPlatformInfo = lib.func('int32_t clGetPlatformInfo(void *p, uint32_t name, size_t size, void *value, void *ret)') as Fn;
  const getDevices = lib.func('int32_t clGetDeviceIDs(void *p, uint64_t type, uint32_t n, void *devices, void *count)') as Fn;
  const getDeviceInfo = lib.func('int32_t clGetDeviceInfo(void *d, uint32_t name, size_t size, void *value, void *ret)') as Fn;
  const a = new Arena();
  try {
    const info = (fn: Fn, h: bigint, name: number): { ok: boolean; text: string; u32: number; u64: number; block?: ReturnType<Arena['alloc']> } => {
      const size = a.alloc(8);
      if (fn(h, name, 0, null, size.ptr) !== 0) return { ok: false, text: '', u32: 0, u64: 0 };
      const n = size.u64(0);
      const v = a.alloc(n + 1);
      if (fn(h, name, n, v.ptr, null) !== 0) return { ok: false, text: '', u32: 0, u64: 0 };
      return { ok: true, text: v.str(0, n), u32: n >= 4 ? v.u32(0) : 0, u64: n >= 8 ? v.u64(0) : 0, block: v };
    };
    const count = a.alloc(4);
    const r = getPlatforms(0, null, count.ptr);
    // -1001 is the ICD loader's "no platforms" (CL_PLATFORM_NOT_FOUND_KHR).
    if (r !== 0 || count.u32(0) === 0) return { library, devices: [], error: r === 0 || r === -1001 ? undefined : `clGetPlatformIDs returned ${r}` };
    const np = count.u32(0);
    const plats = a.alloc(8 * np);
    getPlatforms(np, plats.ptr, null);
    const devices: OpenClDevice[] = [];
    for (let i = 0; i < np; i++) {
      const p = plats.ptrAt(8 * i);
      const pname = info(getPlatformInfo, p, CL.PLATFORM_NAME).text;
      const pvendor = info(getPlatformInfo, p, CL.PLATFORM_VENDOR).text;
      const dc = a.alloc(4);
      if (getDevices(p, CL.DEVICE_TYPE_ALL, 0, null, dc.ptr) !== 0 || dc.u32(0) === 0) continue;
      const nd = dc.u32(0);
      const devs = a.alloc(8 * nd);
      getDevices(p, CL.DEVICE_TYPE_ALL, nd, devs.ptr, null);
      for (let j = 0; j < nd; j++) {
        const d = devs.ptrAt(8 * j);
        const pci = info(getDeviceInfo, d, CL.DEVICE_PCI_BUS_INFO_KHR);
        const id = info(getDeviceInfo, d, CL.DEVICE_ID_INTEL);
        const ip = info(getDeviceInfo, d, CL.DEVICE_IP_VERSION_INTEL);
        devices.push({
          platform: pname,
          platformVendor: pvendor,
          name: info(getDeviceInfo, d, CL.DEVICE_NAME).text,
          type: clType(info(getDeviceInfo, d, CL.DEVICE_TYPE).u64),
          vendorId: info(getDeviceInfo, d, CL.DEVICE_VENDOR_ID).u32,
          deviceId: id.ok ? id.u32 : null,
          ipVersion: ip.ok ? ip.u32 : null,
          pci: pci.ok && pci.block
            ? { domain: pci.block.u32(0), bus: pci.block.u32(4), device: pci.block.u32(8), function: pci.block.u32(12) }
            : null,
          driverVersion: info(getDeviceInfo, d, CL.DRIVER_VERSION).text,
          extensions: info(getDeviceInfo, d, CL.DEVICE_EXTENSIONS).text.split(/\s+/).filter(Boolean),
        });
      }
    }
    return { library, devices };
  } finally {
    a.free();
  }
}
