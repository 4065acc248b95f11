// Feature flags with provenance: an L0 extension struct, the device's OpenCL extension list, or the arch table (inferred).
import type { RawDevice } from '../bindings/types.js';
import { BLOCK_ARRAY_FLAG, DP_FLAG, MODULE_FLAG } from '../bindings/ze-abi.js';

export type FeatureKey = 'dpas' | 'dpas_tf32' | 'block_2d_io' | 'bf16_conversions' | 'fp64' | 'fp16' | 'atomic64';

export interface FeatureName {
  key: FeatureKey;
  /** Triton's target-property key; null where Triton has no such key (PyTorch-only fields). */
  triton: string | null;
  /** The field of PyTorch's `_XpuDeviceProperties`. */
  pytorch: string;
  /** The OpenCL extension drivers advertise for it (what detection looks for). */
  opencl: string;
  /** The extension name Triton and PyTorch ask for, where it differs from what drivers advertise. */
  consumerOpencl?: string;
}

/**
 * One row per flag, the names each consumer uses: Triton's keys from its `compiler.py` / `extension_utils.py`,
 * PyTorch's fields from `_XpuDeviceProperties`, extensions from the Khronos registry and compute-runtime.
 */
export const FEATURES: readonly FeatureName[] = [
  { key: 'dpas', triton: 'has_subgroup_matrix_multiply_accumulate', pytorch: 'has_subgroup_matrix_multiply_accumulate', opencl: 'cl_intel_subgroup_matrix_multiply_accumulate' },
  {
    key: 'dpas_tf32', triton: 'has_subgroup_matrix_multiply_accumulate_tensor_float32', pytorch: 'has_subgroup_matrix_multiply_accumulate_tensor_float32',
    opencl: 'cl_intel_subgroup_matrix_multiply_accumulate_tf32', consumerOpencl: 'cl_intel_subgroup_matrix_multiply_accumulate_tensor_float32',
  },
  { key: 'block_2d_io', triton: 'has_2d_block_io', pytorch: 'has_subgroup_2d_block_io', opencl: 'cl_intel_subgroup_2d_block_io' },
  { key: 'bf16_conversions', triton: 'has_bfloat16_conversion', pytorch: 'has_bfloat16_conversions', opencl: 'cl_intel_bfloat16_conversions' },
  { key: 'fp64', triton: 'has_fp64', pytorch: 'has_fp64', opencl: 'cl_khr_fp64' },
  { key: 'fp16', triton: null, pytorch: 'has_fp16', opencl: 'cl_khr_fp16' },
  { key: 'atomic64', triton: null, pytorch: 'has_atomic64', opencl: 'cl_khr_int64_base_atomics' },
];

/** The OpenCL extensions Triton reads from TRITON_INTEL_DEVICE_EXTENSIONS. */
export const TRITON_EXTENSION_KEYS: readonly FeatureKey[] = ['dpas', 'dpas_tf32', 'block_2d_io', 'bf16_conversions'];

/** The extension name a consumer looks up: Triton and PyTorch spell tf32 differently from the drivers. */
export function consumerExtension(f: FeatureName): string {
  return f.consumerOpencl ?? f.opencl;
}

export type FeatureSource = 'l0' | 'opencl' | 'arch' | 'none';

export interface FeatureFlag {
  key: FeatureKey;
  value: boolean | null;
  source: FeatureSource;
  /** Which struct, extension list or table row answered. */
  detail: string;
}

const GEN12LP = { dpas: false, dpas_tf32: false, block_2d_io: false, bf16_conversions: true, fp64: false, fp16: true, atomic64: true };
const XE_HPG = { dpas: true, dpas_tf32: false, block_2d_io: false, bf16_conversions: true, fp64: false, fp16: true, atomic64: true };
const XE_LPG = { dpas: false, dpas_tf32: false, block_2d_io: false, bf16_conversions: true, fp64: true, fp16: true, atomic64: true };
const XE2_AND_LATER = { dpas: true, dpas_tf32: true, block_2d_io: true, bf16_conversions: true, fp64: true, fp16: true, atomic64: true };
/** Parts before Xe-LP: compute-runtime's legacy branch; only what none of them has is stated. */
const PRE_XE = { dpas: false, dpas_tf32: false, block_2d_io: false, bf16_conversions: false };

/**
 * What each architecture has, from intel/compute-runtime (2026): `compiler_product_helper.cpp` lists the OpenCL
 * extensions — DPAS unless the release helper says not (gen12lp, MTL-U/H, PVC-VG); tf32 from Xe-HPC on
 * (PVC only B0..C0, not VG); 2D block IO from Xe-HPC on; bf16 conversions from the per-release caps (every
 * release from gen12lp). fp64 is `ftrSupportsFP64` of each `hw_info_*.cpp` (DG2 and gen12lp only emulate it,
 * off by default); L0 always reports fp16 and int64 atomics (`device.cpp`). Keyed by SYCL name.
 */
