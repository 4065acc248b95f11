// Renders a probe report: one line per device, a verbose table, versioned JSON, Triton env lines, PyTorch's field names.
import { EnvVars } from '../base/env-names.js';
import { SYCL_ARCH_UNKNOWN, decodeIp, syclArchitectureInt64 } from './arch.js';
import { FEATURES, TRITON_EXTENSION_KEYS, consumerExtension, featureName, type FeatureKey, type FeatureName } from './features.js';
import type { DeviceReport, ProbeReport } from './model.js';

export function formatLines(r: ProbeReport): string {
  if (r.devices.length === 0) return 'no devices';
  return r.devices
    .map((d) => `[level_zero:${d.type}][level_zero:${d.id}] ${d.name} ${d.driver.apiVersion} [${d.arch.name}${d.arch.version ? ` ${d.arch.version}` : ''}]`)
    .join('\n');
}

const gib = (n: number) => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** A flag's names, each labelled with the consumer that reads it. */
export function consumerNames(f: FeatureName): string {
  if (f.triton === f.pytorch) return `${f.triton} (Triton, PyTorch)`;
  return f.triton ? `${f.triton} (Triton) / ${f.pytorch} (PyTorch)` : `${f.pytorch} (PyTorch)`;
}

function flagText(d: DeviceReport): string[] {
  return d.features.map((f) => {
    const name = consumerNames(featureName(f.key));
    const v = f.value === null ? 'unknown' : f.value ? 'yes' : 'no';
    const src = f.source === 'arch' ? 'arch table, inferred' : f.source === 'opencl' ? 'OpenCL' : f.source === 'l0' ? 'L0' : 'none';
    return `${name.padEnd(60)} ${v.padEnd(8)} (${src}: ${f.detail})`;
  });
}

