// `xpu-setup env`: the environment of an installed prefix for a shell (by default the one $SHELL names), a dotenv
// file, GitHub Actions' GITHUB_ENV / GITHUB_PATH, or a modulefile (Lmod, Environment Modules).
import * as path from 'node:path';
import { EnvVars } from '../../base/env-names.js';
import { XpuError } from '../../base/errors.js';
import { defaultPrefix } from '../../platform/index.js';
import { appendTo, CI_SHELLS, githubEnv, renderDotenv, resolveEnv, type CiShell } from '../../shells/ci-env.js';
import { renderEnv, renderUnset, withoutPrefix } from '../../shells/env.js';
import { detectShell, SHELL_SYNTAX, SHELLS, syntaxOf, type Shell } from '../../shells/index.js';
import { installedEnvVars } from '../../prefix/installed-env.js';
import { MODULE_SHELLS, renderModulefile, type ModuleShell } from '../../shells/modulefile.js';
import { renderSpackPackages, SPACK_SHELL } from '../../shells/spack.js';
import { shq } from '../../base/shell-words.js';
import { readPrefixState } from '../../prefix/prefix-state.js';
import { selfCommand, setupLine } from '../../hints/index.js';
import { str, type Command, type CommandContext } from '../command.js';
import { nearest } from '../options.js';
import { SHELL_NAMES } from '../choices.js';

export function resolveShell(ctx: Pick<CommandContext, 'values' | 'positionals' | 'deps' | 'out'>): Shell {
  const flag = str(ctx.values, 'shell');
  const positional = ctx.positionals[0];
  if (flag !== undefined && positional !== undefined && flag !== positional) {
    throw new XpuError('USAGE', `two shells given: --shell ${flag} and "${positional}"`, { hints: ['give one'] });
  }
  const given = flag ?? positional;
  if (given === undefined) return ctx.out.opts.json ? 'json' : detectShell(ctx.deps);
  const shell = syntaxOf(given.toLowerCase());
  if (!shell) {
    const guess = nearest(given, Object.keys(SHELL_SYNTAX));
    throw new XpuError('USAGE', `unknown shell "${given}"`, { hints: [guess ? `did you mean ${guess}?` : `shells: ${SHELL_NAMES.join(', ')}`] });
  }
  return shell;
}

export const envCommand: Command = {
  name: 'env',
  async run(ctx) {
    const { deps, values, out } = ctx;
    const given = str(values, 'shell') ?? ctx.positionals[0];
    const ci = given !== undefined && (CI_SHELLS as readonly string[]).includes(given) ? (given as CiShell) : undefined;
    const module = given !== undefined && (MODULE_SHELLS as readonly string[]).includes(given) ? (given as ModuleShell) : undefined;
    const spack = given === SPACK_SHELL;
    const shell = ci || module || spack ? 'sh' : resolveShell(ctx);
    if (!SHELLS.includes(shell)) throw new XpuError('USAGE', `unknown shell "${shell}"`);
    if (ci && values.unset) throw new XpuError('USAGE', `--unset prints shell commands; ${ci} has none: drop --unset`);
    if (module && values.unset) throw new XpuError('USAGE', `a modulefile is unloaded with \`module unload\`, not --unset: drop --unset`);
    if (spack && (values.unset || values.compilers)) throw new XpuError('USAGE', `--shell spack declares the prefix to Spack, which sets no variables: drop --${values.unset ? 'unset' : 'compilers'}`);
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const { receipt, unreadable } = await readPrefixState(prefix);
    if (unreadable) throw unreadable;
    if (!receipt) {
      throw new XpuError('NOT_FOUND', `${prefix} is not an xpu-setup prefix (no receipt)`, {
        details: { prefix },
        hints: [`install first: ${setupLine(await selfCommand(deps), prefix, undefined, detectShell(deps))}`],
      });
    }
    if (spack) {
      const yaml = renderSpackPackages({ prefix, components: receipt.components }, `${await selfCommand(deps)} env --prefix ${shq(prefix)} --shell spack`);
      if (!yaml) throw new XpuError('NOT_FOUND', `${prefix} holds no level-zero, the one component Spack has a package (oneapi-level-zero) for`, { details: { prefix }, hints: [`install it: ${setupLine(await selfCommand(deps), prefix, receipt, detectShell(deps))} --component level-zero`] });
      process.stdout.write(yaml);
      return 0;
    }
    // A copied or moved prefix prints its own paths (env.json's variables, moved along).
    const vars = await installedEnvVars(prefix, receipt);
    const chosen = values.compilers ? vars.filter((v) => !v.runtime) : vars;
    if (module) {
      process.stdout.write(renderModulefile(chosen, module, { prefix, platform: receipt.platform, components: receipt.components }));
      return 0;
    }
    if (ci === 'dotenv') {
      process.stdout.write(renderDotenv(resolveEnv(chosen, receipt.platform, deps.env)));
      return 0;
    }
    if (ci === 'github') {
      const gh = githubEnv(chosen, receipt.platform, deps.env);
      const envFile = deps.env[EnvVars.GITHUB_ENV];
      const pathFile = deps.env[EnvVars.GITHUB_PATH];
      if (!envFile || !pathFile) {
        out.line('GITHUB_ENV / GITHUB_PATH are not set: printing what would be written');
        process.stdout.write(`# GITHUB_ENV\n${gh.env}# GITHUB_PATH\n${gh.path}`);
        return 0;
      }
      await appendTo(envFile, gh.env);
      await appendTo(pathFile, gh.path);
      out.line(`wrote ${chosen.length} variables to ${envFile} and ${pathFile}`);
      return 0;
    }
    if (values.unset) process.stdout.write(renderUnset(withoutPrefix(vars, deps.env, receipt.platform), shell));
    else process.stdout.write(renderEnv(chosen, shell, receipt.platform));
    return 0;
  },
};

export const run = envCommand.run;
