// koffi bindings to a Unified Runtime loader (any library with UR 0.x's C ABI): adapters, platforms, devices, IP version.
import { XpuError } from '../base/errors.js';
import { Arena, loadLibrary } from './ffi.js';
import type { RawUrProbe, UrDevice } from './types.js';

const UR = {
  ADAPTER_INFO_BACKEND: 0,
  BACKEND_LEVEL_ZERO: 1,
  PLATFORM_INFO_NAME: 1,
  DEVICE_TYPE_ALL: 2,
  DEVICE_INFO_TYPE: 0,
  DEVICE_INFO_VENDOR_ID: 1,
  DEVICE_INFO_DEVICE_ID: 2,
  DEVICE_INFO_NAME: 66,
  DEVICE_INFO_IP_VERSION: 113,
} as const;

export const UR_RESULT: Record<number, string> = {
  0: 'UR_RESULT_SUCCESS',
  43: 'UR_RESULT_ERROR_UNSUPPORTED_VERSION',
  54: 'UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION',
};

/** Whether urAdapterGet gave a Level Zero adapter: the real loader drops an adapter that fails to load without a word. */
export function hasLevelZeroAdapter(r: RawUrProbe): boolean {
  return r.backends.includes(UR.BACKEND_LEVEL_ZERO);
}

export function urResultName(r: number): string {
  return UR_RESULT[r] ? `${UR_RESULT[r]} (${r})` : `result ${r}`;
}

type Fn = (...a: unknown[]) => number;

/**
 * Walks urLoaderInit -> urAdapterGet -> urPlatformGet -> urDeviceGet -> urDeviceGetInfo -> urLoaderTearDown.
 * urPlatformGet has two ABIs under the same name: (adapters[], nAdapters, n, ph, pCount) in the UR 0.12 headers and
 * (adapter, n, ph, pCount) in later releases. The single-adapter call is made with a fifth argument that makes it
 * harmless under the array ABI (nAdapters = 0: no adapter is dereferenced); the array call follows only on an error.
 */
export function probeUr(loaderPath: string): RawUrProbe {
  let lib;
  try {
    lib = loadLibrary(loaderPath);
  } catch (e) {
    throw new XpuError('RUNTIME', `cannot load the Unified Runtime loader ${loaderPath}`, { cause: e });
  }
  const f = (sig: string) => lib.func(sig) as Fn;
  const loaderInit = f('int32_t urLoaderInit(uint32_t flags, void *config)');
  const tearDown = f('int32_t urLoaderTearDown(void)');
  const adapterGet = f('int32_t urAdapterGet(uint32_t n, void *ph, void *pCount)');
  const adapterInfo = f('int32_t urAdapterGetInfo(void *h, uint32_t prop, size_t size, void *value, void *ret)');
  const platformGetArray = f('int32_t urPlatformGet(void *phAdapters, uint32_t nAdapters, uint32_t n, void *ph, void *pCount)');
  const platformGetSingle = f('int32_t urPlatformGet(void *hAdapter, uint32_t n, void *ph, void *pCount, void *pCountAgain)');
  const platformInfo = f('int32_t urPlatformGetInfo(void *h, uint32_t prop, size_t size, void *value, void *ret)');
  const deviceGet = f('int32_t urDeviceGet(void *platform, uint32_t type, uint32_t n, void *ph, void *pCount)');
  const deviceInfo = f('int32_t urDeviceGetInfo(void *h, uint32_t prop, size_t size, void *value, void *ret)');

  const a = new Arena();
  const notes: string[] = [];
  const result: RawUrProbe = { loaderPath, init: 0, adapters: 0, adapterResult: 0, backends: [], platforms: [], devices: [], notes };
  try {
    result.init = loaderInit(0, null);
    if (result.init !== 0) {
      notes.push(`urLoaderInit returned ${urResultName(result.init)}`);
      return result;
    }
    const n = a.alloc(4);
    result.adapterResult = adapterGet(0, null, n.ptr);
    result.adapters = result.adapterResult === 0 ? n.u32(0) : 0;
    if (result.adapterResult !== 0) notes.push(`urAdapterGet returned ${urResultName(result.adapterResult)}: no usable adapter`);
    if (result.adapters === 0) return result;
    const adapters = a.alloc(8 * result.adapters);
    adapterGet(result.adapters, adapters.ptr, null);
    const str = (fn: Fn, h: bigint, prop: number): string => {
      const size = a.alloc(8);
      if (fn(h, prop, 0, null, size.ptr) !== 0) return '';
      const v = a.alloc(size.u64(0) + 1);
      return fn(h, prop, size.u64(0), v.ptr, null) === 0 ? v.str(0, size.u64(0)) : '';
    };
    const u32 = (fn: Fn, h: bigint, prop: number): { r: number; v: number | null } => {
      const v = a.alloc(8);
      const r = fn(h, prop, 4, v.ptr, null);
      return { r, v: r === 0 ? v.u32(0) : null };
    };
    for (let i = 0; i < result.adapters; i++) {
      const adapter = adapters.ptrAt(8 * i);
      const adapterArr = a.alloc(8).setU64(0, adapter);
      const backend = u32(adapterInfo, adapter, UR.ADAPTER_INFO_BACKEND).v;
      result.backends.push(backend);
      const pc = a.alloc(4);
      let get: (n: number, ph: bigint | null) => number = (n, ph) => platformGetSingle(adapter, n, ph, ph ? null : pc.ptr, ph ? null : pc.ptr);
      if (get(0, null) !== 0) {
        get = (n, ph) => platformGetArray(adapterArr.ptr, 1, n, ph, ph ? null : pc.ptr);
        if (get(0, null) !== 0) {
          notes.push(`urPlatformGet failed for adapter ${i} with both known signatures`);
          continue;
        }
      }
      if (pc.u32(0) === 0) continue;
      const plats = a.alloc(8 * pc.u32(0));
      get(pc.u32(0), plats.ptr);
      for (let j = 0; j < pc.u32(0); j++) {
        const p = plats.ptrAt(8 * j);
        const pname = str(platformInfo, p, UR.PLATFORM_INFO_NAME);
        result.platforms.push(pname);
        const dc = a.alloc(4);
        if (deviceGet(p, UR.DEVICE_TYPE_ALL, 0, null, dc.ptr) !== 0 || dc.u32(0) === 0) continue;
        const devs = a.alloc(8 * dc.u32(0));
        deviceGet(p, UR.DEVICE_TYPE_ALL, dc.u32(0), devs.ptr, null);
        for (let k = 0; k < dc.u32(0); k++) {
          const d = devs.ptrAt(8 * k);
          const ip = u32(deviceInfo, d, UR.DEVICE_INFO_IP_VERSION);
          const dev: UrDevice = {
            adapterBackend: backend,
            platform: pname,
            name: str(deviceInfo, d, UR.DEVICE_INFO_NAME),
            type: u32(deviceInfo, d, UR.DEVICE_INFO_TYPE).v,
            vendorId: u32(deviceInfo, d, UR.DEVICE_INFO_VENDOR_ID).v,
            deviceId: u32(deviceInfo, d, UR.DEVICE_INFO_DEVICE_ID).v,
            ipVersion: ip.v,
            ipVersionResult: ip.r,
          };
          if (ip.r !== 0) notes.push(`${dev.name || 'device'}: UR_DEVICE_INFO_IP_VERSION answered ${urResultName(ip.r)}`);
          result.devices.push(dev);
        }
      }
    }
    return result;
  } finally {
    tearDown();
    a.free();
  }
}
