// Small helpers the checks share: the environment the stack runs with, the reference driver, distro-specific fixes.
import { referenceDriverIn } from '../../inspect/env-traps.js';
import { isDebianLike } from '../../host/linux.js';
import type { Host } from '../../host/types.js';
import { envCommandLine, envFileLine, hintShell, selfCommand, setupLine } from '../../hints.js';
import type { DoctorContext } from '../types.js';
import { EnvVars } from '../../env-names.js';

/** The process environment with the prefix's extra variables (from its receipt) applied on top. */
export async function stackEnv(ctx: DoctorContext): Promise<Record<string, string | undefined>> {
  const { receipt } = await ctx.facts.receipt();
  return { ...ctx.deps.env, ...(receipt?.extraEnv ?? {}) };
}

/** The CPU reference driver named by ZE_ENABLE_ALT_DRIVERS, in this environment or in the prefix's env files. */
export async function activeReferenceDriver(ctx: DoctorContext): Promise<{ library: string; from: 'environment' | 'prefix env' } | undefined> {
  const fromEnv = referenceDriverIn(ctx.deps.env[EnvVars.ZE_ENABLE_ALT_DRIVERS]);
  if (fromEnv) return { library: fromEnv, from: 'environment' };
  const { receipt } = await ctx.facts.receipt();
  const fromPrefix = referenceDriverIn(receipt?.extraEnv?.[EnvVars.ZE_ENABLE_ALT_DRIVERS]);
  return fromPrefix ? { library: fromPrefix, from: 'prefix env' } : undefined;
}

/** The install command for this prefix, with the channels and indexes its receipt records, ready to paste. */
export async function setupHint(ctx: DoctorContext): Promise<string> {
  const { receipt } = await ctx.facts.receipt();
  return `\`${setupLine(await selfCommand(ctx.deps), ctx.prefix, receipt, hintShell(ctx.deps))}\``;
}

/** The `xpu-setup env` line for the user's shell; `compilers` leaves the loader's search path alone. */
export async function envCommandHint(ctx: DoctorContext, compilers = false): Promise<string> {
  const shell = hintShell(ctx.deps);
  const line = envCommandLine(await selfCommand(ctx.deps), ctx.prefix, shell);
  return `\`${compilers ? line.replace(' env ', ' env --compilers ') : line}\``;
}

/** How to load the prefix's environment in the user's shell; installing first when its env file does not exist. */
export async function envScriptHint(ctx: DoctorContext): Promise<string> {
  const line = await envFileLine(ctx.deps, ctx.prefix);
  return line ? `\`${line}\`` : `install the prefix first (${await setupHint(ctx)}), then load its env file`;
}

/** How to install Intel's user-mode GPU driver (compute-runtime) on this distro. */
export function computeRuntimeInstallHint(host: Host | undefined): string {
  const d = host?.distro;
  const releases = 'https://github.com/intel/compute-runtime/releases';
  if (d && isDebianLike(d)) {
    return `sudo apt install libze-intel-gpu1 intel-opencl-icd (Ubuntu 24.04+, Debian 13+; on older releases use Intel's packages from ${releases})`;
  }
  if (d && (d.id === 'fedora' || d.idLike.includes('fedora') || d.idLike.includes('rhel'))) return 'sudo dnf install intel-compute-runtime';
  if (d && (d.id === 'arch' || d.idLike.includes('arch'))) return 'sudo pacman -S intel-compute-runtime';
  if (d && (d.id.startsWith('opensuse') || d.idLike.includes('suse'))) return 'sudo zypper install intel-compute-runtime';
  return `install Intel's compute runtime (Level Zero GPU driver) from ${releases}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
