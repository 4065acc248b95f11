// The ze-driver role: a Level Zero driver the loader is told to use in place of the ones it finds itself. The CPU
// reference driver has it with its file from build/ in place of a source's archives; the loader takes the choice
// from ZE_ENABLE_ALT_DRIVERS (a comma-separated list of driver libraries), which the prefix's env files export.
import { EnvVars } from '../env-names.js';
import type { Role } from './role.js';

/** The variable the loader reads the driver choice from at zeInit. */
export const DRIVER_CHOICE = EnvVars.ZE_ENABLE_ALT_DRIVERS;

/** The driver libraries an environment (or a receipt's extraEnv) chooses, as the loader reads the list; undefined: none. */
export function chosenDrivers(env: Readonly<Record<string, string | undefined>> | undefined): string | undefined {
  return env?.[DRIVER_CHOICE];
}

export const zeDriver: Role = {
  name: 'ze-driver',
  title: 'a Level Zero driver chosen for the loader',
  env: (t): Record<string, string> => (t.built?.length ? { [DRIVER_CHOICE]: t.built.join(',') } : {}),
};