const ARCH_FEATURES: Record<string, Partial<Record<FeatureKey, boolean>>> = {
  ...Object.fromEntries(['bdw', 'skl', 'kbl', 'cfl', 'apl', 'glk', 'whl', 'aml', 'cml', 'icllp', 'ehl'].map((a) => [a, PRE_XE])),
  ...Object.fromEntries(['tgllp', 'rkl', 'adl_s', 'adl_p', 'adl_n', 'dg1'].map((a) => [a, GEN12LP])),
  acm_g10: XE_HPG, acm_g11: XE_HPG, acm_g12: XE_HPG,
  pvc: { ...XE2_AND_LATER },
  pvc_vg: { ...XE2_AND_LATER, dpas: false, dpas_tf32: false },
  mtl_u: XE_LPG, mtl_h: XE_LPG,
  arl_h: { ...XE_LPG, dpas: true },
  ...Object.fromEntries(['bmg_g21', 'bmg_g31', 'lnl_m', 'ptl_h', 'ptl_u', 'wcl', 'nvl_s', 'nvl_u', 'nvl_p', 'cri'].map((a) => [a, XE2_AND_LATER])),
};

/**
 * Flags that differ between steppings of one part, with the revisions that have them: compute-runtime's
 * `enable_compiler_product_helper_pvc.cpp` gives tf32 only to PVC_XT_B0 <= config < PVC_XT_C0_VG (XT-B0, XT-B1, XT-C0),
 * not to the pre-production XL-A0, XL-A0P and XT-A0. A device whose stepping is not known keeps the part's row.
 */
const STEPPING_FEATURES: { sycl: string; key: FeatureKey; revisions: number[]; which: string }[] = [
  { sycl: 'pvc', key: 'dpas_tf32', revisions: [5, 6, 7], which: 'PVC XT-B0..XT-C0' },
];

/** The table's answer for one flag of an architecture at a stepping; undefined when the table has none. */
export function archFeature(sycl: string, key: FeatureKey, revision?: number): { value: boolean; stepping?: string } | undefined {
  const rule = revision === undefined ? undefined : STEPPING_FEATURES.find((r) => r.sycl === sycl && r.key === key);
  if (rule) return { value: rule.revisions.includes(revision!), stepping: `${rule.which} only, this is rev ${revision}` };
  const v = ARCH_FEATURES[sycl]?.[key];
  return v === undefined ? undefined : { value: v };
}

/** The table row for an architecture (by SYCL name), for tests and reports. */
export function archFeatures(sycl: string): Partial<Record<FeatureKey, boolean>> | undefined {
  return ARCH_FEATURES[sycl];
}

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
export function deriveFeatures(opts: { device?: RawDevice; openclExtensions?: string[]; openclDevice?: string; arch?: string; revision?: number }): FeatureFlag[] {
  // `arch` is the SYCL name of the architecture row (pvc, acm_g10, mtl_u, ...); `revision` its stepping when known.
  const l0 = opts.device ? l0Features(opts.device) : {};
  const cl = opts.openclExtensions ? new Set(opts.openclExtensions) : undefined;
  return FEATURES.map((f) => {
    const fromL0 = l0[f.key];
    if (fromL0) return fromL0;
    if (cl) {
      const where = `${opts.openclDevice ?? 'the OpenCL device'}'s extension list`;
      const detail = cl.has(f.opencl) ? `${f.opencl} in ${where}` : `${f.opencl} not in ${where}`;
      return { key: f.key, value: cl.has(f.opencl), source: 'opencl', detail: withConsumerNote(f, detail) };
    }
    const inferred = opts.arch ? archFeature(opts.arch, f.key, opts.revision) : undefined;
    if (inferred !== undefined) {
      const why = `inferred from arch ${opts.arch}${inferred.stepping ? ` (${inferred.stepping})` : ''} (compute-runtime)`;
      return { key: f.key, value: inferred.value, source: 'arch', detail: withConsumerNote(f, why) };
    }
    return { key: f.key, value: null, source: 'none', detail: 'no source answered' };
  });
}

/** Says, on the flag itself, that consumers look for another name than drivers advertise. */
function withConsumerNote(f: FeatureName, detail: string): string {
  if (!f.consumerOpencl) return detail;
  return `${detail}; drivers advertise ${f.opencl}, Triton and PyTorch ask for ${f.consumerOpencl}, which no driver advertises: `
    + 'the Triton env names it so Triton sees it, PyTorch reports false';
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
