// `xpu-setup env`: print the environment of an installed prefix for a shell.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../../errors.js';
import { defaultPrefix } from '../../host/index.js';
import type { TargetPlatform } from '../../host/types.js';
import { ENV_FILES, envVars, renderEnv, SHELLS, type EnvVar, type Shell } from '../../install/env.js';
import { readReceipt, type Receipt } from '../../install/receipt.js';
import { str, type Command } from '../command.js';

/**
 * The variables env.json recorded, moved to where the prefix is now: a prefix copied or moved elsewhere prints its
 * own paths, not the ones it was installed with. Without env.json they are computed from the receipt.
 */
async function prefixEnvVars(prefix: string, receipt: Receipt): Promise<EnvVar[]> {
  const recorded = await readEnvJson(prefix);
  const vars = recorded ?? envVars(receipt.prefix, receipt.platform, receipt.extraEnv ?? {});
  const from = vars.find((v) => v.name === 'LEVEL_ZERO_V1_SDK_PATH')?.value ?? receipt.prefix;
  if (samePath(from, prefix, receipt.platform)) return vars;
  return vars.map((v) => (startsWithPath(v.value, from, receipt.platform) ? { ...v, value: prefix + v.value.slice(from.length) } : v));
}

async function readEnvJson(prefix: string): Promise<EnvVar[] | undefined> {
  try {
    const doc = JSON.parse(await fs.readFile(path.join(prefix, ENV_FILES.json), 'utf8')) as { vars?: EnvVar[] };
    return Array.isArray(doc.vars) && doc.vars.every((v) => typeof v.name === 'string' && typeof v.value === 'string') ? doc.vars : undefined;
  } catch {
    return undefined;
  }
}

const norm = (p: string, platform: TargetPlatform) => (platform === 'win-x64' ? p.toLowerCase().replace(/\//g, '\\') : p);
const samePath = (a: string, b: string, platform: TargetPlatform) => norm(a, platform).replace(/[\\/]+$/, '') === norm(b, platform).replace(/[\\/]+$/, '');
function startsWithPath(value: string, base: string, platform: TargetPlatform): boolean {
  const v = norm(value, platform);
  const b = norm(base, platform);
  return v === b || v.startsWith(b + '\\') || v.startsWith(b + '/');
}

export const envCommand: Command = {
  name: 'env',
  summary: 'Print the environment variables of an installed prefix (sh, fish, pwsh, cmd or json).',
  usage: 'xpu-setup env [--prefix DIR] [--shell sh|fish|pwsh|cmd|json]',
  options: { prefix: { type: 'string' }, shell: { type: 'string' } },
  async run({ deps, out, values }) {
    const prefix = path.resolve(str(values, 'prefix') ?? defaultPrefix(deps));
    const shell = (str(values, 'shell') ?? (out.opts.json ? 'json' : deps.platform === 'win32' ? 'pwsh' : 'sh')) as Shell;
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
    process.stdout.write(renderEnv(await prefixEnvVars(prefix, receipt), shell, receipt.platform));
    return 0;
  },
};
