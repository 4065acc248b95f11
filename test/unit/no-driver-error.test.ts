// The "no Level Zero driver" error's remedies: installing the driver is said only where no driver file is there.
import { describe, expect, it } from 'vitest';
import { noDriverError } from '../../src/bindings/ze.js';

const UNINITIALIZED = 0x78000001;
const chosen = { variable: 'ZE_ENABLE_ALT_DRIVERS' };

describe('noDriverError', () => {
  it('a driver that is there and does not load (a newer glibc) is not answered with "install the driver"', () => {
    const e = noDriverError('/p/lib/libze_loader.so.1', UNINITIALIZED, chosen, 'linux', {
      drivers: [{ name: 'libze_intel_gpu.so.1', path: '/p/lib/libze_intel_gpu.so.1', loaded: false, why: "version `GLIBC_2.38' not found" }],
      kernel: [],
    });
    expect(e.hints[0]).toContain("libze_intel_gpu.so.1: version `GLIBC_2.38' not found");
    expect(e.hints.slice(1)).toEqual(['/p/lib/libze_intel_gpu.so.1 is there but did not load: `xpu-setup doctor` (its Level Zero GPU driver check) says what it lacks and which build loads here']);
  });

  it('no driver file anywhere: install the GPU user-mode driver', () => {
    const e = noDriverError('/p/lib/libze_loader.so.1', UNINITIALIZED, chosen, 'linux', {
      drivers: [{ name: 'libze_intel_gpu.so.1', loaded: false, why: 'not on the library search path' }],
      kernel: [],
    });
    expect(e.hints.join('\n')).toContain('install the Intel GPU user-mode driver');
  });
});
