// koffi bindings straight into a Level Zero loader, opened by full path, and the device probe built on them.
import { diagnoseLoadError } from '../machine/load-check.js';
import { XpuError } from '../base/errors.js';
import { Arena, Block, koffi, loadLibrary, type Lib } from './ffi.js';
import { nodeLayout, prefixLibrary, system32Dir } from '../platform/index.js';
import type { Deps } from '../base/deps.js';
import { DEVICE_TYPE, EXT, LAYOUT, STYPE, apiVersionString, zeResultName } from './ze-abi.js';
import type { RawDevice, RawDriver, RawLoaderComponent, RawZeProbe } from './types.js';
import { LOADER_ENV_PREFIXES } from '../base/env-names.js';
import type { NoDriverExplanation } from '../machine/ze-drivers.js';

type Fn = (...args: unknown[]) => number;

const SIGNATURES = [
  'uint32_t zeInit(uint32_t flags)',
  'uint32_t zeDriverGet(void *pCount, void *phDrivers)',
  'uint32_t zeDriverGetApiVersion(void *hDriver, void *version)',
  'uint32_t zeDriverGetProperties(void *hDriver, void *pProps)',
  'uint32_t zeDriverGetExtensionProperties(void *hDriver, void *pCount, void *pProps)',
  'uint32_t zeDriverGetExtensionFunctionAddress(void *hDriver, const char *name, void *ppFunction)',
  'uint32_t zeDeviceGet(void *hDriver, void *pCount, void *phDevices)',
  'uint32_t zeDeviceGetSubDevices(void *hDevice, void *pCount, void *phSubdevices)',
  'uint32_t zeDeviceGetProperties(void *hDevice, void *pProps)',
  'uint32_t zeDeviceGetComputeProperties(void *hDevice, void *pProps)',
  'uint32_t zeDeviceGetModuleProperties(void *hDevice, void *pProps)',
  'uint32_t zeDeviceGetMemoryProperties(void *hDevice, void *pCount, void *pProps)',
  'uint32_t zeDeviceGetCacheProperties(void *hDevice, void *pCount, void *pProps)',
  'uint32_t zeDevicePciGetPropertiesExt(void *hDevice, void *pProps)',
  'uint32_t zeContextCreate(void *hDriver, void *desc, void *phContext)',
  'uint32_t zeContextDestroy(void *hContext)',
  'uint32_t zeMemAllocDevice(void *hContext, void *desc, size_t size, size_t alignment, void *hDevice, void *pptr)',
  'uint32_t zeMemAllocHost(void *hContext, void *desc, size_t size, size_t alignment, void *pptr)',
  'uint32_t zeMemFree(void *hContext, void *ptr)',
  'uint32_t zeModuleCreate(void *hContext, void *hDevice, void *desc, void *phModule, void *phBuildLog)',
  'uint32_t zeModuleDestroy(void *hModule)',
  'uint32_t zeModuleBuildLogGetString(void *hLog, void *pSize, void *pLog)',
  'uint32_t zeModuleBuildLogDestroy(void *hLog)',
  'uint32_t zeKernelCreate(void *hModule, void *desc, void *phKernel)',
  'uint32_t zeKernelDestroy(void *hKernel)',
  'uint32_t zeKernelSuggestGroupSize(void *hKernel, uint32_t x, uint32_t y, uint32_t z, void *gx, void *gy, void *gz)',
  'uint32_t zeKernelSetGroupSize(void *hKernel, uint32_t x, uint32_t y, uint32_t z)',
  'uint32_t zeKernelSetArgumentValue(void *hKernel, uint32_t index, size_t size, void *pValue)',
  'uint32_t zeCommandQueueCreate(void *hContext, void *hDevice, void *desc, void *phQueue)',
  'uint32_t zeCommandQueueDestroy(void *hQueue)',
  'uint32_t zeCommandQueueExecuteCommandLists(void *hQueue, uint32_t n, void *phLists, void *hFence)',
  'uint32_t zeCommandQueueSynchronize(void *hQueue, uint64_t timeout)',
  'uint32_t zeCommandListCreate(void *hContext, void *hDevice, void *desc, void *phList)',
  'uint32_t zeCommandListCreateImmediate(void *hContext, void *hDevice, void *desc, void *phList)',
  'uint32_t zeCommandListDestroy(void *hList)',
  'uint32_t zeCommandListClose(void *hList)',
  'uint32_t zeCommandListReset(void *hList)',
  'uint32_t zeCommandListAppendLaunchKernel(void *hList, void *hKernel, void *pGroups, void *hSignal, uint32_t n, void *phWait)',
  'uint32_t zeCommandListAppendMemoryCopy(void *hList, void *dst, void *src, size_t size, void *hSignal, uint32_t n, void *phWait)',
  'uint32_t zeCommandListAppendBarrier(void *hList, void *hSignal, uint32_t n, void *phWait)',
  'uint32_t zeEventPoolCreate(void *hContext, void *desc, uint32_t nDevices, void *phDevices, void *phPool)',
  'uint32_t zeEventPoolDestroy(void *hPool)',
  'uint32_t zeEventCreate(void *hPool, void *desc, void *phEvent)',
  'uint32_t zeEventDestroy(void *hEvent)',
  'uint32_t zeEventHostSynchronize(void *hEvent, uint64_t timeout)',
  'uint32_t zeEventHostReset(void *hEvent)',
] as const;

