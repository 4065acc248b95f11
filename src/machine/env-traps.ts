// Environment variables that silently change what Level Zero, UR and SYCL see; a pure scan of the environment (the
// driver choice is its role's to judge: roles/, roleEnvTraps).
import { EnvVars } from '../base/env-names.js';

export interface EnvTrap {
  variable: string;
  value: string;
  /** fail: breaks the stack; warn: hides or changes devices; info: worth knowing (tracing, logging). */
  severity: 'fail' | 'warn' | 'info';
  message: string;
  fix?: string;
}

const FLAT_HIERARCHY_VALUES = ['COMPOSITE', 'FLAT', 'COMBINED'];

/**
 * ONEAPI_DEVICE_SELECTOR is a ';'-separated list of backend:devices terms; terms starting with '!' remove devices.
 * With only negative terms everything else stays visible.
 */
export function selectorAllowsLevelZero(selector: string): boolean {
  const terms = selector.split(';').map((t) => t.trim().toLowerCase()).filter(Boolean);
  const backend = (t: string): string => t.replace(/^!/, '').split(':')[0] ?? '';
  const neg = terms.filter((t) => t.startsWith('!'));
  const pos = terms.filter((t) => !t.startsWith('!'));
  // A negative term for level_zero with every device ("!level_zero:*") removes it whatever else is listed.
  if (neg.some((t) => (backend(t) === 'level_zero' || backend(t) === '*') && /:\*$/.test(t))) return false;
  if (pos.length === 0) return true;
  return pos.some((t) => backend(t) === 'level_zero' || backend(t) === '*');
}

/** The traps of `env`, but for the variables in `judgedElsewhere` (a role's own, which its role judges). */
export function findEnvTraps(env: Record<string, string | undefined>, judgedElsewhere: readonly string[] = []): EnvTrap[] {
  const traps: EnvTrap[] = [];
  const add = (t: EnvTrap): void => void traps.push(t);
  for (const [k, raw] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (raw === undefined || judgedElsewhere.includes(k)) continue;
    const v = raw;
    if (k === EnvVars.ZE_AFFINITY_MASK) {
      add({
        variable: k,
        value: v,
        severity: 'warn',
        message: v.trim() === '' ? 'is set but empty' : `only devices ${v} are visible to Level Zero programs`,
        fix: 'unset ZE_AFFINITY_MASK to see every device',
      });
    } else if (k === EnvVars.ONEAPI_DEVICE_SELECTOR) {
      const excludesL0 = !selectorAllowsLevelZero(v);
      add({
        variable: k,
        value: v,
        severity: 'warn',
        message: excludesL0
          ? 'SYCL and PyTorch XPU will not see any Level Zero GPU with this selector'
          : 'SYCL and PyTorch XPU see only the devices this selector allows',
        fix: 'unset ONEAPI_DEVICE_SELECTOR (or set it to level_zero:gpu)',
      });
    } else if (k === EnvVars.ZE_FLAT_DEVICE_HIERARCHY) {
      const ok = FLAT_HIERARCHY_VALUES.includes(v.toUpperCase());
      add({
        variable: k,
        value: v,
        severity: 'warn',
        message: ok
          ? `device hierarchy is ${v.toUpperCase()}: device counts and ordinals differ from the default (FLAT)`
          : `"${v}" is not one of ${FLAT_HIERARCHY_VALUES.join(', ')}`,
        fix: 'unset ZE_FLAT_DEVICE_HIERARCHY unless your code expects that hierarchy',
      });
    } else if (k === EnvVars.ZE_ENABLE_NULL_DRIVER && v !== '0') {
      add({ variable: k, value: v, severity: 'warn', message: 'the null driver reports a fake "Null Device" that runs nothing', fix: 'unset ZE_ENABLE_NULL_DRIVER' });
    } else if ((k === EnvVars.ZE_ENABLE_VALIDATION_LAYER || k === EnvVars.ZE_ENABLE_TRACING_LAYER) && v !== '0') {
      add({ variable: k, value: v, severity: 'info', message: 'a debugging layer is on: every call is slower' });
    } else if (k.startsWith('ZE_ENABLE_') || k === EnvVars.ZE_ENABLE_LOADER_DEBUG_TRACE) {
      add({ variable: k, value: v, severity: 'info', message: 'changes Level Zero loader behaviour' });
    } else if (k === EnvVars.SYCL_DEVICE_FILTER) {
      add({
        variable: k,
        value: v,
        severity: 'warn',
        message: 'removed from current SYCL runtimes (ignored or rejected); it was replaced by ONEAPI_DEVICE_SELECTOR',
        fix: 'unset SYCL_DEVICE_FILTER and use ONEAPI_DEVICE_SELECTOR if you need a filter',
      });
    } else if (k.startsWith('SYCL_')) {
      add({ variable: k, value: v, severity: 'info', message: 'changes SYCL runtime behaviour' });
    } else if (k === EnvVars.UR_ADAPTERS_FORCE_LOAD) {
      add({ variable: k, value: v, severity: 'warn', message: 'the UR loader loads only these adapters', fix: 'unset UR_ADAPTERS_FORCE_LOAD to load the adapters found on the library path' });
    }
  }
  return traps;
}
