// What probe and smoke do first: choose the Level Zero install (a prefix, or the system's own), take on a prefix's
// recorded environment, and say plainly (on stderr) when the device about to be used is the CPU reference driver.
import * as path from 'node:path';
import { defaultPrefix } from '../platform/index.js';
import { withPrefixEnv } from '../install/prefix-env.js';
import { readPrefixState, type PrefixState } from '../install/prefix-state.js';
import { zeLoaderPath } from '../bindings/ze.js';
import type { Deps } from '../base/deps.js';
import { str, type CommandContext } from './command.js';
import { chosenDrivers, referenceDriverIn } from '../roles/index.js';

/** `state`: the prefix as this run read it where it started; `deps`: the run's, with the prefix's recorded environment. */
export type RuntimeTarget = ({ kind: 'prefix'; prefix: string; state: PrefixState } | { kind: 'system' }) & { deps: Deps };

/** --system, else --prefix, else the default prefix when it has a loader, else the system's own loader. */
export async function runtimeTarget(ctx: CommandContext): Promise<RuntimeTarget> {
  const given = str(ctx.values, 'prefix');
  if (ctx.values.system === true) {
    sayActiveDriver(ctx, ctx.deps);
    return { kind: 'system', deps: ctx.deps };
  }
  const prefix = path.resolve(given ?? defaultPrefix(ctx.deps));
  if (given === undefined && !(await ctx.deps.exists(zeLoaderPath(prefix, ctx.deps.platform)))) {
    ctx.out.line(`no xpu-setup prefix at ${prefix}: using the system's Level Zero loader`);
    sayActiveDriver(ctx, ctx.deps);
    return { kind: 'system', deps: ctx.deps };
  }
  const state = await readPrefixState(prefix);
  const deps = withPrefixEnv(state.receipt, ctx.deps);
  sayActiveDriver(ctx, deps);
  return { kind: 'prefix', prefix, state, deps };
}

export function sayActiveDriver(ctx: CommandContext, deps: Pick<Deps, 'env'>): void {
  const alt = chosenDrivers(deps.env);
  if (referenceDriverIn(alt)) {
    ctx.out.line(`active Level Zero driver: the xpu-setup CPU reference driver (${alt}), not an Intel GPU`);
  }
}
