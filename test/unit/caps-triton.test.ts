import { describe, expect, it } from 'vitest';
import { MIN_TRITON, installedTriton, majorMinor, tritonReads } from '../../src/caps/triton.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';

// From intel-xpu-backend-for-triton's tags: v3.3.0b1's compiler.py reads no variable (ocloc only); v3.4.0b1's reads
// knobs.intel.device_extensions after `if not self.device_arch: return`, device_arch being arch_parser.c's answer
// (arl_h, arl_s, bmg_g21, dg2_g10, lnl_m, mtl_h, pvc; "" otherwise); v3.5.0 adds knobs.intel.device_arch
// (TRITON_INTEL_DEVICE_ARCH) and reads the extensions in driver.py whatever the arch.
describe('which variables each Triton reads', () => {
  it.each([
    ['3.3.0', 'intel_gpu_pvc', false, false],
    ['3.4.0', 'intel_gpu_pvc', false, true],
    ['3.4.0', 'intel_gpu_bmg_g21', false, true],
    ['3.4.0', 'intel_gpu_mtl_u', false, true],
    ['3.4.0', 'intel_gpu_acm_g10', false, true],
    ['3.4.0', 'intel_gpu_acm_g11', false, false],
    ['3.4.0', 'intel_gpu_pvc_vg', false, false],
    ['3.4.0', 'intel_gpu_ptl_h', false, false],
    ['3.4.0', 'intel_gpu_bmg_g31', false, false],
    ['3.4.0', 'unknown', false, false],
    ['3.5.0', 'unknown', true, true],
    ['3.7.1+git8e3a', 'intel_gpu_acm_g11', true, true],
  ] as const)('Triton %s on %s: arch %s, extensions %s', (version, sycl, arch, extensions) => {
    expect(tritonReads(version, sycl)).toMatchObject({ arch, extensions });
  });

  it('says why 3.4 skips the extensions on a part its arch_parser does not name', () => {
    expect(tritonReads('3.4.0', 'intel_gpu_acm_g11').note).toMatch(/does not name torch's architecture \(intel_gpu_acm_g11\)/);
    expect(MIN_TRITON).toBe('3.5.0');
    expect(majorMinor('3.10.0rc1')).toEqual([3, 10]);
    expect(tritonReads('3.10.0', 'unknown').arch).toBe(true);
  });

  it('takes the version of pytorch-triton-xpu before triton-xpu and triton', async () => {
    const deps = fakeDeps({ exec: (file) => (file === 'python3' ? ok('xpu-setup-dists {"python": "/v/bin/python3", "version": "3.12.1", "dists": {"triton": "3.9.0", "pytorch-triton-xpu": "3.4.0"}}\n') : undefined) });
    expect((await installedTriton(deps)).found).toEqual({ dist: 'pytorch-triton-xpu', version: '3.4.0', python: '/v/bin/python3' });
  });
});
