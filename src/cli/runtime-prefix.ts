// What probe and smoke do first: choose the Level Zero install (a prefix, or the system's own), take on a prefix's
// environment (in a new process when this one has not loaded its env file: the dynamic linker reads the library path
// only when a process starts), and say plainly (on stderr) which environment and, when it is, that the device about
// to be used is the CPU reference driver.
import * as path from 'node:path';
import { defaultPrefix, nodeLayout } from '../platform/index.js';
import { withPrefixEnv } from '../prefix/prefix-env.js';
import { readPrefixState, type PrefixState } from '../prefix/prefix-state.js';
import { envIsActive } from '../shells/env.js';
import { installedEnvVars } from '../prefix/installed-env.js';
import { zeLoaderPath } from '../bindings/ze.js';
import type { Deps } from '../base/deps.js';
import { childEnv, envFileOf } from '../pipeline/prove.js';
import { cliEntry } from '../package-dir.js';
import { str, type CommandContext, type Values } from './command.js';
import { chosenDrivers, referenceDriverIn } from '../roles/index.js';

/**
 * `state`: the prefix as this run read it where it started; `deps`: the run's, with the prefix's recorded environment;
 * `rerun`: set when this process lacks the prefix's environment: the command's exit status from a child that has it.
 */
export type RuntimeTarget = ({ kind: 'prefix'; prefix: string; state: PrefixState; rerun?: number } | { kind: 'system' }) & { deps: Deps };

/** --system, else --prefix, else the default prefix when it holds an install, else the system's own loader. */
export async function runtimeTarget(ctx: CommandContext, command: string): Promise<RuntimeTarget> {
  const given = str(ctx.values, 'prefix');
  if (ctx.values.system === true) {
    sayActiveDriver(ctx, ctx.deps);
    return { kind: 'system', deps: ctx.deps };
  }
  const prefix = path.resolve(given ?? defaultPrefix(ctx.deps));
  const state = await readPrefixState(prefix);
  if (given === undefined && !state.receipt && !(await ctx.deps.exists(zeLoaderPath(prefix, ctx.deps.platform)))) {
    ctx.out.line(`no xpu-setup prefix at ${prefix}: using the system's Level Zero loader`);
    sayActiveDriver(ctx, ctx.deps);
    return { kind: 'system', deps: ctx.deps };
  }
  const deps = withPrefixEnv(state.receipt, ctx.deps);
  if (state.receipt) {
    const vars = await installedEnvVars(prefix, state.receipt);
    const file = envFileOf(prefix, ctx.deps);
    const layout = nodeLayout(ctx.deps.platform);
    const env = childEnv(vars, ctx.deps);
    // The child must find its own environment active, or it would start another child in turn.
    const active = envIsActive(vars, layout, ctx.deps.env);
    if (!active && envIsActive(vars, layout, env)) {
      ctx.out.line(`environment: ${file}, in a new process (this shell has not loaded it)`);
      return { kind: 'prefix', prefix, state, deps, rerun: await rerun(ctx, command, prefix, env) };
    }
    ctx.out.debug(active ? `environment: this one, which has ${file} loaded` : `environment: this one, with the prefix's recorded variables (${file} did not apply cleanly)`);
  }
  sayActiveDriver(ctx, deps);
  return { kind: 'prefix', prefix, state, deps };
}

/** The command's own arguments again, from its parsed values, with the prefix as an absolute path. */
function argsOf(values: Values, prefix: string): string[] {
  const out = ['--prefix', prefix];
  for (const [name, v] of Object.entries(values)) {
    if (name === 'prefix' || v === undefined || v === false) continue;
    if (v === true) out.push(`--${name}`);
    else for (const one of Array.isArray(v) ? v : [v]) out.push(`--${name}`, one);
  }
  return out;
}

/** Runs the command again in a child with `env`, hands on what it printed, and returns its exit status. */
async function rerun(ctx: CommandContext, command: string, prefix: string, env: Record<string, string>): Promise<number> {
  const r = await ctx.deps.exec(process.execPath, [cliEntry(), command, ...argsOf(ctx.values, prefix)], { env, timeoutMs: 600_000 });
  // Its words first, then its answer, as the command in this process would order them.
  process.stderr.write(r.stderr);
  process.stdout.write(r.stdout);
  if (r.failedToStart) {
    ctx.out.warn(`the ${command} process ${/SIG|killed/.test(r.failedToStart) ? `crashed (${r.failedToStart}): a library it loaded crashed it; ZE_ENABLE_LOADER_DEBUG_TRACE=1 shows which` : `could not run: ${r.failedToStart}`}`);
    return 1;
  }
  return r.exitCode;
}

export function sayActiveDriver(ctx: CommandContext, deps: Pick<Deps, 'env'>): void {
  const alt = chosenDrivers(deps.env);
  if (referenceDriverIn(alt)) {
    ctx.out.line(`active Level Zero driver: the xpu-setup CPU reference driver (${alt}), not an Intel GPU`);
  }
}
