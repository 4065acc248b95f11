// Small helpers the checks share: the environment the stack runs with, the reference driver, distro-specific fixes.
import { isDebianLike } from '../../platform/linux.js';
import { isNative, nodeLayout, prefixLibrary } from '../../platform/index.js';
import type { Host } from '../../platform/types.js';
import { envCommandLine, envFileCommand, newerFix, selfCommand, setupLine } from '../../hints/index.js';
import { detectShell, userShell } from '../../shells/index.js';
import type { IntelGpu } from '../../machine/gpu.js';
import type { Check, CheckOutcome, DoctorContext, RuntimeRequest } from '../types.js';
import { chosenDrivers, referenceDriverIn } from '../../roles/index.js';

/** Whether the GPU driver here is Windows' display driver, which carries the user-mode driver, its compiler and firmware. */
export function onDisplayDriver(ctx: DoctorContext): boolean {
  return nodeLayout(ctx.deps.platform).gpuDriver === 'display-driver';
}

/** The opening of the checks that have nothing to judge on Windows' display driver: skipped there, saying `why`. */
export function offDisplayDriver(why: string, run: Check['run']): Check['run'] {
  return async (ctx) => (onDisplayDriver(ctx) ? { status: 'skip', message: why } : run(ctx));
}

/** The opening of the checks that judge the Intel GPUs found: skipped without one; `run` gets them. */
export function onIntelGpus(run: (ctx: DoctorContext, intel: IntelGpu[]) => Promise<CheckOutcome>): Check['run'] {
  return async (ctx) => {
    const { found } = await ctx.facts.gpus();
    if (found.intel.length === 0) return { status: 'skip', message: 'no Intel GPU' };
    return run(ctx, found.intel);
  };
}

/**
 * The opening of the checks that run the CLI's probe or smoke: `run` in the stack's environment; a run that fails is
 * the check's failure, naming `what` and giving the run's first hint, else `fix`.
 */
export async function inStack<T>(ctx: DoctorContext, what: string, fix: string, run: (req: RuntimeRequest) => Promise<T>): Promise<{ value: T } | { failed: CheckOutcome }> {
  const req = { deps: ctx.deps, prefix: ctx.prefix, env: await stackEnv(ctx) };
  try {
    return { value: await run(req) };
  } catch (e) {
    const err = e as Error & { hints?: string[] };
    return { failed: { status: 'fail', message: `${what} failed: ${err.message}`, fix: err.hints?.[0] ?? fix } };
  }
}

/** The process environment with the prefix's extra variables (from its receipt) applied on top. */
export async function stackEnv(ctx: DoctorContext): Promise<Record<string, string | undefined>> {
  const { receipt } = await ctx.facts.receipt();
  return { ...ctx.deps.env, ...(receipt?.extraEnv ?? {}) };
}

/** stackEnv as a program started after loading the prefix's env file sees it: the prefix's library dir first on the search path. */
export async function prefixFirstEnv(ctx: DoctorContext): Promise<{ env: Record<string, string | undefined>; libDir: string }> {
  const layout = nodeLayout(ctx.deps.platform);
  const env = await stackEnv(ctx);
  const libDir = layout.path.dirname(prefixLibrary(ctx.deps.platform, ctx.prefix, layout.zeLoaderRuntime));
  const search = [libDir, env[layout.libraryPathVar]].filter(Boolean).join(layout.pathSep);
  return { env: { ...env, [layout.libraryPathVar]: search }, libDir };
}

/** The CPU reference driver the driver choice names, in this environment or in the prefix's env files. */
export async function activeReferenceDriver(ctx: DoctorContext): Promise<{ library: string; from: 'environment' | 'prefix env' } | undefined> {
  const fromEnv = referenceDriverIn(chosenDrivers(ctx.deps.env));
  if (fromEnv) return { library: fromEnv, from: 'environment' };
  const { receipt } = await ctx.facts.receipt();
  const fromPrefix = referenceDriverIn(chosenDrivers(receipt?.extraEnv));
  return fromPrefix ? { library: fromPrefix, from: 'prefix env' } : undefined;
}

/**
 * What could bring what the last setup could not get (a component it skipped, or got only below its floor), from what
 * that run saw of its sources as the receipt records it: every source it did not reach, once reachable, or another one;
 * never the same run. One sentence for every check that needs it (one run fetches them all), so a report says it once.
 */
export async function reachFix(ctx: DoctorContext): Promise<string> {
  const { receipt } = await ctx.facts.receipt();
  const below = (receipt?.components ?? []).flatMap((c) => c.belowFloor?.unreached ?? []);
  const unreached = [...new Set([...below, ...(receipt?.skipped ?? []).flatMap((s) => s.unreached)])];
  return newerFix(await selfCommand(ctx.deps), ctx.prefix, receipt, unreached, detectShell(ctx.deps));
}

