// `xpu-setup env`: print the environment of an installed prefix for a shell.
import * as path from 'node:path';
import { XpuError } from '../../errors.js';
import { defaultPrefix, nodeLayout } from '../../host/index.js';
import { envVars, renderEnv, SHELLS, type Shell } from '../../install/env.js';
import { readReceipt } from '../../install/receipt.js';
import { str, type Command } from '../command.js';

export const envCommand: Command = {
  name: 'env',
  summary: 'Print the environment variables of an installed prefix (sh, fish, pwsh, cmd or json).',
  usage: 'xpu-setup env [--prefix DIR] [--shell sh|fish|pwsh|cmd|json]',
  options: { prefix: { type: 'string' }, shell: { type: 'string' } },
  async run({ deps, out, values }) {
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const shell = (str(values, 'shell') ?? (out.opts.json ? 'json' : nodeLayout(deps.platform).defaultShell)) as Shell;
    if (!SHELLS.includes(shell)) {
      throw new XpuError('USAGE', `unknown shell "${shell}"`, { hints: [`shells: ${SHELLS.join(', ')}`] });
    }
    const receipt = await readReceipt(prefix);
    if (!receipt) {
      throw new XpuError('NOT_FOUND', `${prefix} is not an xpu-setup prefix (no receipt)`, {
        details: { prefix },
        hints: [`install first: xpu-setup --prefix ${prefix}`],
      });
    }
    process.stdout.write(renderEnv(envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {}), shell, receipt.platform));
    return 0;
  },
};
