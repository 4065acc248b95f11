// What probe and smoke do first: resolve the prefix, take on its recorded environment, and say plainly (on stderr)
// when the Level Zero device about to be used is the CPU reference driver.
import * as path from 'node:path';
import { referenceDriverIn } from '../inspect/env-traps.js';
import { defaultPrefix } from '../host/index.js';
import { applyPrefixEnv } from '../install/prefix-env.js';
import { str, type CommandContext } from './command.js';
import { EnvVars } from '../env-names.js';

export async function runtimePrefix(ctx: CommandContext): Promise<string> {
  const prefix = path.resolve(str(ctx.values, 'prefix') ?? defaultPrefix(ctx.deps));
  await applyPrefixEnv(prefix, ctx.deps);
  sayActiveDriver(ctx);
  return prefix;
}

export function sayActiveDriver(ctx: CommandContext): void {
  const alt = ctx.deps.env[EnvVars.ZE_ENABLE_ALT_DRIVERS];
  if (referenceDriverIn(alt)) {
    ctx.out.line(`active Level Zero driver: the xpu-setup CPU reference driver (${alt}), not an Intel GPU`);
  }
}
