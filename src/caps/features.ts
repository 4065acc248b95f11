// Feature flags with provenance: an L0 extension struct, the device's OpenCL extension list, or the arch table (inferred).
import type { RawDevice } from '../runtime/types.js';
import { BLOCK_ARRAY_FLAG, DP_FLAG, MODULE_FLAG } from '../runtime/ze-abi.js';

export type FeatureKey = 'dpas' | 'dpas_tf32' | 'block_2d_io' | 'bf16_conversions' | 'fp64' | 'fp16' | 'atomic64';

export interface FeatureName {
  key: FeatureKey;
  triton: string;
  pytorch: string;
  /** The OpenCL extension that says the same thing. */
  opencl: string;
}

/** FACTS.md's naming table: one row per flag, the names each consumer uses. */
export const FEATURES: readonly FeatureName[] = [
  { key: 'dpas', triton: 'has_subgroup_matrix_multiply_accumulate', pytorch: 'has_subgroup_matrix_multiply_accumulate', opencl: 'cl_intel_subgroup_matrix_multiply_accumulate' },
  { key: 'dpas_tf32', triton: 'has_subgroup_matrix_multiply_accumulate_tensor_float32', pytorch: 'has_subgroup_matrix_multiply_accumulate_tensor_float32', opencl: 'cl_intel_subgroup_matrix_multiply_accumulate_tensor_float32' },
  { key: 'block_2d_io', triton: 'has_2d_block_io', pytorch: 'has_subgroup_2d_block_io', opencl: 'cl_intel_subgroup_2d_block_io' },
  { key: 'bf16_conversions', triton: 'has_bfloat16_conversion', pytorch: 'has_bfloat16_conversions', opencl: 'cl_intel_bfloat16_conversions' },
  { key: 'fp64', triton: 'has_fp64', pytorch: 'has_fp64', opencl: 'cl_khr_fp64' },
  { key: 'fp16', triton: 'has_fp16', pytorch: 'has_fp16', opencl: 'cl_khr_fp16' },
  { key: 'atomic64', triton: 'has_atomic64', pytorch: 'has_atomic64', opencl: 'cl_khr_int64_base_atomics' },
];

/** The OpenCL extensions Triton reads from TRITON_INTEL_DEVICE_EXTENSIONS. */
export const TRITON_EXTENSION_KEYS: readonly FeatureKey[] = ['dpas', 'dpas_tf32', 'block_2d_io', 'bf16_conversions'];

export type FeatureSource = 'l0' | 'opencl' | 'arch' | 'none';

export interface FeatureFlag {
  key: FeatureKey;
  value: boolean | null;
  source: FeatureSource;
  /** Which struct, extension list or table row answered. */
  detail: string;
}

/** What public sources say each architecture has; null where they do not say. Used only when nothing better answers. */
const ARCH_FEATURES: Record<string, Partial<Record<FeatureKey, boolean>>> = {
  dg2: { dpas: true, block_2d_io: false, bf16_conversions: true, fp64: false, fp16: true },
  pvc: { dpas: true, dpas_tf32: true, block_2d_io: true, bf16_conversions: true, fp64: true, fp16: true, atomic64: true },
  mtl: { dpas: false, block_2d_io: false, fp16: true },
  arl_s: { dpas: false, block_2d_io: false, fp16: true },
  arl_h: { dpas: true, fp16: true },
  bmg: { dpas: true, block_2d_io: true, bf16_conversions: true, fp16: true },
  lnl: { dpas: true, block_2d_io: true, bf16_conversions: true, fp16: true },
  ptl_h: { dpas: true, block_2d_io: true, bf16_conversions: true, fp16: true },
  ptl_u: { dpas: true, block_2d_io: true, bf16_conversions: true, fp16: true },
};

/** Answers from L0 structs the driver filled; null when the struct was not asked. */
export function l0Features(d: RawDevice): Partial<Record<FeatureKey, FeatureFlag>> {
  const out: Partial<Record<FeatureKey, FeatureFlag>> = {};
  const set = (key: FeatureKey, value: boolean, detail: string) => { out[key] = { key, value, source: 'l0', detail }; };
  if (d.dpFlags !== null) set('dpas', (d.dpFlags & DP_FLAG.DPAS) !== 0, 'ze_intel_device_module_dp_exp_properties_t');
  if (d.blockArrayFlags !== null) {
    const both = BLOCK_ARRAY_FLAG.LOAD | BLOCK_ARRAY_FLAG.STORE;
    set('block_2d_io', (d.blockArrayFlags & both) === both, 'ze_intel_device_block_array_exp_properties_t');
  }
  set('fp64', (d.moduleFlags & MODULE_FLAG.FP64) !== 0, 'ze_device_module_properties_t.flags');
  set('fp16', (d.moduleFlags & MODULE_FLAG.FP16) !== 0, 'ze_device_module_properties_t.flags');
  set('atomic64', (d.moduleFlags & MODULE_FLAG.INT64_ATOMICS) !== 0, 'ze_device_module_properties_t.flags');
  return out;
}

/** Every flag, best source first: L0 struct, then the OpenCL list of the same device, then the arch table. */
export function deriveFeatures(opts: { device?: RawDevice; openclExtensions?: string[]; openclDevice?: string; arch?: string }): FeatureFlag[] {
  const l0 = opts.device ? l0Features(opts.device) : {};
  const cl = opts.openclExtensions ? new Set(opts.openclExtensions) : undefined;
  const table = opts.arch ? ARCH_FEATURES[opts.arch] : undefined;
  return FEATURES.map((f) => {
    const fromL0 = l0[f.key];
    if (fromL0) return fromL0;
    if (cl) return { key: f.key, value: cl.has(f.opencl), source: 'opencl', detail: `${f.opencl} in ${opts.openclDevice ?? 'the OpenCL device'}'s extension list` };
    const inferred = table?.[f.key];
    if (inferred !== undefined) return { key: f.key, value: inferred, source: 'arch', detail: `inferred from arch ${opts.arch}` };
    return { key: f.key, value: null, source: 'none', detail: 'no source answered' };
  });
}

export function featureName(key: FeatureKey): FeatureName {
  return FEATURES.find((f) => f.key === key)!;
}

/** Parses clinfo's text output: device name -> its extension list (the "Device Extensions" line). */
export function parseClinfo(text: string): { device: string; extensions: string[] }[] {
  const out: { device: string; extensions: string[] }[] = [];
  let device = '';
  for (const line of text.split('\n')) {
    const name = /^\s+Device Name\s{2,}(.+?)\s*$/.exec(line);
    if (name) device = name[1]!;
    const ext = /^\s+Device Extensions\s{2,}(.+?)\s*$/.exec(line);
    if (ext && device) out.push({ device, extensions: ext[1]!.split(/\s+/).filter(Boolean) });
  }
  return out;
}
