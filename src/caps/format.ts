// Renders a probe report: one line per device, a verbose table, versioned JSON, Triton env lines, PyTorch's field names.
import { syclArchitectureInt64 } from './arch.js';
import { FEATURES, TRITON_EXTENSION_KEYS, consumerExtension, featureName, type FeatureName } from './features.js';
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
  return { arch: d.arch.known && d.arch.triton ? d.arch.triton : undefined, extensions, inferred, unknown };
}

export function tritonExtensions(d: DeviceReport): string[] {
  return tritonEnvFor(d).extensions;
}

export function tritonEnv(r: ProbeReport, device?: DeviceReport): TritonEnv | undefined {
  const d = device ?? primaryDevice(r);
  return d ? tritonEnvFor(d) : undefined;
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
 * torch.xpu.get_device_properties() (_XpuDeviceProperties), field for field and type for type: `architecture` is the
 * int64 SYCL enum (a bigint here, written as a bare integer), `driver_version` the UR string, and the tf32 flag
 * false, because PyTorch asks the driver for an extension name no driver advertises.
 */
export function pytorchProps(r: ProbeReport, env: Record<string, string | undefined> = {}): Record<string, unknown>[] {
  const platform = urPlatformName(r, env);
  return r.devices.map((d) => {
    const props: Record<string, unknown> = {
      name: d.name,
      platform_name: platform,
      vendor: d.vendorId === '0x8086' ? 'Intel(R) Corporation' : d.vendorId,
      type: d.type,
      driver_version: urDriverVersion(d.driver.version, d.driver.versionString),
      version: d.arch.ip && d.arch.source !== 'pci' ? d.arch.version : '',
      total_memory: d.memoryBytes,
      max_compute_units: d.euCount,
      gpu_eu_count: d.euCount,
      gpu_subslice_count: d.subslices,
      max_work_group_size: d.maxWorkGroupSize,
      max_num_sub_groups: d.subGroupSizes.length ? Math.floor(d.maxWorkGroupSize / Math.min(...d.subGroupSizes)) : 0,
      sub_group_sizes: d.subGroupSizes,
      device_id: Number(d.deviceId),
      uuid: d.uuid,
      architecture: syclArchitectureInt64(d.arch.source === 'pci' ? 0 : d.arch.ip),
    };
    for (const f of FEATURES) {
      const v = d.features.find((x) => x.key === f.key)?.value ?? null;
      props[f.pytorch] = f.consumerOpencl ? false : v;
    }
    return props;
  });
}

/** JSON with bigints written as bare integers, as Python prints an int64. */
export function formatPytorch(r: ProbeReport, env: Record<string, string | undefined> = {}): string {
  return JSON.stringify(pytorchProps(r, env), (_k, v: unknown) => (typeof v === 'bigint' ? `@@int:${v.toString()}@@` : v), 2).replace(/"@@int:(-?\d+)@@"/g, '$1');
}
