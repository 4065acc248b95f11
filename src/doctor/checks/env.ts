// Check: environment variables that hide devices, change the driver list or crash the loader.
import * as path from 'node:path';
import { osLayout } from '../../platform/index.js';
import { findEnvTraps, type EnvTrap } from '../../machine/env-traps.js';
import { driverChoice, roleEnvTraps, roleVariables } from '../../roles/index.js';
import type { Check, DoctorContext } from '../types.js';
import { envCommandHint } from './shared.js';

/**
 * A Python environment's own UR loader (intel-cmplr-lib-ur, which PyTorch XPU wheels use, installs it into
 * <sys.prefix>/lib) loses to the prefix's copy when <prefix>/lib is on LD_LIBRARY_PATH: the trap that env files
 * in compilers mode avoid. Undefined when there is no such Python or no such clash.
 */
async function shadowedPythonUr(ctx: DoctorContext): Promise<EnvTrap | undefined> {
  // Only LD_LIBRARY_PATH reaches into every program's loads this way; Windows' PATH loses to a DLL beside the program.
  if (osLayout(ctx.deps.platform)?.libraryPathVar !== 'LD_LIBRARY_PATH') return undefined;
  const value = ctx.deps.env.LD_LIBRARY_PATH ?? '';
  const ours = path.join(ctx.prefix, 'lib');
  if (!value.split(':').includes(ours) || !(await ctx.deps.exists(path.join(ours, 'libur_loader.so.0')))) return undefined;
  const py = await ctx.deps.exec('python3', ['-c', 'import sys, importlib.util as u; print(sys.prefix); print("torch" if u.find_spec("torch") else "")'], { timeoutMs: 10_000 });
  if (py.exitCode !== 0) return undefined;
  const [pyPrefix, torch] = py.stdout.split('\n').map((l) => l.trim());
  if (!pyPrefix || path.resolve(pyPrefix) === path.resolve(ctx.prefix)) return undefined;
  const theirs = path.join(pyPrefix, 'lib', 'libur_loader.so.0');
  if (!(await ctx.deps.exists(theirs))) return undefined;
  return {
    variable: 'LD_LIBRARY_PATH',
    value,
    severity: 'warn',
    message: `puts ${ours} on the loader's path, so ${torch ? 'PyTorch in ' : ''}the Python environment ${pyPrefix} loads the prefix's libur_loader.so.0 instead of its own ${theirs}`,
    fix: `load the prefix for building only: ${await envCommandHint(ctx, true)}, or take ${ours} off LD_LIBRARY_PATH`,
  };
}

/** The traps of an environment: the variables inspect/ knows, and the roles' own (the driver choice), by name. */
function allTraps(env: Record<string, string | undefined>): EnvTrap[] {
  return [...findEnvTraps(env, roleVariables()), ...roleEnvTraps(env)].sort((a, b) => a.variable.localeCompare(b.variable));
}

/** The loader skips an entry of the driver choice it cannot load without a word: each path that does not exist. */
async function missingChosenDrivers(ctx: DoctorContext, prefixEnv: Record<string, string>): Promise<(EnvTrap & { from: string })[]> {
  const choice = driverChoice();
  const fromEnv = ctx.deps.env[choice.variable];
  const fromFiles = prefixEnv[choice.variable];
  const out: (EnvTrap & { from: string })[] = [];
  for (const [from, value] of [['environment', fromEnv], ['prefix env files', fromFiles === fromEnv ? undefined : fromFiles]] as const) {
    for (const e of (value ?? '').split(',').filter((x) => x !== '' && /[\\/]/.test(x))) {
      if (await ctx.deps.exists(e)) continue;
      out.push({
        variable: choice.variable,
        value: value!,
        severity: 'warn',
        message: `entry ${e} does not exist: the loader skips it silently`,
        fix: `fix the path or remove ${path.basename(e)} from ${choice.variable}`,
        from,
      });
    }
  }
  return out;
}

export const envCheck: Check = {
  id: 'env',
  title: 'Environment variables',
  group: 'toolchain',
  async run(ctx) {
    const { receipt } = await ctx.facts.receipt();
    const traps: (EnvTrap & { from: string })[] = allTraps(ctx.deps.env).map((t) => ({ ...t, from: 'environment' }));
    const prefixEnv = receipt?.extraEnv ?? {};
    // A shell that loaded the env files has the same variable twice over: one note, not two.
    const same = (a: EnvTrap, b: EnvTrap) => a.variable === b.variable && a.value === b.value && a.message === b.message;
    for (const t of allTraps(prefixEnv)) if (!traps.some((x) => same(x, t))) traps.push({ ...t, from: 'prefix env files' });
    traps.push(...(await missingChosenDrivers(ctx, prefixEnv)));
    const shadow = await shadowedPythonUr(ctx);
    if (shadow) traps.push({ ...shadow, from: 'environment' });
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