/** The loader's exported functions; a function the loader lacks is undefined and calling it says so. */
export class ZeApi {
  readonly path: string;
  private readonly lib: Lib;
  private readonly fns = new Map<string, Fn>();
  private readonly missing = new Set<string>();
  readonly getVersions: Fn | undefined;

  constructor(loaderPath: string) {
    this.path = loaderPath;
    try {
      this.lib = loadLibrary(loaderPath);
    } catch (e) {
      const d = diagnoseLoadError(String((e as Error)?.message ?? e), loaderPath);
      throw new XpuError('RUNTIME', `cannot load the Level Zero loader ${loaderPath}: ${d.summary}`, {
        cause: e,
        details: { loader: loaderPath, diagnosis: d.kind },
        hints:
          d.kind === 'not-found'
            ? ['run `xpu-setup` to install the loader into the prefix, or pass --prefix']
            : [d.fix ?? 'check the library with ldd', 'on Debian/Ubuntu, `xpu-setup --source apt --require \'level-zero>=1.8\'` installs the distribution\'s own loader (Debian 12\'s is below the default floor 1.9)'],
      });
    }
    for (const sig of SIGNATURES) {
      const name = /(\w+)\(/.exec(sig)![1]!;
      try {
        this.fns.set(name, this.lib.func(sig) as Fn);
      } catch {
        this.missing.add(name);
      }
    }
    // zelLoaderGetVersions appeared in loader 1.3; older loaders simply lack it.
    try {
      this.getVersions = this.lib.func('uint32_t zelLoaderGetVersions(void *pNum, void *pVersions)') as Fn;
    } catch {
      this.getVersions = undefined;
    }
  }

  /** zeInit's last answer in this process; undefined before the first call. */
  initResult: number | undefined;

  /** Calls zeInit and keeps its answer: nothing may enumerate after a failure (see driverHandles). */
  init(): number {
    this.initResult = this.raw('zeInit', 0);
    return this.initResult;
  }

  has(name: string): boolean {
    return this.fns.has(name);
  }

  /** Calls name and returns its ze_result_t. */
  raw(name: string, ...args: unknown[]): number {
    const f = this.fns.get(name);
    if (!f) throw new XpuError('RUNTIME', `the loader ${this.path} does not export ${name}`);
    return f(...args) >>> 0;
  }

  /** Calls name and throws a RUNTIME error naming the call when it does not succeed. */
  call(name: string, ...args: unknown[]): void {
    const r = this.raw(name, ...args);
    if (r !== 0) throw new XpuError('RUNTIME', `${name} failed: ${zeResultName(r)}`, { details: { call: name, result: r } });
  }
}

/** The loader file in a prefix, per platform. */
export function zeLoaderPath(prefix: string, platform: NodeJS.Platform): string {
  return prefixLibrary(platform, prefix, nodeLayout(platform).zeLoaderRuntime);
}

/**
 * The Level Zero loader a prefix's programs run on: the prefix's own copy, else (Windows) the GPU driver's copy in
 * System32, which a prefix holding only the SDK builds against. With neither on Windows, NO_DEVICE, as for a machine
 * without a driver: nothing can be probed, setup says so and succeeds, and --require-device makes it an error.
 */
export async function prefixLoader(prefix: string, deps: Pick<Deps, 'platform' | 'env' | 'exists'>): Promise<string> {
  const layout = nodeLayout(deps.platform);
  const own = zeLoaderPath(prefix, deps.platform);
  if (await deps.exists(own)) return own;
  if (!layout.driverLoaderInSystem32) {
    throw new XpuError('NOT_FOUND', `no Level Zero loader in the prefix: ${own} does not exist`, {
      hints: [`run \`xpu-setup --prefix ${prefix}\` to install it`, "or pass --system to use the system's own Level Zero loader"],
    });
  }
  const driverCopy = layout.path.join(system32Dir(deps.env), layout.zeLoaderRuntime);
  if (await deps.exists(driverCopy)) return driverCopy;
  throw new XpuError(
    'NO_DEVICE',
    `no Level Zero loader is installed on this machine: the Intel GPU driver puts ${layout.zeLoaderRuntime} in System32, and the prefix leaves the package's copy out so that the driver's wins`,
    {
      details: { noLoader: true, tried: [own, driverCopy] },
      hints: [
        "install the Intel GPU driver: programs built with the prefix's headers and ze_loader.lib then run on its loader",
        `or set up with --include-loader-dll (\`xpu-setup --prefix ${prefix} --include-loader-dll\`) to probe against the package's own ${layout.zeLoaderRuntime}; with no driver it reports none, and the loader's null driver (ZE_ENABLE_NULL_DRIVER=1) answers`,
      ],
    },
  );
}

/** The driver choice as the caller reads it (roles/): the variable that makes it, and the list it sets, when it does. */
export interface ChosenDrivers {
  variable: string;
  entries?: string[];
}

/**
 * The error every caller raises when zeInit fails. With `explained` (which driver libraries load here, what the kernel
 * side lacks) it tells a driver that loaded and found no device apart from no driver at all.
 */
export function noDriverError(
  loaderPath: string,
  result: number,
  chosen: ChosenDrivers,
  platform: NodeJS.Platform,
  explained?: NoDriverExplanation,
): XpuError {
  const libs = nodeLayout(platform).zeDriverLibraries;
  const alt = chosen.entries?.join(',');
  const details = { loader: loaderPath, zeInit: result, driverLibraries: alt ? chosen.entries! : [...libs], ...(explained ? { drivers: explained.drivers, kernel: explained.kernel } : {}) };
  const loaded = explained?.drivers.filter((d) => d.loaded) ?? [];
  if (loaded.length) {
    const which = loaded.map((d) => `${d.name}${d.path && d.path !== d.name ? ` (${d.path})` : ''}`).join(', ');
    return new XpuError('NO_DEVICE', `the Level Zero driver ${which} loaded but found no device: zeInit returned ${zeResultName(result)}`, {
      hints: explained!.kernel.length
        ? explained!.kernel
        : ['the driver sees no GPU it supports: check that the GPU is one this driver version drives and that you can open /dev/dri/renderD* (`xpu-setup doctor`)'],
      details,
    });
  }
  const looked = explained?.drivers.length
    ? explained.drivers.map((d) => `${d.name}: ${d.why ?? 'did not load'}`).join('; ')
    : `${alt ? `${chosen.variable}=${alt}` : libs.join(', ')}${alt ? '' : ` (or the list in ${chosen.variable})`}; none of them loaded`;
  // A driver that is there and does not load is not fixed by installing it again: what it lacks is the problem.
  const present = explained?.drivers.filter((d) => d.path && !d.loaded).map((d) => d.path!) ?? [];
  const remedy = present.length
    ? [`${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} there but did not load: \`xpu-setup doctor\` (its Level Zero GPU driver check) says what it lacks and which build loads here`]
    : nodeLayout(platform).remedies.noGpuDriver;
  return new XpuError('NO_DEVICE', `no Level Zero driver was found: zeInit returned ${zeResultName(result)}`, {
    hints: [`the loader ${loaderPath} looks for the driver libraries ${looked}`, ...remedy],
    details,
  });
}

function handles(api: ZeApi, a: Arena, name: string, ...lead: unknown[]): bigint[] {
  const count = a.alloc(4);
  api.call(name, ...lead, count.ptr, null);
  const n = count.u32(0);
  if (n === 0) return [];
  const arr = a.alloc(8 * n);
  api.call(name, ...lead, count.ptr, arr.ptr);
  return Array.from({ length: count.u32(0) }, (_, i) => arr.ptrAt(8 * i));
}

export interface ZeDriverHandles {
  driver: bigint;
  devices: bigint[];
}

/**
 * Every driver and its devices in the loader's order: the one enumeration the probe and the smoke test share, so
 * `--device` and ONEAPI_DEVICE_SELECTOR mean the same devices in both. Refused unless zeInit succeeded: loader 1.8.12
 * crashes in zeDriverGet, and 1.32 in zeDeviceGet, when called after it failed.
 */
export function driverHandles(api: ZeApi, a: Arena): ZeDriverHandles[] {
  if (api.initResult !== 0) {
    const said = api.initResult === undefined ? 'zeInit was not called' : `zeInit returned ${zeResultName(api.initResult)}`;
    throw new XpuError('RUNTIME', `refusing to enumerate Level Zero drivers through ${api.path}: ${said}`, { details: { loader: api.path, zeInit: api.initResult ?? null } });
  }
  return handles(api, a, 'zeDriverGet').map((driver) => ({ driver, devices: handles(api, a, 'zeDeviceGet', driver) }));
}

export interface ZeDeviceEntry {
  /** "driver.device", as the probe report numbers devices. */
  id: string;
  /** Flat index over every driver's devices. */
  index: number;
  driver: bigint;
  handle: bigint;
  name: string;
  typeCode: number;
  type: string;
}

/** The devices of driverHandles with the name and type zeDeviceGetProperties gives. */
export function listDevices(api: ZeApi, a: Arena, drivers: ZeDriverHandles[] = driverHandles(api, a)): ZeDeviceEntry[] {
  const P = LAYOUT.deviceProperties;
  const out: ZeDeviceEntry[] = [];
  drivers.forEach(({ driver, devices }, i) =>
    devices.forEach((handle, j) => {
      const props = a.alloc(P.size).setU32(0, STYPE.DEVICE_PROPERTIES);
      api.call('zeDeviceGetProperties', handle, props.ptr);
      const typeCode = props.u32(P.type);
      out.push({ id: `${i}.${j}`, index: out.length, driver, handle, name: props.str(P.name, P.nameLen), typeCode, type: DEVICE_TYPE[typeCode] ?? String(typeCode) });
    }),
  );
  return out;
}

function readComponents(api: ZeApi): RawLoaderComponent[] {
  if (!api.getVersions) return [];
  const a = new Arena();
  try {
    const n = a.alloc(8);
    if (api.getVersions(n.ptr, null) !== 0) return [];
    const count = Math.min(n.u64(0), 64);
    if (count === 0) return [];
    const L = LAYOUT.componentVersion;
    const buf = a.alloc(L.size * count);
    if (api.getVersions(n.ptr, buf.ptr) !== 0) return [];
    return Array.from({ length: Math.min(count, n.u64(0)) }, (_, i) => {
      const o = i * L.size;
      return {
        name: buf.str(o + L.name, L.nameLen),
        spec: apiVersionString(buf.u32(o + L.spec)),
        version: `${buf.i32(o + L.major)}.${buf.i32(o + L.minor)}.${buf.i32(o + L.patch)}`,
      };
    });
  } finally {
    a.free();
  }
}

function readExtensions(api: ZeApi, a: Arena, driver: bigint): { name: string; version: number }[] {
  const count = a.alloc(4);
  if (api.raw('zeDriverGetExtensionProperties', driver, count.ptr, null) !== 0) return [];
  const n = count.u32(0);
  if (n === 0) return [];
  const L = LAYOUT.driverExtension;
  const buf = a.alloc(L.size * n);
  if (api.raw('zeDriverGetExtensionProperties', driver, count.ptr, buf.ptr) !== 0) return [];
  return Array.from({ length: Math.min(n, count.u32(0)) }, (_, i) => ({
    name: buf.str(i * L.size + L.name, L.nameLen),
    version: buf.u32(i * L.size + L.version),
  }));
}

function extStruct(a: Arena, stype: number): Block {
  return a.alloc(LAYOUT.extU32.size).setU32(0, stype);
}

function readDevice(api: ZeApi, a: Arena, dev: bigint, has: (ext: string) => boolean): RawDevice {
  const P = LAYOUT.deviceProperties;
  const props = a.alloc(P.size).setU32(0, STYPE.DEVICE_PROPERTIES);
  // Chain the extension structs the driver says it understands: ip version, then 2D block array.
  const ip = has(EXT.ipVersion) ? extStruct(a, STYPE.DEVICE_IP_VERSION_EXT) : undefined;
  const block = has(EXT.blockArray) ? extStruct(a, STYPE.INTEL_DEVICE_BLOCK_ARRAY_EXP_PROPERTIES) : undefined;
  const chain = [ip, block].filter((b): b is Block => !!b);
  if (chain[0]) props.setU64(8, chain[0].ptr);
  if (chain[0] && chain[1]) chain[0].setU64(8, chain[1].ptr);
  api.call('zeDeviceGetProperties', dev, props.ptr);

  const C = LAYOUT.computeProperties;
  const compute = a.alloc(C.size).setU32(0, STYPE.DEVICE_COMPUTE_PROPERTIES);
  api.call('zeDeviceGetComputeProperties', dev, compute.ptr);
  const nsg = Math.min(compute.u32(C.numSubGroupSizes), 8);

  const M = LAYOUT.moduleProperties;
  const mod = a.alloc(M.size).setU32(0, STYPE.DEVICE_MODULE_PROPERTIES);
  const dp = has(EXT.dp) ? extStruct(a, STYPE.INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES) : undefined;
  if (dp) mod.setU64(8, dp.ptr);
  api.call('zeDeviceGetModuleProperties', dev, mod.ptr);
  const spirv = mod.u32(M.spirvVersionSupported);

  const Mem = LAYOUT.memoryProperties;
  const memCount = a.alloc(4);
  api.call('zeDeviceGetMemoryProperties', dev, memCount.ptr, null);
  const nm = Math.min(memCount.u32(0), 16);
  const mems = a.alloc(Mem.size * Math.max(nm, 1));
  for (let i = 0; i < nm; i++) mems.setU32(i * Mem.size, STYPE.DEVICE_MEMORY_PROPERTIES);
  if (nm > 0) api.call('zeDeviceGetMemoryProperties', dev, memCount.ptr, mems.ptr);

  // UR's Level Zero adapter asks for one cache and reports its size as the global memory cache (PyTorch's
  // last_level_cache_size); a driver that lists none leaves it 0.
  const Ca = LAYOUT.cacheProperties;
  const cacheCount = a.alloc(4).setU32(0, 1);
  const cache = a.alloc(Ca.size).setU32(0, STYPE.DEVICE_CACHE_PROPERTIES);
  const cacheOk = api.raw('zeDeviceGetCacheProperties', dev, cacheCount.ptr, cache.ptr) === 0;
  const cacheBytes = cacheOk ? (cacheCount.u32(0) > 0 ? cache.u64(Ca.cacheSize) : 0) : null;

  let pci: RawDevice['pci'] = null;
  if (has(EXT.pci) && api.has('zeDevicePciGetPropertiesExt')) {
    const Q = LAYOUT.pciProperties;
    const p = a.alloc(Q.size).setU32(0, STYPE.PCI_EXT_PROPERTIES);
    if (api.raw('zeDevicePciGetPropertiesExt', dev, p.ptr) === 0) {
      pci = { domain: p.u32(Q.domain), bus: p.u32(Q.bus), device: p.u32(Q.device), function: p.u32(Q.function) };
    }
  }

  const subCount = a.alloc(4);
  const subDevices = api.raw('zeDeviceGetSubDevices', dev, subCount.ptr, null) === 0 ? subCount.u32(0) : 0;

  return {
    name: props.str(P.name, P.nameLen),
    type: props.u32(P.type),
    vendorId: props.u32(P.vendorId),
    deviceId: props.u32(P.deviceId),
    flags: props.u32(P.flags),
    subdeviceId: props.u32(P.subdeviceId),
    coreClockRate: props.u32(P.coreClockRate),
    maxMemAllocSize: props.u64(P.maxMemAllocSize),
    numThreadsPerEU: props.u32(P.numThreadsPerEU),
    physicalEUSimdWidth: props.u32(P.physicalEUSimdWidth),
    numEUsPerSubslice: props.u32(P.numEUsPerSubslice),
    numSubslicesPerSlice: props.u32(P.numSubslicesPerSlice),
    numSlices: props.u32(P.numSlices),
    uuid: props.hex(P.uuid, 16),
    maxTotalGroupSize: compute.u32(C.maxTotalGroupSize),
    maxGroupSize: [compute.u32(C.maxGroupSizeX), compute.u32(C.maxGroupSizeY), compute.u32(C.maxGroupSizeZ)],
    maxSharedLocalMemory: compute.u32(C.maxSharedLocalMemory),
    subGroupSizes: Array.from({ length: nsg }, (_, i) => compute.u32(C.subGroupSizes + 4 * i)),
    spirvVersion: `${spirv >>> 16}.${spirv & 0xffff}`,
    moduleFlags: mod.u32(M.flags),
    fp16flags: mod.u32(M.fp16flags),
    fp64flags: mod.u32(M.fp64flags),
    dpFlags: dp ? dp.u32(LAYOUT.extU32.value) : null,
    blockArrayFlags: block ? block.u32(LAYOUT.extU32.value) : null,
    ipVersion: ip ? ip.u32(LAYOUT.extU32.value) : null,
    memories: Array.from({ length: nm }, (_, i) => ({
      name: mems.str(i * Mem.size + Mem.name, Mem.nameLen),
      totalSize: mems.u64(i * Mem.size + Mem.totalSize),
      maxClockRate: mems.u32(i * Mem.size + Mem.maxClockRate),
      maxBusWidth: mems.u32(i * Mem.size + Mem.maxBusWidth),
    })),
    pci,
    subDevices,
    cacheBytes,
  };
}

/** The device's IP version (ze_device_ip_version_ext_t), or undefined when its driver does not list the extension. */
export function deviceIpVersion(api: ZeApi, a: Arena, driver: bigint, device: bigint): number | undefined {
  if (!readExtensions(api, a, driver).some((e) => e.name === EXT.ipVersion)) return undefined;
  const props = a.alloc(LAYOUT.deviceProperties.size).setU32(0, STYPE.DEVICE_PROPERTIES);
  const ip = extStruct(a, STYPE.DEVICE_IP_VERSION_EXT);
  props.setU64(8, ip.ptr);
  return api.raw('zeDeviceGetProperties', device, props.ptr) === 0 ? ip.u32(LAYOUT.extU32.value) : undefined;
}

/** Notes for extensions a driver did not list, so the report can say what was not asked. */
export function missingExtensionNotes(extensions: { name: string }[], driverIndex: number): string[] {
  const names = new Set(extensions.map((e) => e.name));
  const out: string[] = [];
  const say: Record<string, string> = {
    [EXT.ipVersion]: 'IP version (ze_device_ip_version_ext_t)',
    [EXT.pci]: 'PCI address (zeDevicePciGetPropertiesExt)',
    [EXT.dp]: 'DPAS (ze_intel_device_module_dp_exp_properties_t)',
    [EXT.blockArray]: '2D block IO (ze_intel_device_block_array_exp_properties_t)',
  };
  for (const [ext, what] of Object.entries(say)) {
    if (!names.has(ext)) out.push(`driver ${driverIndex} does not list ${ext}: ${what} not asked`);
  }
  return out;
}

// Declared on first use, so loading this module does not load koffi.
let getVersionString: ReturnType<ReturnType<typeof koffi>['proto']> | undefined;
const GET_VERSION_STRING = () => (getVersionString ??= koffi().proto('uint32_t ZeIntelGetDriverVersionString(void *hDriver, void *pVersion, void *pSize)'));

/**
 * The driver's own version string through ZE_intel_get_driver_version_string (what UR's Level Zero adapter reports
 * as the driver version when the driver has it, e.g. "1.6.33578+51"); undefined when the driver lacks it.
 */
function driverVersionString(api: ZeApi, a: Arena, drv: bigint, names: Set<string>): string | undefined {
  if (!names.has('ZE_intel_get_driver_version_string') || !api.has('zeDriverGetExtensionFunctionAddress')) return undefined;
  const fn = a.alloc(8);
  if (api.raw('zeDriverGetExtensionFunctionAddress', drv, 'zeIntelGetDriverVersionString', fn.ptr) !== 0 || fn.ptrAt(0) === 0n) return undefined;
  const size = a.alloc(8);
  if ((koffi().call(fn.ptrAt(0), GET_VERSION_STRING(), drv, null, size.ptr) as number) !== 0 || size.u64(0) === 0) return undefined;
  const len = size.u64(0);
  const buf = a.alloc(len + 1);
  size.setU64(0, len + 1);
  if ((koffi().call(fn.ptrAt(0), GET_VERSION_STRING(), drv, buf.ptr, size.ptr) as number) !== 0) return undefined;
  return buf.str(0, len).replace(/\0.*$/s, '').trim() || undefined;
}

export function probeDrivers(api: ZeApi): RawDriver[] {
  const a = new Arena();
  try {
    return driverHandles(api, a).map(({ driver: drv, devices: handlesOfDevices }) => {
      const ver = a.alloc(4);
      api.call('zeDriverGetApiVersion', drv, ver.ptr);
      const D = LAYOUT.driverProperties;
      const dp = a.alloc(D.size).setU32(0, STYPE.DRIVER_PROPERTIES);
      api.call('zeDriverGetProperties', drv, dp.ptr);
      const extensions = readExtensions(api, a, drv);
      const names = new Set(extensions.map((e) => e.name));
      const devices = handlesOfDevices.map((dev) => readDevice(api, a, dev, (e) => names.has(e)));
      const versionString = driverVersionString(api, a, drv, names);
      return {
        apiVersion: apiVersionString(ver.u32(0)),
        driverVersion: dp.u32(D.driverVersion),
        ...(versionString ? { driverVersionString: versionString } : {}),
        uuid: dp.hex(D.uuid, 16),
        extensions,
        devices,
      };
    });
  } finally {
    a.free();
  }
}

/** Initialises the loader (once per process) with the run's environment and reads everything the probe reports. */
export function probeZe(loaderPath: string, env: Readonly<Record<string, string | undefined>>): RawZeProbe {
  const api = zeApiFor(loaderPath, env);
  const init = api.init();
  const drivers = init === 0 ? probeDrivers(api) : [];
  const components = readComponents(api);
  const notes = drivers.flatMap((d, i) => missingExtensionNotes(d.extensions, i));
  if (!api.getVersions) notes.push('the loader has no zelLoaderGetVersions (older than 1.3)');
  return { via: 'koffi', loaderPath, init, components, drivers, notes };
}

let shared: { path: string; api: ZeApi } | undefined;

/**
 * The loader and its drivers are libraries in this process: they read their settings (the driver choice, an affinity
 * mask, the reference driver's profile) from its own environment as they load and initialise, never from the run's
 * `env`. So the run's values of them are put there first; the rest of `env` stays the run's.
 */
function handToLoader(env: Readonly<Record<string, string | undefined>>): void {
  if (env === process.env) return;
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && process.env[k] !== v && LOADER_ENV_PREFIXES.some((p) => k.startsWith(p))) process.env[k] = v;
  }
}

/** One ZeApi per loader path per process (the loader keeps its own global state), loaded with the run's environment. */
export function zeApiFor(loaderPath: string, env: Readonly<Record<string, string | undefined>>): ZeApi {
  handToLoader(env);
  if (!shared || shared.path !== loaderPath) shared = { path: loaderPath, api: new ZeApi(loaderPath) };
  return shared.api;
}
