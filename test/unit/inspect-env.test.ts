// Environment traps: each variable that hides devices, changes the driver list or crashes the loader.
import { describe, expect, it } from 'vitest';
import { findEnvTraps, selectorAllowsLevelZero } from '../../src/machine/env-traps.js';
import { cleanAltDrivers, referenceDriverIn, roleEnvTraps, roleVariables } from '../../src/roles/index.js';

/** What doctor's env check reports of an environment: inspect/'s traps and the roles' (the driver choice). */
const only = (env: Record<string, string>) => [...findEnvTraps(env, roleVariables()), ...roleEnvTraps(env)];

describe('environment traps', () => {
  it('finds nothing in a clean environment', () => {
    expect(only({ PATH: '/usr/bin', HOME: '/root' })).toEqual([]);
  });

  it('fails a trailing comma in ZE_ENABLE_ALT_DRIVERS and gives the value without it', () => {
    const [t] = only({ ZE_ENABLE_ALT_DRIVERS: '/opt/x/libze_intel_gpu.so.1,' });
    expect(t).toMatchObject({ severity: 'fail', fix: 'export ZE_ENABLE_ALT_DRIVERS=/opt/x/libze_intel_gpu.so.1' });
    expect(t!.message).toMatch(/crashes/);
  });

  it('fails a doubled or leading comma too, and an empty value', () => {
    expect(only({ ZE_ENABLE_ALT_DRIVERS: 'a.so,,b.so' })[0]).toMatchObject({ severity: 'fail', fix: 'export ZE_ENABLE_ALT_DRIVERS=a.so,b.so' });
    expect(only({ ZE_ENABLE_ALT_DRIVERS: ',a.so' })[0]?.severity).toBe('fail');
    expect(only({ ZE_ENABLE_ALT_DRIVERS: '' })[0]).toMatchObject({ severity: 'fail', fix: 'unset ZE_ENABLE_ALT_DRIVERS' });
    expect(cleanAltDrivers(',a,,b,')).toBe('a,b');
  });

  it('warns that a non-empty ZE_ENABLE_ALT_DRIVERS replaces the GPU driver, but only notes the reference driver', () => {
    expect(only({ ZE_ENABLE_ALT_DRIVERS: '/opt/other/libze_other.so' })[0]).toMatchObject({ severity: 'warn' });
    const ref = only({ ZE_ENABLE_ALT_DRIVERS: '/p/lib/libze_xpu_refdriver.so' })[0];
    expect(ref).toMatchObject({ severity: 'info', message: 'selects the CPU reference driver /p/lib/libze_xpu_refdriver.so instead of the GPU driver' });
    expect(referenceDriverIn('/a/libze_intel_gpu.so.1,/p/libze_xpu_refdriver.so')).toBe('/p/libze_xpu_refdriver.so');
    expect(referenceDriverIn('/refdriver-dir/libze_intel_gpu.so.1')).toBeUndefined();
  });

  it('warns about ZE_AFFINITY_MASK', () => {
    expect(only({ ZE_AFFINITY_MASK: '0.1' })[0]).toMatchObject({ variable: 'ZE_AFFINITY_MASK', severity: 'warn', message: 'only devices 0.1 are visible to Level Zero programs' });
  });

  it('says when ONEAPI_DEVICE_SELECTOR hides every Level Zero device', () => {
    expect(only({ ONEAPI_DEVICE_SELECTOR: 'opencl:cpu' })[0]?.message).toMatch(/will not see any Level Zero GPU/);
    expect(only({ ONEAPI_DEVICE_SELECTOR: 'level_zero:1' })[0]?.message).toMatch(/only the devices/);
    expect(selectorAllowsLevelZero('!opencl:*')).toBe(true);
    expect(selectorAllowsLevelZero('*:gpu')).toBe(true);
    expect(selectorAllowsLevelZero('!level_zero:*')).toBe(false);
    expect(selectorAllowsLevelZero('level_zero:gpu;!level_zero:*')).toBe(false);
  });

  it('checks ZE_FLAT_DEVICE_HIERARCHY values', () => {
    expect(only({ ZE_FLAT_DEVICE_HIERARCHY: 'COMPOSITE' })[0]?.message).toMatch(/hierarchy is COMPOSITE/);
    expect(only({ ZE_FLAT_DEVICE_HIERARCHY: 'flatt' })[0]?.message).toBe('"flatt" is not one of COMPOSITE, FLAT, COMBINED');
  });

  it('covers the other ZE_ENABLE_* and SYCL_* variables', () => {
    expect(only({ ZE_ENABLE_NULL_DRIVER: '1' })[0]).toMatchObject({ severity: 'warn', message: expect.stringMatching(/Null Device/) });
    expect(only({ ZE_ENABLE_VALIDATION_LAYER: '1' })[0]?.severity).toBe('info');
    expect(only({ ZE_ENABLE_LOADER_DEBUG_TRACE: '1' })[0]?.severity).toBe('info');
    expect(only({ SYCL_DEVICE_FILTER: 'level_zero' })[0]).toMatchObject({ severity: 'warn', message: expect.stringMatching(/ONEAPI_DEVICE_SELECTOR/) });
    expect(only({ SYCL_UR_TRACE: '1' })[0]?.severity).toBe('info');
    expect(only({ UR_ADAPTERS_FORCE_LOAD: '/x/libur_adapter_opencl.so.0' })[0]?.severity).toBe('warn');
  });
});
