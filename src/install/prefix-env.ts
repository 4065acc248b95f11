// After install: apply a prefix's recorded environment to this process, and update what the receipt records.
import type { Deps } from '../deps.js';
import { writeEnvFiles, writeReceipt } from './install.js';
import { readReceipt, type Receipt } from './receipt.js';

/**
 * Variables the prefix's env files set for the runtime (ZE_ENABLE_ALT_DRIVERS for the reference driver) are set
 * here too unless the caller's environment already has them, so probe and smoke see what a user who sourced
 * env.sh would see. The loader reads them at zeInit, which has not happened yet in this process.
 */
export async function applyPrefixEnv(prefix: string, deps: Pick<Deps, 'env'>): Promise<Receipt | undefined> {
  const receipt = await readReceipt(prefix).catch(() => undefined);
  for (const [k, v] of Object.entries(receipt?.extraEnv ?? {})) {
    if (deps.env[k] === undefined) deps.env[k] = v;
  }
  return receipt;
}

/** Rewrites the receipt and the env files of an installed prefix after `mutate` changed the receipt. */
export async function updateReceipt(prefix: string, mutate: (r: Receipt) => void): Promise<Receipt | undefined> {
  const receipt = await readReceipt(prefix);
  if (!receipt) return undefined;
  mutate(receipt);
  if (receipt.extraEnv && Object.keys(receipt.extraEnv).length === 0) delete receipt.extraEnv;
  await writeEnvFiles(prefix, receipt);
  await writeReceipt(prefix, receipt);
  return receipt;
}
