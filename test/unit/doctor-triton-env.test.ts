import { describe, expect, it } from 'vitest';
import { tritonDifferences, tritonFromEnvJson } from '../../src/doctor/checks/triton-env.js';

const envJson = (vars: { name: string; value: string }[]) => JSON.stringify({ schema: 1, separator: ':', vars: vars.map((v) => ({ ...v, mode: 'set' })) });

describe('Triton variables in env.json vs the device', () => {
  it('reads both variables from env.json, and nothing from a file without them or a broken one', () => {
    expect(tritonFromEnvJson(envJson([
      { name: 'TRITON_INTEL_DEVICE_ARCH', value: 'pvc' },
      { name: 'TRITON_INTEL_DEVICE_EXTENSIONS', value: 'cl_intel_subgroup_2d_block_io  cl_khr_fp64' },
    ]))).toEqual({ arch: 'pvc', extensions: ['cl_intel_subgroup_2d_block_io', 'cl_khr_fp64'] });
    expect(tritonFromEnvJson(envJson([{ name: 'LEVEL_ZERO_V1_SDK_PATH', value: '/p' }]))).toEqual({});
    expect(tritonFromEnvJson('{not json')).toBeUndefined();
    expect(tritonFromEnvJson(undefined)).toBeUndefined();
  });

  it('agrees when arch and the extension set match, in any order', () => {
    expect(tritonDifferences({ arch: 'bmg', extensions: ['a', 'b'] }, { arch: 'bmg', extensions: ['b', 'a'] })).toEqual([]);
    expect(tritonDifferences({}, { extensions: [] })).toEqual([]);
  });

  it('names a prefix probed on another GPU: the arch and each extension that differs', () => {
    expect(tritonDifferences(
      { arch: 'dg2', extensions: ['cl_intel_subgroup_matrix_multiply_accumulate', 'cl_intel_bfloat16_conversions'] },
      { arch: 'bmg', extensions: ['cl_intel_subgroup_matrix_multiply_accumulate', 'cl_intel_subgroup_2d_block_io', 'cl_intel_bfloat16_conversions'] },
    )).toEqual([
      'TRITON_INTEL_DEVICE_ARCH is dg2 in the env files, the device calls for bmg',
      'TRITON_INTEL_DEVICE_EXTENSIONS in the env files: missing cl_intel_subgroup_2d_block_io',
    ]);
  });

  it('names variables the env files have but the device does not call for (a driver change since)', () => {
    expect(tritonDifferences({ arch: 'pvc', extensions: ['x', 'y'] }, { extensions: ['x'] })).toEqual([
      'TRITON_INTEL_DEVICE_ARCH is pvc in the env files, the device calls for none',
      'TRITON_INTEL_DEVICE_EXTENSIONS in the env files: not on the device y',
    ]);
  });
});
