// `xpu-setup env`: print the environment of an installed prefix for a shell (by default the one $SHELL names).
import * as path from 'node:path';
import { XpuError } from '../../errors.js';
import { defaultPrefix } from '../../host/index.js';
import { envVars, renderEnv, renderUnset, SHELLS, withoutPrefix, type Shell } from '../../install/env.js';
import { readReceipt } from '../../install/receipt.js';
import { hintShell, selfCommand, setupLine } from '../../hints.js';
import { str, type Command, type CommandContext } from '../command.js';
import { nearest } from '../options.js';
import { SHELL_NAMES } from '../registry.js';

/** Shell names people type, and the syntax each one reads. */
const SHELL_SYNTAX: Record<string, Shell> = {
  sh: 'sh', bash: 'sh', zsh: 'sh', dash: 'sh', ksh: 'sh', mksh: 'sh', ash: 'sh', busybox: 'sh',
  fish: 'fish',
  pwsh: 'pwsh', powershell: 'pwsh',
  cmd: 'cmd',
  json: 'json',
};

/** The syntax for the user's own shell: $SHELL's basename on Unix, PowerShell on Windows, sh when unknown. */
export function shellFromEnv(env: Record<string, string | undefined>, platform: NodeJS.Platform): Shell {
  if (platform === 'win32') return 'pwsh';
  const name = path.basename(env.SHELL ?? '').replace(/\.exe$/, '');
  return SHELL_SYNTAX[name] ?? 'sh';
}

export function resolveShell(ctx: Pick<CommandContext, 'values' | 'positionals' | 'deps' | 'out'>): Shell {
  const flag = str(ctx.values, 'shell');
  const positional = ctx.positionals[0];
  if (flag !== undefined && positional !== undefined && flag !== positional) {
    throw new XpuError('USAGE', `two shells given: --shell ${flag} and "${positional}"`, { hints: ['give one'] });
  }
  const given = flag ?? positional;
  if (given === undefined) return ctx.out.opts.json ? 'json' : shellFromEnv(ctx.deps.env, ctx.deps.platform);
  const shell = SHELL_SYNTAX[given.toLowerCase()];
  if (!shell) {
    const guess = nearest(given, Object.keys(SHELL_SYNTAX));
    throw new XpuError('USAGE', `unknown shell "${given}"`, { hints: [guess ? `did you mean ${guess}?` : `shells: ${SHELL_NAMES.join(', ')}`] });
  }
  return shell;
}

export const envCommand: Command = {
  name: 'env',
  async run(ctx) {
    const { deps, values } = ctx;
    const shell = resolveShell(ctx);
    if (!SHELLS.includes(shell)) throw new XpuError('USAGE', `unknown shell "${shell}"`);
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const receipt = await readReceipt(prefix);
    if (!receipt) {
      throw new XpuError('NOT_FOUND', `${prefix} is not an xpu-setup prefix (no receipt)`, {
        details: { prefix },
        hints: [`install first: ${setupLine(await selfCommand(deps), prefix, undefined, hintShell(deps))}`],
      });
    }
    const vars = envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {});
    if (values.unset) process.stdout.write(renderUnset(withoutPrefix(vars, deps.env, receipt.platform), shell));
    else process.stdout.write(renderEnv(values.compilers ? vars.filter((v) => !v.runtime) : vars, shell, receipt.platform));
    return 0;
  },
};

export const run = envCommand.run;
