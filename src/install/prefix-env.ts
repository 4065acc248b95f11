// After install: apply a prefix's recorded environment to this process (the loader reads it at zeInit).
import type { Deps } from '../deps.js';
import type { Receipt } from './receipt.js';

/**
 * Variables the prefix's env files set for the runtime (ZE_ENABLE_ALT_DRIVERS for the reference driver) are set
 * here too unless the caller's environment already has them, so probe and smoke see what a user who sourced
 * env.sh would see. The loader reads them at zeInit, which has not happened yet in this process.
 */
export function applyPrefixEnv(receipt: Receipt | undefined, deps: Pick<Deps, 'env'>): void {
  for (const [k, v] of Object.entries(receipt?.extraEnv ?? {})) {
    if (deps.env[k] === undefined) deps.env[k] = v;
  }
}
