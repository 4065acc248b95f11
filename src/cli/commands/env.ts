// `xpu-setup env`: print the environment of an installed prefix for a shell, a dotenv file, or GitHub Actions.
import * as path from 'node:path';
import { EnvVars } from '../../env-names.js';
import { XpuError } from '../../errors.js';
import { defaultPrefix, nodeLayout } from '../../host/index.js';
import { appendTo, CI_SHELLS, githubEnv, renderDotenv, resolveEnv, type CiShell } from '../../install/ci-env.js';
import { envVars, renderEnv, SHELLS, type Shell } from '../../install/env.js';
import { readReceipt } from '../../install/receipt.js';
import { str, type Command } from '../command.js';

const ALL = [...SHELLS, ...CI_SHELLS];

export const envCommand: Command = {
  name: 'env',
  summary: 'Print the environment variables of an installed prefix (sh, fish, pwsh, cmd, json, dotenv), or write them for GitHub Actions (github).',
  usage: `xpu-setup env [--prefix DIR] [--shell ${ALL.join('|')}]
  github: appends to the files GITHUB_ENV and GITHUB_PATH name (prints what it would write when they are unset)
  dotenv: NAME=value lines with search paths resolved against this environment (docker --env-file)`,
  options: { prefix: { type: 'string' }, shell: { type: 'string' } },
  async run({ deps, out, values }) {
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const shell = str(values, 'shell') ?? (out.opts.json ? 'json' : nodeLayout(deps.platform).defaultShell);
    if (!(ALL as readonly string[]).includes(shell)) {
      throw new XpuError('USAGE', `unknown shell "${shell}"`, { hints: [`shells: ${ALL.join(', ')}`] });
    }
    const receipt = await readReceipt(prefix);
    if (!receipt) {
      throw new XpuError('NOT_FOUND', `${prefix} is not an xpu-setup prefix (no receipt)`, {
        details: { prefix },
        hints: [`install first: xpu-setup --prefix ${prefix}`],
      });
    }
    const vars = envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {});
    if ((CI_SHELLS as readonly string[]).includes(shell)) {
      const ci = shell as CiShell;
      if (ci === 'dotenv') {
        process.stdout.write(renderDotenv(resolveEnv(vars, receipt.platform, deps.env)));
        return 0;
      }
      const gh = githubEnv(vars, receipt.platform, deps.env);
      const envFile = deps.env[EnvVars.GITHUB_ENV];
      const pathFile = deps.env[EnvVars.GITHUB_PATH];
      if (!envFile || !pathFile) {
        out.line('GITHUB_ENV / GITHUB_PATH are not set: printing what would be written');
        process.stdout.write(`# GITHUB_ENV\n${gh.env}# GITHUB_PATH\n${gh.path}`);
        return 0;
      }
      await appendTo(envFile, gh.env);
      await appendTo(pathFile, gh.path);
      out.line(`wrote ${vars.length} variables to ${envFile} and ${pathFile}`);
      return 0;
    }
    process.stdout.write(renderEnv(vars, shell as Shell, receipt.platform));
    return 0;
  },
};
