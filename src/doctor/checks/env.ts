// Check: environment variables that hide devices, change the driver list or crash the loader.
import * as path from 'node:path';
import { altDriversEntries, findEnvTraps, type EnvTrap } from '../../inspect/env-traps.js';
import type { Check } from '../types.js';
import { EnvVars } from '../../env-names.js';

export const envCheck: Check = {
  id: 'env',
  title: 'Environment variables',
  group: 'toolchain',
  async run(ctx) {
    const { receipt } = await ctx.facts.receipt();
    const traps: (EnvTrap & { from: string })[] = findEnvTraps(ctx.deps.env).map((t) => ({ ...t, from: 'environment' }));
    const prefixEnv = receipt?.extraEnv ?? {};
    for (const t of findEnvTraps(prefixEnv)) traps.push({ ...t, from: 'prefix env files' });
    // The loader skips an ALT_DRIVERS entry it cannot load without a word.
    for (const [from, value] of [['environment', ctx.deps.env[EnvVars.ZE_ENABLE_ALT_DRIVERS]], ['prefix env files', prefixEnv[EnvVars.ZE_ENABLE_ALT_DRIVERS]]] as const) {
      for (const e of altDriversEntries(value ?? '').filter((x) => x !== '' && /[\\/]/.test(x))) {
        if (!(await ctx.deps.exists(e))) {
          traps.push({
            variable: 'ZE_ENABLE_ALT_DRIVERS',
            value: value!,
            severity: 'warn',
            message: `entry ${e} does not exist: the loader skips it silently`,
            fix: `fix the path or remove ${path.basename(e)} from ZE_ENABLE_ALT_DRIVERS`,
            from,
          });
        }
      }
    }
    const details = { traps };
    const fails = traps.filter((t) => t.severity === 'fail');
    const warns = traps.filter((t) => t.severity === 'warn');
    const infos = traps.filter((t) => t.severity === 'info');
    const line = (t: EnvTrap & { from: string }): string =>
      `${t.variable}=${JSON.stringify(t.value)} ${t.message}${t.from === 'environment' ? '' : ` (${t.from})`}`;
    const problems = [...fails, ...warns];
    if (problems.length === 0) {
      return { status: 'ok', message: infos.length ? `no traps; noted: ${infos.map(line).join('; ')}` : 'no variables that hide devices or break the loader', details };
    }
    const fixes = problems.map((t) => t.fix).filter((f): f is string => !!f);
    return {
      status: fails.length ? 'fail' : 'warn',
      message: problems.map(line).join('; '),
      fix: [...new Set(fixes)].join('; '),
      details,
    };
  },
};