/**
 * The install command for this prefix, with the channels and indexes its receipt records, ready to paste. `require`
 * replaces what the recorded request asks of that package, so the command asks for something the last run did not;
 * `component` (else the package `require` names) is added to a recorded request that named its components.
 */
export async function setupHint(ctx: DoctorContext, require?: string, component?: string): Promise<string> {
  const { receipt: recorded } = await ctx.facts.receipt();
  const shell = detectShell(ctx.deps);
  // A prefix made for another platform (`--platform win-x64` on Linux) is set up for that platform again.
  const platform = recorded?.platform && !isNative(ctx.deps, recorded.platform) ? ` --platform ${recorded.platform}` : '';
  const nameOf = (constraint: string) => /^[A-Za-z0-9_.-]+/.exec(constraint)?.[0] ?? constraint;
  // A request that named its components (`--component gpu-driver`) would leave out the one the fix installs.
  const wanted = component ?? (require ? nameOf(require) : undefined);
  const named = recorded?.request?.components ?? [];
  const receipt =
    recorded?.request && wanted && named.length && !named.includes(wanted) ? { ...recorded, request: { ...recorded.request, components: [...named, wanted] } } : recorded;
  if (!require) return `\`${setupLine(await selfCommand(ctx.deps), ctx.prefix, receipt, shell)}${platform}\``;
  const asked = receipt?.request
    ? { ...receipt, request: { ...receipt.request, requires: receipt.request.requires.filter((r) => nameOf(r) !== nameOf(require)) } }
    : receipt;
  return `\`${setupLine(await selfCommand(ctx.deps), ctx.prefix, asked, shell)}${platform} --require ${userShell(shell).word(require)}\``;
}

/** The `xpu-setup env` line for the user's shell; `compilers` leaves the loader's search path alone. */
export async function envCommandHint(ctx: DoctorContext, compilers = false): Promise<string> {
  const shell = detectShell(ctx.deps);
  const line = envCommandLine(await selfCommand(ctx.deps), ctx.prefix, shell);
  return `\`${compilers ? line.replace(' env ', ' env --compilers ') : line}\``;
}

/** The line that loads the prefix's env file in the user's shell, quoted for the report (the file may not exist yet). */
export function envLoadHint(ctx: DoctorContext): string {
  return `\`${envFileCommand(ctx.deps, ctx.prefix).line}\``;
}

/**
 * One clause: loading the prefix's env file `does` something, after installing the prefix when its env file does
 * not exist yet ("run `xpu-setup --prefix P`; then `. P/env.sh` sets both").
 */
export async function envScriptHint(ctx: DoctorContext, does: string): Promise<string> {
  const { file } = envFileCommand(ctx.deps, ctx.prefix);
  const load = `${envLoadHint(ctx)} ${does}`;
  return (await ctx.deps.exists(file)) ? load : `run ${await setupHint(ctx)}; then ${load}`;
}

/** How to install Intel's user-mode GPU driver (compute-runtime) on this distro. */
export function computeRuntimeInstallHint(host: Host | undefined): string {
  const d = host?.distro;
  const releases = 'https://github.com/intel/compute-runtime/releases';
  if (d && isDebianLike(d)) {
    return `sudo apt install libze-intel-gpu1 intel-opencl-icd (Ubuntu 24.04+, Debian sid; Debian 12's intel-opencl-icd carries the driver itself, Debian 13 has none: there and on older releases, Intel's packages from ${releases})`;
  }
  if (d && (d.id === 'fedora' || d.idLike.includes('fedora') || d.idLike.includes('rhel'))) return 'sudo dnf install intel-compute-runtime';
  if (d && (d.id === 'arch' || d.idLike.includes('arch'))) return 'sudo pacman -S intel-compute-runtime';
  if (d && (d.id.startsWith('opensuse') || d.idLike.includes('suse'))) return 'sudo zypper install intel-compute-runtime';
  return `install Intel's compute runtime (Level Zero GPU driver) from ${releases}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The GPU driver into this prefix without root (xpu-setup's gpu-driver component), then the machine-wide way. */
export async function gpuDriverFix(ctx: DoctorContext, host: Host | undefined): Promise<string> {
  const { receipt } = await ctx.facts.receipt();
  const line = `${setupLine(await selfCommand(ctx.deps), ctx.prefix, receipt, detectShell(ctx.deps))} --component gpu-driver`;
  return `without root, into this prefix: \`${line}\` (a release that drives this GPU; then load the prefix's env file); or for the whole machine: ${computeRuntimeInstallHint(host)}`;
}