export function formatVerbose(r: ProbeReport): string {
  const out: string[] = [];
  out.push(`loader           ${r.loader.path}${r.loader.file ? ` (${r.loader.file})` : ''}`);
  if (r.loader.componentsTrusted) for (const c of r.loader.components) out.push(`  component      ${c.name} ${c.version} (spec ${c.spec})`);
  else out.push(`  components     not reported by zelLoaderGetVersions${r.loader.installedVersion ? `; installed ${r.loader.installedVersion}` : ''}`);
  for (const d of r.drivers) out.push(`driver ${d.index}         API ${d.apiVersion}, version ${d.version}, ${d.extensions.length} extensions`);
  for (const d of r.devices) {
    const rows: [string, string][] = [
      ['device', `${d.id} ${d.name}`],
      ['type', d.type],
      ['vendor / device', `${d.vendorId} / ${d.deviceId}`],
      ['uuid', d.uuid],
      ['pci', d.pci ?? 'not reported'],
      ['arch', `${d.arch.name}${d.arch.version ? ` (${d.arch.version}` + (d.arch.aliases.length ? `, ${d.arch.aliases.join('/')}` : '') + (d.arch.stepping ? `, ${d.arch.stepping}` : '') + ')' : ''}${d.arch.source === 'opencl' ? ' [ip from OpenCL]' : d.arch.source === 'pci' ? ' [from the PCI device id]' : ''}`],
      ['SYCL arch', `${d.arch.syclAnswer.name}${d.arch.syclAnswer.stepping ? ` (stepping ${d.arch.syclAnswer.stepping})` : ''}${d.arch.syclAnswer.note ? `: ${d.arch.syclAnswer.note}` : ''}`],
      ['EUs', `${d.euCount} (${d.slices} slices, ${d.subslices} sub-slices, ${d.threadsPerEU} threads/EU, SIMD ${d.simdWidth})`],
      ['max work-group', String(d.maxWorkGroupSize)],
      ['sub-group sizes', d.subGroupSizes.join(' ') || 'none'],
      ['memory', `${gib(d.memoryBytes)} (max alloc ${gib(d.maxMemAllocBytes)})`],
      ['sub-devices', String(d.subDevices)],
      ['OpenCL twin', d.opencl ? `${d.opencl.platform} / ${d.opencl.device} (by ${d.opencl.matchedBy})` : 'none'],
    ];
    out.push('', ...rows.map(([k, v]) => `${k.padEnd(17)}${v}`), 'flags:', ...flagText(d).map((l) => `  ${l}`));
  }
  if (r.ur) out.push('', `UR loader        ${r.ur.loaderPath}: ${r.ur.adapters} adapters, platforms: ${r.ur.platforms.join(', ') || 'none'}`,
    ...r.ur.devices.map((u) => `  UR device      ${u.name} ip ${u.ipVersion === null ? 'not answered' : `0x${u.ipVersion.toString(16)}`}`));
  if (r.notes.length) out.push('', 'notes:', ...r.notes.map((n) => `  - ${n}`));
  return out.join('\n');
}

export function formatJson(r: ProbeReport): unknown {
  return r;
}

/** The first GPU is what Triton compiles for. */
export function primaryDevice(r: ProbeReport): DeviceReport | undefined {
  return r.devices.find((d) => d.type === 'gpu') ?? r.devices[0];
}

export interface TritonEnv {
  /** TRITON_INTEL_DEVICE_ARCH; undefined when Triton has no name for the device. */
  arch?: string;
  /** TRITON_INTEL_DEVICE_EXTENSIONS, as Triton spells them; empty when the variable must stay unset. */
  extensions: string[];
  /** Triton's keys answered only by the arch table. */
  inferred: string[];
  /** Triton's keys nobody answered: any of them keeps the variable unset, since Triton reads a missing name as "no". */
  unknown: string[];
  /** What SYCL (so torch's `architecture`, which Triton before 3.5 parses) names the device: intel_gpu_<name> or unknown. */
  sycl: string;
}

/**
 * What Triton reads. Triton takes TRITON_INTEL_DEVICE_EXTENSIONS as the whole truth (a missing name is "no") and an
 * empty value as unset, so the list is written only when every one of its flags is answered, and it also carries
 * the device's other known extensions (fp64, fp16, int64 atomics) so that a device with none of Triton's four still
 * gets a value that says so.
 */
export function tritonEnvFor(d: DeviceReport): TritonEnv {
  const flag = (k: FeatureName) => d.features.find((f) => f.key === k.key);
  const tritonFlags = TRITON_EXTENSION_KEYS.map(featureName);
  const unknown = tritonFlags.filter((f) => (flag(f)?.value ?? null) === null).map((f) => f.triton!);
  const inferred = FEATURES.filter((f) => f.triton && flag(f)?.source === 'arch').map((f) => f.triton!);
  const present = FEATURES.filter((f) => flag(f)?.value === true).map(consumerExtension);
  const extensions = unknown.length === 0 ? present : [];
  return { arch: d.arch.known && d.arch.triton ? d.arch.triton : undefined, extensions, inferred, unknown, sycl: d.arch.syclAnswer.name };
}

export function tritonExtensions(d: DeviceReport): string[] {
  return tritonEnvFor(d).extensions;
}

export function tritonEnv(r: ProbeReport, device?: DeviceReport): TritonEnv | undefined {
  const d = device ?? primaryDevice(r);
  return d ? tritonEnvFor(d) : undefined;
}

/**
 * Triton's variables as a child process must see them (exported for sh, literal for dotenv and GitHub); a variable
 * that must stay unset (see tritonEnvFor) is left out.
 */
export function tritonEnvVars(report: ProbeReport, device?: DeviceReport): { name: string; value: string }[] {
  const t = tritonEnv(report, device);
  if (!t) return [];
  const vars: { name: string; value: string }[] = [];
  if (t.arch) vars.push({ name: EnvVars.TRITON_INTEL_DEVICE_ARCH, value: t.arch });
  if (t.extensions.length) vars.push({ name: EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS, value: t.extensions.join(' ') });
  return vars;
}

export function formatTritonEnv(r: ProbeReport, device?: DeviceReport): string {
  const d = device ?? primaryDevice(r);
  if (!d) return '# no device';
  const t = tritonEnvFor(d);
  const out = [
    t.arch ? `TRITON_INTEL_DEVICE_ARCH=${t.arch}` : `# TRITON_INTEL_DEVICE_ARCH not set: Triton has no name for ${d.arch.name}${d.arch.ip ? ` (ip ${d.arch.version})` : ''}`,
  ];
  if (t.extensions.length) out.push(`TRITON_INTEL_DEVICE_EXTENSIONS="${t.extensions.join(' ')}"`);
  else if (t.unknown.length) out.push(`# TRITON_INTEL_DEVICE_EXTENSIONS not set: unknown ${t.unknown.join(', ')} (Triton would read a missing name as "no")`);
  else out.push('# TRITON_INTEL_DEVICE_EXTENSIONS not set: the device has none of the extensions (Triton reads an empty value as unset)');
  if (t.inferred.length) out.push(`# inferred from the arch table (compute-runtime), not asked of the driver: ${t.inferred.join(', ')}`);
  return out.join('\n');
}

/**
 * UR's Level Zero adapter: driver_version is the driver's ZE_intel_get_driver_version_string answer when it has
 * one ("1.6.33578+51"), else major.minor.build from ze_driver_properties_t.driverVersion.
 */
export function urDriverVersion(v: number, versionString?: string): string {
  return versionString ?? `${(v >>> 24) & 0xff}.${(v >>> 16) & 0xff}.${v & 0xffff}`;
}

/** The platform name UR's Level Zero adapter reports (the V2 adapter adds " V2"). */
export const UR_L0_PLATFORM = 'Intel(R) oneAPI Unified Runtime over Level-Zero';

/**
 * Which of UR's two Level Zero platform names PyTorch will show: the one UR itself reported when the probe reached a
 * UR loader, else what UR_LOADER_USE_LEVEL_ZERO_V2 / SYCL_UR_USE_LEVEL_ZERO_V2 ask for (UR's loader reads both).
 */
export function urPlatformName(r: ProbeReport, env: Record<string, string | undefined> = {}): string {
  const reported = r.ur?.platforms.find((p) => p.startsWith(UR_L0_PLATFORM));
  if (reported) return reported;
  const on = (v: string | undefined) => v !== undefined && /^(1|true|on|yes)$/i.test(v.trim());
  return on(env.UR_LOADER_USE_LEVEL_ZERO_V2) || on(env.SYCL_UR_USE_LEVEL_ZERO_V2) ? `${UR_L0_PLATFORM} V2` : UR_L0_PLATFORM;
}

/**
 * Why PyTorch XPU would see no device through this stack, when it would not: PyTorch enumerates through UR's Level
 * Zero platform, and a probe with no such platform (no UR loader, or its Level Zero adapter did not load) has none.
 */
export function pytorchSeesNothing(r: ProbeReport): string | undefined {
  if (r.ur?.platforms.some((p) => p.startsWith(UR_L0_PLATFORM))) return undefined;
  const why = r.ur ? `the UR loader ${r.ur.loaderPath} reported no Level Zero platform (its adapter did not load; \`probe --verbose\` says why)` : 'no Unified Runtime loader was found';
  return `PyTorch XPU would see no device here: ${why}. These are the values it would report once UR's Level Zero adapter loads (platform_name is the one UR names)`;
}

/** PyTorch's answers for one device: the fields it would report, and each field left out with the reason. */
export interface PytorchDevice {
  device: string;
  props: Record<string, unknown>;
  /** Fields whose value cannot be known from this probe, with why; the pytorch form leaves them out rather than guess. */
  omitted: Record<string, string>;
}

/** PyTorch's `uuid` prints as 8-4-4-4-12 hex digits of the 16 bytes in order (uuid_to_string). */
export function dashedUuid(hex: string): string {
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-');
}

/** The flags in the order _XpuDeviceProperties defines them (aspects first, then the OpenCL-extension ones). */
const PYTORCH_FLAG_ORDER: FeatureKey[] = ['fp16', 'fp64', 'atomic64', 'bf16_conversions', 'dpas', 'dpas_tf32', 'block_2d_io'];

/** SYCL's info::device_type as PyTorch names it, from what UR's Level Zero adapter makes of the L0 type. */
const PYTORCH_TYPE: Record<string, string> = { gpu: 'gpu', cpu: 'cpu', fpga: 'accelerator' };

/**
 * torch.xpu.get_device_properties() (_XpuDeviceProperties), field for field in PyTorch's order, each with PyTorch's
 * name and type and the value UR's Level Zero adapter and SYCL give it: `architecture` is the int64 SYCL enum (a
 * bigint here), `vendor` the adapter's fixed "Intel(R) Corporation", `driver_version` UR's string, `uuid` dashed, and
 * the OpenCL-extension flags as SYCL answers them (from ocloc, by IP version): the tf32 one false, because PyTorch asks
 * for an extension name no driver advertises. A value this probe cannot know is left out, with the reason.
 */
export function pytorchDevices(r: ProbeReport, env: Record<string, string | undefined> = {}): PytorchDevice[] {
  const platform = urPlatformName(r, env);
  return r.devices.map((d) => {
    const props: Record<string, unknown> = {};
    const omitted: Record<string, string> = {};
    const put = (k: string, v: unknown, why?: string) => {
      if (why === undefined) props[k] = v;
      else omitted[k] = why;
    };
    // UR reads the IP from ze_device_ip_version_ext_t; where this probe did not ask, the OpenCL twin's is the same IP.
    const ip = d.l0IpVersion !== null ? d.l0IpVersion : d.arch.source === 'opencl' ? d.arch.ip : undefined;
    const noIp = 'the IP version is not known (the driver does not list ZE_extension_device_ip_version and no OpenCL twin answered)';
    const gpuIp = d.type === 'gpu' && ip !== undefined && ip >= 0x02000000;
    const clWhy = gpuIp ? undefined : ip === undefined ? noIp
      : 'SYCL asks ocloc for the extensions of the device\'s IP version; a device without an Intel GPU IP gets ocloc\'s default device\'s';
    const flag = (key: FeatureKey) => d.features.find((x) => x.key === key)?.value ?? null;
    const minSg = d.subGroupSizes.length ? Math.min(...d.subGroupSizes) : 0;

    put('name', d.name);
    put('platform_name', platform);
    put('vendor', 'Intel(R) Corporation');
    put('device_id', Number(d.deviceId));
    put('driver_version', urDriverVersion(d.driver.version, d.driver.versionString));
    put('version', ip === undefined ? undefined : ipVersionText(ip), ip === undefined ? noIp : undefined);
    put('max_compute_units', d.euCount);
    put('gpu_eu_count', d.euCount);
    put('max_work_group_size', d.maxWorkGroupSize);
    put('max_num_sub_groups', minSg ? Math.floor(d.maxWorkGroupSize / minSg) : undefined, minSg ? undefined : 'the driver reports no sub-group sizes');
    put('memory_clock_rate', d.memoryClockMHz);
    put('memory_bus_width', d.memoryBusWidth);
    put('sub_group_sizes', d.subGroupSizes);
    put('local_mem_size', d.localMemBytes);
    put('last_level_cache_size', d.cacheBytes ?? undefined, typeof d.cacheBytes === 'number' ? undefined : 'zeDeviceGetCacheProperties was not answered');
    for (const f of PYTORCH_FLAG_ORDER.map(featureName)) {
      // fp16/fp64/atomic64 are SYCL aspects, from the module flags UR turns into cl_khr_* names; the others SYCL asks
      // ocloc for by IP version, and the tf32 name it asks for is never there.
      const aspect = f.key === 'fp16' || f.key === 'fp64' || f.key === 'atomic64';
      const v = f.consumerOpencl ? false : flag(f.key);
      put(f.pytorch, v, (aspect ? undefined : clWhy) ?? (v === null ? 'no source answered (no L0 struct, OpenCL twin or arch table row)' : undefined));
    }
    put('is_integrated_gpu', d.type === 'gpu' && d.integrated);
    put('total_memory', d.memoryBytes);
    put('gpu_subslice_count', d.eusPerSubslice ? Math.floor(d.euCount / d.eusPerSubslice) : undefined,
      d.eusPerSubslice ? undefined : 'the driver reports 0 EUs per sub-slice (PyTorch divides by it)');
    const archWhy = d.arch.source === 'pci' ? 'the stepping is not known (the IP version came from the PCI device id only)'
      : ip === undefined ? noIp : undefined;
    put('architecture', archWhy ? undefined : d.type === 'gpu' ? syclArchitectureInt64(ip!) : BigInt.asIntN(64, SYCL_ARCH_UNKNOWN), archWhy);
    const type = PYTORCH_TYPE[d.type];
    put('type', type, type ? undefined : `UR's Level Zero adapter does not support device type ${d.type}`);
    put('uuid', dashedUuid(d.uuid));
    return { device: d.id, props, omitted };
  });
}

/** UR's `version`: architecture.release.revision of the IP version, as compute-runtime's hw_ip_version.h splits it. */
function ipVersionText(ip: number): string {
  const v = decodeIp(ip);
  return `${v.major}.${v.minor}.${v.revision}`;
}

export function pytorchProps(r: ProbeReport, env: Record<string, string | undefined> = {}): Record<string, unknown>[] {
  return pytorchDevices(r, env).map((p) => p.props);
}

/** JSON with bigints written as bare integers, as Python prints an int64. */
export function formatPytorch(r: ProbeReport, env: Record<string, string | undefined> = {}): string {
  return JSON.stringify(pytorchProps(r, env), (_k, v: unknown) => (typeof v === 'bigint' ? `@@int:${v.toString()}@@` : v), 2).replace(/"@@int:(-?\d+)@@"/g, '$1');
}
