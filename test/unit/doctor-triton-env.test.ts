import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { effectiveTriton, tritonDifferences, tritonFromEnvJson } from '../../src/doctor/checks/triton-env.js';
import { runDoctor } from '../../src/doctor/index.js';
import { cliChild, fakeDeps, ok } from '../fixtures/detect/fake-deps.js';

const envJson = (vars: { name: string; value: string }[]) => JSON.stringify({ schema: 1, separator: ':', vars: vars.map((v) => ({ ...v, mode: 'set' })) });
const files = (arch: string | undefined, extensions: string[] | undefined) => ({ ...(arch ? { arch } : {}), ...(extensions ? { extensions } : {}) });

describe('Triton variables: what Triton reads vs the device', () => {
  it('reads both variables from env.json, and nothing from a file without them or a broken one', () => {
    expect(tritonFromEnvJson(envJson([
      { name: 'TRITON_INTEL_DEVICE_ARCH', value: 'pvc' },
      { name: 'TRITON_INTEL_DEVICE_EXTENSIONS', value: 'cl_intel_subgroup_2d_block_io  cl_khr_fp64' },
    ]))).toEqual({ arch: 'pvc', extensions: ['cl_intel_subgroup_2d_block_io', 'cl_khr_fp64'] });
    expect(tritonFromEnvJson(envJson([{ name: 'LEVEL_ZERO_V1_SDK_PATH', value: '/p' }]))).toEqual({});
    expect(tritonFromEnvJson('{not json')).toBeUndefined();
    expect(tritonFromEnvJson(undefined)).toBeUndefined();
  });

  it('takes an exported value first (even an empty one), then the env files', () => {
    const f = files('pvc', ['a', 'b']);
    expect(effectiveTriton({}, f)).toEqual({ arch: { value: 'pvc', from: 'env files' }, extensions: { value: ['a', 'b'], from: 'env files' } });
    expect(effectiveTriton({ TRITON_INTEL_DEVICE_ARCH: 'bmg', TRITON_INTEL_DEVICE_EXTENSIONS: '' }, f)).toEqual({
      arch: { value: 'bmg', from: 'shell' }, extensions: { value: [], from: 'shell' },
    });
    expect(effectiveTriton({}, undefined)).toEqual({});
  });

  it('agrees when arch and the extension set match, in any order', () => {
    expect(tritonDifferences(effectiveTriton({}, files('bmg', ['a', 'b'])), { arch: 'bmg', extensions: ['b', 'a'] })).toEqual([]);
    expect(tritonDifferences({}, { extensions: [] })).toEqual([]);
  });

  it('names a prefix probed on another GPU: the arch and each extension that differs, in the env files', () => {
    expect(tritonDifferences(
      effectiveTriton({}, files('dg2', ['cl_intel_subgroup_matrix_multiply_accumulate', 'cl_intel_bfloat16_conversions'])),
      { arch: 'bmg', extensions: ['cl_intel_subgroup_matrix_multiply_accumulate', 'cl_intel_subgroup_2d_block_io', 'cl_intel_bfloat16_conversions'] },
    )).toEqual([
      'TRITON_INTEL_DEVICE_ARCH is dg2 in the env files, the device calls for bmg',
      'TRITON_INTEL_DEVICE_EXTENSIONS in the env files: missing cl_intel_subgroup_2d_block_io',
    ]);
  });

  it('names stale exports of this shell, an empty one as unset, over env files that are right', () => {
    const eff = effectiveTriton({ TRITON_INTEL_DEVICE_ARCH: 'bmg', TRITON_INTEL_DEVICE_EXTENSIONS: '' }, files('pvc', ['x']));
    expect(tritonDifferences(eff, { arch: 'pvc', extensions: ['x'] })).toEqual([
      'TRITON_INTEL_DEVICE_ARCH is bmg exported in this shell, the device calls for pvc',
      'TRITON_INTEL_DEVICE_EXTENSIONS is exported in this shell empty, which Triton reads as unset (it then asks the device itself, which fails in compile subprocesses)',
    ]);
  });
});

describe('the triton-env check', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-triton-env-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const prefix = path.join(tmp, 'prefix');
  // Test double: the device a probe would find (a PVC whose SYCL answer Triton 3.4 parses).
  const pvcProbe = cliChild({ probe: { ok: true, devices: [{ name: 'pvc', type: 'gpu' }], tritonEnv: { arch: 'pvc', extensions: ['x'], sycl: 'intel_gpu_pvc' } } });
  const pythonWith = (version: string) => (file: string) => (file === 'python3'
    ? ok(`xpu-setup-dists {"python": "/usr/bin/python3", "version": "3.11.2", "dists": {"pytorch-triton-xpu": "${version}"}}\n`) : undefined);
  const check = async (env: Record<string, string>, version: string) => {
    mkdirSync(prefix, { recursive: true });
    writeFileSync(path.join(prefix, 'env.json'), envJson([{ name: 'TRITON_INTEL_DEVICE_ARCH', value: 'pvc' }, { name: 'TRITON_INTEL_DEVICE_EXTENSIONS', value: 'x' }]));
    const exec = (file: string, args: string[]) => pythonWith(version)(file) ?? pvcProbe(file, args);
    const r = await runDoctor({ ...fakeDeps({ env, exec }), started: undefined }, { only: ['triton-env'], prefix, smoke: true });
    return r.checks.find((c) => c.id === 'triton-env')!;
  };

  it('warns about the shell\'s stale exports on a PVC whose env files are right, and says which Triton reads them', async () => {
    const c = await check({ TRITON_INTEL_DEVICE_ARCH: 'bmg', TRITON_INTEL_DEVICE_EXTENSIONS: '' }, '3.5.0');
    expect(c.status).toBe('warn');
    expect(c.message).toMatch(/^TRITON_INTEL_DEVICE_ARCH is bmg exported in this shell, the device calls for pvc; TRITON_INTEL_DEVICE_EXTENSIONS is exported in this shell empty/);
    expect(c.message).toMatch(/Triton 3\.5\.0 reads both variables \(pytorch-triton-xpu in \/usr\/bin\/python3\)/);
    expect(c.fix).toMatch(/^unset the stale exported variable/);
  });

  it('with Triton 3.4, a stale TRITON_INTEL_DEVICE_ARCH is said but not warned about (3.4 does not read it)', async () => {
    const c = await check({ TRITON_INTEL_DEVICE_ARCH: 'bmg' }, '3.4.0+gitabc');
    expect(c.status).toBe('ok');
    expect(c.message).toMatch(/Triton 3\.4\.0\+gitabc has no TRITON_INTEL_DEVICE_ARCH/);
    expect(c.message).toMatch(/not read by this Triton: TRITON_INTEL_DEVICE_ARCH is bmg exported in this shell/);
  });

  it('is ok when the env files match and the shell exports nothing', async () => {
    expect((await check({}, '3.7.1')).status).toBe('ok');
  });
});
