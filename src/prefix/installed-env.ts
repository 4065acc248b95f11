// The environment of an installed prefix where it sits now: env.json's variables, moved along with a copied prefix.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { EnvVars } from '../base/env-names.js';
import { layoutFor } from '../platform/index.js';
import type { TargetPlatform } from '../platform/types.js';
import { receiptEnvVars } from '../shells/env.js';
import { ENV_FILES } from '../shells/index.js';
import type { EnvVar } from '../shells/shell.js';
import type { Receipt } from '../records/receipt.js';

/**
 * The variables env.json recorded, moved to where the prefix is now: a prefix copied or moved elsewhere prints its
 * own paths, not the ones it was installed with. Without env.json they are computed from the receipt.
 */
export async function installedEnvVars(prefix: string, receipt: Receipt): Promise<EnvVar[]> {
  const recorded = await readEnvJson(prefix);
  const vars = recorded ?? receiptEnvVars(receipt);
  const from = vars.find((v) => v.name === EnvVars.LEVEL_ZERO_V1_SDK_PATH)?.value ?? receipt.prefix;
  return relocateVars(vars, from, prefix, receipt.platform);
}

/** Pure: every value under `from` rewritten under `to` (paths compared the way the platform compares them). */
export function relocateVars(vars: EnvVar[], from: string, to: string, platform: TargetPlatform): EnvVar[] {
  const norm = (p: string) => (layoutFor(platform).caseInsensitivePaths ? p.toLowerCase().replace(/\//g, '\\') : p);
  const trim = (p: string) => norm(p).replace(/[\\/]+$/, '');
  if (trim(from) === trim(to)) return vars;
  const base = trim(from);
  const under = (value: string) => {
    const v = norm(value);
    return v === base || v.startsWith(base + '\\') || v.startsWith(base + '/');
  };
  return vars.map((v) => (under(v.value) ? { ...v, value: to + v.value.slice(base.length) } : v));
}

async function readEnvJson(prefix: string): Promise<EnvVar[] | undefined> {
  try {
    const doc = JSON.parse(await fs.readFile(path.join(prefix, ENV_FILES.json), 'utf8')) as { vars?: EnvVar[] };
    return Array.isArray(doc.vars) && doc.vars.every((v) => typeof v.name === 'string' && typeof v.value === 'string') ? doc.vars : undefined;
  } catch {
    return undefined;
  }
}
