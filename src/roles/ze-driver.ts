// The ze-driver role: a Level Zero driver the loader is told to use in place of the ones it finds itself. The CPU
// reference driver has it with its file from build/ in place of a source's archives; the loader takes the choice
// from ZE_ENABLE_ALT_DRIVERS (a comma-separated list of driver libraries), which the prefix's env files export.
import { EnvVars } from '../base/env-names.js';
import type { DriverChoice, Role, RoleTrap } from './role.js';

/** The variable the loader reads the driver choice from at zeInit. */
export const DRIVER_CHOICE = EnvVars.ZE_ENABLE_ALT_DRIVERS;

/** The driver libraries an environment (or a receipt's extraEnv) chooses, as the loader reads the list; undefined: none. */
export function chosenDrivers(env: Readonly<Record<string, string | undefined>> | undefined): string | undefined {
  return env?.[DRIVER_CHOICE];
}

/** The entry of a driver choice that looks like the project's CPU reference driver. */
export function referenceDriverIn(value: string | undefined): string | undefined {
  return (value ?? '').split(',').find((e) => /refdriver/i.test(e.split(/[\\/]/).pop() ?? ''));
}

/** A driver choice with the empty entries removed (what the user meant). */
export function cleanAltDrivers(value: string): string {
  return value.split(',').filter((e) => e !== '').join(',');
}

/** What doctor says of a driver choice's value. */
function choiceTraps(v: string): RoleTrap[] {
  const variable = DRIVER_CHOICE;
  if (v === '' || v.split(',').some((e) => e === '')) {
    return [{
      variable,
      value: v,
      severity: 'fail',
      message: 'has an empty entry (a leading, trailing or doubled comma): the loader passes "" to dlopen, gets the program itself back, and crashes',
      fix: v.replace(/,/g, '') === '' ? `unset ${variable}` : `export ${variable}=${cleanAltDrivers(v)}`,
    }];
  }
  const ref = referenceDriverIn(v);
  if (ref) return [{ variable, value: v, severity: 'info', message: `selects the CPU reference driver ${ref} instead of the GPU driver` }];
  return [{
    variable,
    value: v,
    severity: 'warn',
    message: 'replaces the default driver list: libze_intel_gpu.so.1 is not loaded unless it is listed here',
    fix: `unset ${variable} unless you mean to use another driver`,
  }];
}

const choice: DriverChoice = {
  variable: DRIVER_CHOICE,
  entries: (env) => {
    const v = chosenDrivers(env);
    return v === undefined ? undefined : v.split(',');
  },
  referenceDriver: referenceDriverIn,
  traps: choiceTraps,
};

export const zeDriver: Role = {
  name: 'ze-driver',
  title: 'a Level Zero driver chosen for the loader',
  // The built drivers first (the one asked for), then every driver installed beside them that the list would hide.
  env: (t): Record<string, string> => (t.built?.length ? { [DRIVER_CHOICE]: [...t.built, ...(t.otherDrivers ?? [])].join(',') } : {}),
  choice,
};
