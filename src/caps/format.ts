// Renders a probe report: one line per device, a verbose table, versioned JSON, Triton env lines, PyTorch's field names.
import { EnvVars } from '../env-names.js';
import { FEATURES, TRITON_EXTENSION_KEYS, featureName } from './features.js';
import type { DeviceReport, ProbeReport } from './model.js';

export function formatLines(r: ProbeReport): string {
  if (r.devices.length === 0) return 'no devices';
  return r.devices
    .map((d) => `[level_zero:${d.type}][level_zero:${d.id}] ${d.name} ${d.driver.apiVersion} [${d.arch.name}${d.arch.version ? ` ${d.arch.version}` : ''}]`)
    .join('\n');
}

const gib = (n: number) => `${(n / 2 ** 30).toFixed(2)} GiB`;

function flagText(d: DeviceReport): string[] {
  return d.features.map((f) => {
    const name = featureName(f.key).triton;
    const v = f.value === null ? 'unknown' : f.value ? 'yes' : 'no';
    const src = f.source === 'arch' ? 'arch table, inferred' : f.source === 'opencl' ? 'OpenCL' : f.source === 'l0' ? 'L0' : 'none';
    return `${name.padEnd(56)} ${v.padEnd(8)} (${src}: ${f.detail})`;
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
      ['arch', `${d.arch.name}${d.arch.version ? ` (${d.arch.version}` + (d.arch.aliases.length ? `, ${d.arch.aliases.join('/')}` : '') + (d.arch.stepping ? `, ${d.arch.stepping}` : '') + ')' : ''}${d.arch.source === 'opencl' ? ' [ip from OpenCL]' : ''}`],
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

export function tritonExtensions(d: DeviceReport): string[] {
  return TRITON_EXTENSION_KEYS.filter((k) => d.features.find((f) => f.key === k)?.value === true).map((k) => featureName(k).opencl);
}

export function tritonEnv(r: ProbeReport): { arch?: string; extensions: string[] } | undefined {
  const d = primaryDevice(r);
  if (!d) return undefined;
  return { arch: d.arch.known ? d.arch.name : undefined, extensions: tritonExtensions(d) };
}

/** Triton's variables as a child process must see them: exported for sh, literal for dotenv and GitHub. */
export function tritonEnvVars(report: ProbeReport): { name: string; value: string }[] {
  const t = tritonEnv(report);
  if (!t) return [];
  const vars: { name: string; value: string }[] = [{ name: EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS, value: t.extensions.join(' ') }];
  if (t.arch) vars.unshift({ name: EnvVars.TRITON_INTEL_DEVICE_ARCH, value: t.arch });
  return vars;
}

export function formatTritonEnv(r: ProbeReport): string {
  const t = tritonEnv(r);
  if (!t) return '# no device';
  return [
    t.arch ? `TRITON_INTEL_DEVICE_ARCH=${t.arch}` : `# TRITON_INTEL_DEVICE_ARCH not set: ${primaryDevice(r)!.arch.name}`,
    `TRITON_INTEL_DEVICE_EXTENSIONS="${t.extensions.join(' ')}"`,
  ].join('\n');
}

/** Field names of torch.xpu.get_device_properties() (_XpuDeviceProperties). */
export function pytorchProps(r: ProbeReport): Record<string, unknown>[] {
  return r.devices.map((d) => {
    const props: Record<string, unknown> = {
      name: d.name,
      platform_name: 'Level Zero',
      type: d.type,
      driver_version: String(d.driver.version),
      version: d.arch.version || null,
      total_memory: d.memoryBytes,
      max_compute_units: d.euCount,
      gpu_eu_count: d.euCount,
      gpu_subslice_count: d.subslices,
      max_work_group_size: d.maxWorkGroupSize,
      max_num_sub_groups: d.subGroupSizes.length ? Math.floor(d.maxWorkGroupSize / Math.min(...d.subGroupSizes)) : null,
      sub_group_sizes: d.subGroupSizes,
      device_id: Number(d.deviceId),
      uuid: d.uuid,
      architecture: d.arch.known ? d.arch.name : null,
    };
    for (const f of FEATURES) props[f.pytorch] = d.features.find((x) => x.key === f.key)?.value ?? null;
    return props;
  });
}

export function formatPytorch(r: ProbeReport): string {
  return JSON.stringify(pytorchProps(r), null, 2);
}
