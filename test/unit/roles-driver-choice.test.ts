// The driver choice (the ze-driver role's variable) as setup writes it and the probe and doctor read it through the
// roles registry: a choice replaces the loader's own search, so a GPU driver installed beside the reference driver is
// listed too, or the loader would never open it.
import { describe, expect, it } from 'vitest';
import { layoutFor } from '../../src/platform/index.js';
import { chosenDrivers, driverChoice, driverChoiceEnv, driversChosenIn, referenceDriverIn, roleEnvTraps } from '../../src/roles/index.js';

const prefix = '/opt/xpu';
const at = { prefix, layout: layoutFor('linux-x64') };
const refdriver = `${prefix}/lib/libze_xpu_setup_refdriver-3f2a9c1e.so`;

describe('the driver choice', () => {
  it('lists the reference driver alone when no other driver is installed', () => {
    const env = driverChoiceEnv([refdriver], at, [{ roles: ['ze-loader', 'ze-headers'] }, { roles: ['ur-loader'] }]);
    expect(env).toEqual({ ZE_ENABLE_ALT_DRIVERS: refdriver });
  });

  it('with the GPU driver installed too, lists both: the reference driver first, then the GPU driver in the prefix', () => {
    const env = driverChoiceEnv([refdriver], at, [{ roles: ['ze-loader', 'ze-headers'] }, { roles: ['gpu-driver'] }]);
    expect(env).toEqual({ ZE_ENABLE_ALT_DRIVERS: `${refdriver},${prefix}/lib/libze_intel_gpu.so.1` });
    // What the probe, the kept-driver check and doctor read back from it.
    expect(driversChosenIn(env)).toEqual({ variable: 'ZE_ENABLE_ALT_DRIVERS', entries: [refdriver, `${prefix}/lib/libze_intel_gpu.so.1`] });
    expect(referenceDriverIn(chosenDrivers(env))).toBe(refdriver);
    expect(roleEnvTraps(env)).toEqual([
      { variable: 'ZE_ENABLE_ALT_DRIVERS', value: env.ZE_ENABLE_ALT_DRIVERS, severity: 'info', message: `selects the CPU reference driver ${refdriver} instead of the GPU driver` },
    ]);
  });

  it('chooses nothing when nothing was built: the loader keeps its own search', () => {
    expect(driverChoiceEnv([], at, [{ roles: ['gpu-driver'] }])).toEqual({});
    expect(driversChosenIn({})).toEqual({ variable: driverChoice().variable });
  });
});
